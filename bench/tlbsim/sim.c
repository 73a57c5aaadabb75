// SPDX-License-Identifier: GPL-2.0
/*
 * The TLB model and the replay.
 *
 * Each CPU of the trace has, per page size, a first-level data TLB and a
 * second-level (shared, STLB) TLB: set-associative arrays with true LRU
 * replacement (set = virtual page number % sets; a fully associative
 * array is one set).  An access looks up L1; on a miss, L2 (a hit there
 * costs stlb_hit and refills L1); on a miss there too, a page walk (costs
 * walk, fills L2 and L1).  The levels are neither inclusive nor
 * exclusive: an L2 victim stays in L1, and an L1 hit does not refresh L2.
 * An array with 0 entries is absent (an access goes to the next level).
 *
 * A ranged flush reaches every CPU that has touched the mm so far (and
 * the one that asked): the mm_cpumask of a process whose threads never
 * leave their CPUs.  Per-page, each of them executes one INVLPG per entry
 * (addr = start, start + 2^stride, ...), which drops the entries mapping
 * that address from every array of every page size; a full flush empties
 * every array.  Each costs invlpg per entry, or full, on each CPU.
 * Nothing else is counted: the IPIs, the flush call and the page-table
 * update cost the same whatever the policy decides.
 *
 * A miss costs its whole latency (stlb_hit, walk) when the access depends
 * on the load before it.  Independent misses overlap: the CPU has
 * `walkers` of them in flight at once, and each access takes `issue`
 * cycles anyway, so each pays max(0, latency / walkers - issue)
 * (sim_miss_units()).  That is what the real machines of
 * ../shared/real show: refills of independent loads after a full flush
 * cost an Emerald Rapids nothing and a Zen 4 a few cycles a page, while a
 * chain of dependent loads pays the whole walk.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tlbsim.h"
#include "tlbpath/timectl.h"

/*
 * Default costs, in cycles, each a published measurement:
 *
 * invlpg 100: commit a5102476a24b ("x86/mm: Set TLB flush tunable to sane
 *   value (33)", Dave Hansen, 2014), the commit that chose 33: its
 *   tracepoint deltas (1276 cycles for a 1-page flush, 8534 for 33 pages)
 *   carry a constant bias, "The true cost is nearer to 100 cycles."
 *   Ingo Molnar measured __flush_tlb_one() at 260 cycles (linux-mm,
 *   8 June 2015, "Re: [PATCH 0/3] TLB flush multiple pages per IPI v5"):
 *   run with --invlpg 260 for that.
 * full 100: the same commit, "A full flush is more expensive than a
 *   single invlpg, but not by much (single percentages)"; Molnar's mail
 *   measures the CR3-write flush, __flush_tlb(), at 96 cycles.  The
 *   refills that a full flush causes are not in it: they are simulated.
 * stlb_hit 7: Intel's description of DTLB_LOAD_MISSES.STLB_HIT on Sandy
 *   Bridge (Linux tools/perf/pmu-events/arch/x86/sandybridge/
 *   virtual-memory.json): "The penalty in this case is approximately 7
 *   cycles."
 * walk 45: a5102476a24b again, "a dtlb miss is 17.1ns (~45 cycles)"
 *   (dtlb_load_misses.walk_duration / walk_completed on an Ivy Bridge
 *   i5-3320M); "At those rates, refilling the 512-entry dTLB takes
 *   22,000 cycles."
 */
const struct sim_costs sim_default_costs = {
	.invlpg = 100, .full = 100, .stlb_hit = 7, .walk = 45, .issue = 0,
};

/* Mainline's tlb_single_page_flush_ceiling since a5102476a24b (2014). */
#define STOCK_CEILING	33

static const unsigned int page_shift[TLBP_NR_SIZES] = { 12, 21, 30 };

const char *sim_policy_name(enum sim_policy_kind k)
{
	switch (k) {
	case POL_STOCK:
		return "stock";
	case POL_2012:
		return "2012";
	case POL_FIXED:
		return "fixed";
	case POL_TLBPATH:
		return "tlbpath";
	case POL_TLBPATH_MODEL:
		return "tlbpath-model";
	case POL_GEOMETRY:
		return "geometry";
	case POL_TLBPATH_PMU:
		return "tlbpath-pmu";
	case POL_TLBPATH_TIME:
		return "tlbpath-time";
	case POL_TLBPATH_BOTH:
		return "tlbpath-both";
	}
	return "?";
}

struct arr {
	uint32_t sets, ways;
	uint64_t mask;		/* sets - 1 when sets is a power of 2, else 0 */
	size_t used;		/* valid entries: 0 lets a flush skip the array */
	uint64_t *tag;		/* vpn + 1; 0: invalid */
	uint64_t *lru;		/* time of last use */
};

static size_t set_of(const struct arr *a, uint64_t vpn)
{
	return (size_t)(a->mask ? vpn & a->mask : vpn % a->sets) * a->ways;
}

struct cpu_tlb {
	struct arr l1[TLBP_NR_SIZES], l2[TLBP_NR_SIZES];
	uint64_t walks;		/* its page-walk counter */
	/* Its clock, as the controllers read it: cycles, with noise. */
	uint64_t clock, clock_units;
	uint64_t work;		/* the accesses' own time since its last request */
	/* What the time controller reads (timectl.h): who runs, its requests so far. */
	struct tlbp_tc_clock tc;
	/* Its epochs as a learner times them (epoch_event()). */
	uint64_t ep_start, ep_who, ep_last;
	uint32_t ep_events;
	bool ep_timing, ep_paired;
};

static int arr_init(struct arr *a, const struct sim_shape *sh)
{
	memset(a, 0, sizeof(*a));
	if (!sh->entries)
		return 0;
	a->ways = sh->ways ? sh->ways : sh->entries;
	a->sets = sh->entries / a->ways;
	if (a->sets > 1 && !(a->sets & (a->sets - 1)))
		a->mask = a->sets - 1;
	a->tag = calloc(sh->entries, sizeof(*a->tag));
	a->lru = calloc(sh->entries, sizeof(*a->lru));
	return a->tag && a->lru ? 0 : -1;
}

static void arr_free(struct arr *a)
{
	free(a->tag);
	free(a->lru);
}

static bool arr_lookup(struct arr *a, uint64_t vpn, uint64_t now)
{
	uint64_t *tag, key = vpn + 1;
	size_t base;
	uint32_t w;

	if (!a->used)
		return false;
	base = set_of(a, vpn);
	tag = a->tag + base;
	for (w = 0; w < a->ways; w++)
		if (tag[w] == key) {
			a->lru[base + w] = now;
			return true;
		}
	return false;
}

/* Into an invalid way (the lowest), else over the least recently used. */
static void arr_insert(struct arr *a, uint64_t vpn, uint64_t now)
{
	size_t base, victim;
	uint32_t w;

	if (!a->sets)
		return;
	base = set_of(a, vpn);
	victim = base;
	for (w = 0; w < a->ways; w++) {
		if (!a->tag[base + w]) {
			victim = base + w;
			break;
		}
		if (a->lru[base + w] < a->lru[victim])
			victim = base + w;
	}
	if (!a->tag[victim])
		a->used++;
	a->tag[victim] = vpn + 1;
	a->lru[victim] = now;
}

static void arr_invalidate(struct arr *a, uint64_t vpn)
{
	size_t base;
	uint32_t w;

	if (!a->used)
		return;
	base = set_of(a, vpn);
	for (w = 0; w < a->ways; w++)
		if (a->tag[base + w] == vpn + 1) {
			a->tag[base + w] = 0;
			a->used--;
		}
}

static void arr_clear(struct arr *a)
{
	if (a->used)
		memset(a->tag, 0, (size_t)a->sets * a->ways * sizeof(*a->tag));
	a->used = 0;
}

static void invlpg(struct cpu_tlb *t, uint64_t addr)
{
	unsigned int s;

	for (s = 0; s < TLBP_NR_SIZES; s++) {
		arr_invalidate(&t->l1[s], addr >> page_shift[s]);
		arr_invalidate(&t->l2[s], addr >> page_shift[s]);
	}
}

static void flush_all(struct cpu_tlb *t)
{
	unsigned int s;

	for (s = 0; s < TLBP_NR_SIZES; s++) {
		arr_clear(&t->l1[s]);
		arr_clear(&t->l2[s]);
	}
}

static unsigned int size_index(unsigned int shift)
{
	return shift >= 30 ? TLBP_1G : shift >= 21 ? TLBP_2M : TLBP_4K;
}

/* The last-level 4K dTLB entries the 2012 code read (tlb_lld_4k: the largest data/STLB descriptor). */
static uint32_t lld_4k(const struct sim_cpu_model *m)
{
	return m->geo.l2[TLBP_4K] > m->geo.l1d[TLBP_4K] ? m->geo.l2[TLBP_4K] : m->geo.l1d[TLBP_4K];
}

/* tlbpath's first default, retired on this simulator's numbers. */
static uint32_t geometry_rule(const struct sim_cpu_model *m)
{
	uint32_t l1d = m->geo.l1d[TLBP_4K];

	return l1d ? l1d / 2 + 1 : STOCK_CEILING;
}

uint32_t sim_policy_threshold(const struct sim_policy *p, const struct sim_cpu_model *m,
			      const struct sim_costs *c)
{
	enum sim_tlbpath_kind kind;
	struct sim_tlbpath a;
	uint32_t thr;

	if (sim_tlbpath_kind_of(p->kind, &kind)) {
		/* The adaptive ones start from the stock ceiling. */
		sim_tlbpath_init(&a, kind, &m->geo, c, p->cap, 1, m->walkers ? m->walkers : 1);
		thr = sim_tlbpath_ceiling(&a);
		sim_tlbpath_free(&a);
		return thr;
	}
	switch (p->kind) {
	case POL_STOCK:
		return STOCK_CEILING;
	case POL_2012:
		return lld_4k(m) / (p->div ? p->div : 16);
	case POL_FIXED:
		return p->threshold;
	case POL_GEOMETRY:
		return geometry_rule(m);
	default:
		return 0;
	}
}

/*
 * Alex Shi's 2012 rule ([PATCH 2/3] "x86/flush_tlb: try flush_tlb_single
 * one by one in flush_tlb_range", ../shared/seeds): hugetlb ranges are
 * always flushed entirely; otherwise act_entries = min(tlb_lld_4k,
 * mm->total_vm), and the range goes one by one unless
 * (end - start) / PAGE_SIZE > act_entries / FLUSHALL_BAR (16).
 */
static bool rule2012(const struct sim_policy *p, const struct sim_cpu_model *m,
		     const struct sim_event *e)
{
	uint64_t act = lld_4k(m);

	if (e->shift != 12)
		return false;
	if (e->total_vm < act)
		act = e->total_vm;
	return e->entries <= act / (p->div ? p->div : 16);
}

/* @n misses of latency @lat, @dep of them by dependent accesses (sim_miss_units()). */
static uint64_t miss_cycles(uint64_t n, uint64_t dep, uint64_t lat,
			    const struct sim_cpu_model *m, const struct sim_costs *c)
{
	uint32_t w = m->walkers ? m->walkers : 1;

	return (dep * sim_miss_units(lat, true, w, c->issue) +
		(n - dep) * sim_miss_units(lat, false, w, c->issue)) / w;
}

static uint64_t xorshift64(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

/* A break in every BREAK_EVERY requests, on average: another task ran. */
#define BREAK_EVERY	64

/*
 * A flush request on @me, or one it executes for another CPU: with noise,
 * random extra time up to the interval's own work since the last (its
 * accesses' time, which no decision changes: noise independent of the
 * decision), and now and then a break.
 */
static void request_noise(struct cpu_tlb *me, uint64_t *rng)
{
	if (*rng) {
		me->clock += xorshift64(rng) % (me->work + 1);
		if (!(xorshift64(rng) % BREAK_EVERY))
			me->tc.who++;
	}
	me->work = 0;
	me->tc.now = me->clock;
}

static uint32_t epoch_bin(double size)
{
	double b = floor(16 * log2(size + 1));

	return b < SIM_EPOCH_BINS - 1 ? (uint32_t)b : SIM_EPOCH_BINS - 1;
}

double sim_epoch_mad(const struct sim_result *r)
{
	uint64_t seen = 0;
	uint32_t b;

	for (b = 0; r->epoch_pairs && b < SIM_EPOCH_BINS; b++) {
		seen += r->epoch_hist[b];
		if (2 * seen > r->epoch_pairs)
			return 1.4826 * (exp2((b + 0.5) / 16) - 1);
	}
	return 0;
}

/*
 * A flush event on @me (one it asked for, or one it executed for another
 * CPU), its clock just read: every @events of them end an epoch
 * (TLBP_TC_TICK, as the time controller's), unless another task ran.  Two
 * epochs in a row of one policy differ by the workload's own variation
 * and the noise: what a learner that times epochs must tell a better
 * policy's saving from (report.sh, "What evidence can reach").
 */
static void epoch_event(struct cpu_tlb *me, uint32_t events, struct sim_result *r)
{
	if (me->ep_timing && ++me->ep_events < events)
		return;
	if (me->ep_timing && me->tc.who == me->ep_who) {
		uint64_t d = me->tc.now - me->ep_start;

		r->epochs++;
		if (me->ep_paired) {
			double diff = (double)d - (double)me->ep_last;

			r->epoch_pairs++;
			r->epoch_d2 += diff * diff;
			r->epoch_hist[epoch_bin(fabs(diff))]++;
		}
		me->ep_paired = true;
		me->ep_last = d;
	} else {
		me->ep_paired = false;
	}
	me->ep_timing = true;
	me->ep_events = 0;
	me->ep_start = me->tc.now;
	me->ep_who = me->tc.who;
}

/* An access's miss on @me, costing @units / walkers cycles on its clock. */
static void clock_miss(struct cpu_tlb *me, uint64_t units, uint32_t walkers)
{
	me->clock_units += units;
	me->clock += me->clock_units / walkers;
	me->clock_units %= walkers;
}

int sim_run(const struct sim_trace *t, const struct sim_cpu_model *m,
	    const struct sim_policy *p, const struct sim_costs *c,
	    struct sim_result *r)
{
	unsigned int ncpus = t->ncpus ? t->ncpus : 1;
	struct cpu_tlb *cpu = calloc(ncpus, sizeof(*cpu));
	bool *active = calloc(ncpus, sizeof(*active));
	uint32_t w = m->walkers ? m->walkers : 1;
	uint64_t rng = p->noise ? 0x9e3779b97f4a7c15ull ^ p->noise : 0;
	uint32_t events = p->epoch ? p->epoch : TLBP_TC_TICK;
	/* The CPUs a flush reaches draw their noise apart: the asking CPUs' stays as it was. */
	uint64_t rng_remote = p->noise ? 0x7f4a7c159e3779b9ull ^ p->noise : 0;
	struct sim_tlbpath tp = { 0 };
	enum sim_tlbpath_kind kind;
	uint64_t now = 0;
	unsigned int i, s;
	int ret = -1;
	size_t k, at;

	memset(r, 0, sizeof(*r));
	if (!cpu || !active)
		goto out;
	for (i = 0; i < t->ncpus; i++)
		for (s = 0; s < TLBP_NR_SIZES; s++)
			if (arr_init(&cpu[i].l1[s], &m->l1[s]) || arr_init(&cpu[i].l2[s], &m->l2[s]))
				goto out;
	if (sim_tlbpath_kind_of(p->kind, &kind)) {
		sim_tlbpath_init(&tp, kind, &m->geo, c, p->cap, ncpus, w);
		if (!tp.usable)
			goto out;
	}

	/* Run after run (sim_trace_repeat()), each the same events. */
	for (k = 0, at = 0; k < t->n * (t->runs ? t->runs : 1);
	     k++, at = at + 1 == t->n ? 0 : at + 1) {
		const struct sim_event *e = &t->ev[at];
		struct cpu_tlb *me = &cpu[e->cpu];
		unsigned int reach = 0;
		bool perpage = false;
		uint64_t j;

		if (e->type == EV_READ || e->type == EV_WRITE) {
			unsigned int sz = size_index(e->shift);
			uint64_t vpn = e->addr >> page_shift[sz];

			now++;
			active[e->cpu] = true;
			r->accesses++;
			me->clock += c->issue ? c->issue : 1;
			me->work += c->issue ? c->issue : 1;
			if (arr_lookup(&me->l1[sz], vpn, now)) {
				r->l1_hits++;
			} else if (arr_lookup(&me->l2[sz], vpn, now)) {
				r->stlb_hits++;
				r->dep_stlb_hits += e->dep;
				clock_miss(me, sim_miss_units(c->stlb_hit, e->dep, w, c->issue), w);
				arr_insert(&me->l1[sz], vpn, now);
			} else {
				r->walks++;
				r->dep_walks += e->dep;
				me->walks++;
				clock_miss(me, sim_miss_units(c->walk, e->dep, w, c->issue), w);
				arr_insert(&me->l2[sz], vpn, now);
				arr_insert(&me->l1[sz], vpn, now);
			}
			continue;
		}

		active[e->cpu] = true;
		for (i = 0; i < t->ncpus; i++)
			reach += active[i];
		request_noise(me, &rng);
		epoch_event(me, events, r);
		sim_tlbpath_request(&tp, e->cpu, &me->tc);
		if (e->type == EV_FULL) {
			r->caller_full_calls++;
		} else {
			struct sim_flush_call call = {
				.start = e->addr,
				.end = e->addr + (e->entries << e->shift),
				.stride_shift = e->shift,
				.cpu = e->cpu,
				.nr_cpus = reach,
				.reached = active,
				.ncpus = t->ncpus,
				.total_vm = e->total_vm,
				.rss = e->rss,
				.clock = &me->tc,
			};

			r->calls++;
			switch (p->kind) {
			case POL_STOCK:
				perpage = e->entries <= STOCK_CEILING;
				break;
			case POL_FIXED:
				perpage = e->entries <= p->threshold;
				break;
			case POL_GEOMETRY:
				perpage = e->entries <= geometry_rule(m);
				break;
			case POL_2012:
				perpage = rule2012(p, m, e);
				break;
			default:
				perpage = sim_tlbpath_perpage(&tp, &call);
				break;
			}
			if (perpage)
				r->perpage_calls++;
			else
				r->widened_calls++;
		}
		/* The asking CPU's counts, as the module's counters keep them. */
		me->tc.requests++;
		if (perpage)
			me->tc.pages += e->entries;
		else
			me->tc.fulls++;
		/*
		 * Each CPU reached flushes; the asking one waits for them all.
		 * The others' clocks, with their noise, time it there.
		 */
		for (i = 0; i < t->ncpus; i++) {
			if (!active[i])
				continue;
			if (!perpage) {
				flush_all(&cpu[i]);
				r->full_flushes++;
				cpu[i].clock += c->full;
				sim_tlbpath_executed(&tp, i, ~0UL, cpu[i].walks, cpu[i].clock);
			} else {
				for (j = 0; j < e->entries; j++)
					invlpg(&cpu[i], e->addr + (j << e->shift));
				r->invlpg += e->entries;
				cpu[i].clock += e->entries * c->invlpg;
				sim_tlbpath_executed(&tp, i, e->entries, cpu[i].walks, cpu[i].clock);
			}
			if (i != e->cpu) {
				request_noise(&cpu[i], &rng_remote);
				epoch_event(&cpu[i], events, r);
				sim_tlbpath_remote(&tp, i, perpage ? e->entries : ~0UL, &cpu[i].tc);
			}
		}
	}

	r->cyc_stlb = miss_cycles(r->stlb_hits, r->dep_stlb_hits, c->stlb_hit, m, c);
	r->cyc_walk = miss_cycles(r->walks, r->dep_walks, c->walk, m, c);
	r->cyc_invlpg = r->invlpg * c->invlpg;
	r->cyc_full = r->full_flushes * c->full;
	r->cycles = r->cyc_stlb + r->cyc_walk + r->cyc_invlpg + r->cyc_full;
	if (tp.on && tp.kind != SIM_TP_MODEL) {
		struct sim_adapt_stats st;

		sim_tlbpath_stats(&tp, &st);
		r->adapt_keep = st.keep_max;
		r->explorations = st.explore_widen + st.explore_keep;
	}
	ret = 0;
out:
	sim_tlbpath_free(&tp);
	free(active);
	for (i = 0; cpu && i < t->ncpus; i++)
		for (s = 0; s < TLBP_NR_SIZES; s++) {
			arr_free(&cpu[i].l1[s]);
			arr_free(&cpu[i].l2[s]);
		}
	free(cpu);
	return ret;
}

int sim_best_fixed(const struct sim_trace *t, const struct sim_cpu_model *m,
		   const struct sim_costs *c, struct sim_result *best,
		   uint32_t *lo, uint32_t *hi, sim_sweep_fn each, void *ctx)
{
	struct sim_policy p = { .kind = POL_FIXED };
	size_t i, n = t->nsizes + 1, first = 0;
	uint64_t *cycles = calloc(n, sizeof(*cycles));

	if (!cycles)
		return -1;
	for (i = 0; i < n; i++) {
		struct sim_result r;

		/* Thresholds 0, then each flush size: nothing changes in between. */
		p.threshold = i ? (uint32_t)t->sizes[i - 1] : 0;
		if (sim_run(t, m, &p, c, &r)) {
			free(cycles);
			return -1;
		}
		if (each)
			each(ctx, p.threshold, &r);
		cycles[i] = r.cycles;
		if (!i || r.cycles < best->cycles) {
			*best = r;
			first = i;
		}
	}
	*lo = first ? (uint32_t)t->sizes[first - 1] : 0;
	for (i = first; i + 1 < n && cycles[i + 1] == cycles[first]; i++)
		;
	/* Threshold i's decisions hold up to the next size - 1. */
	*hi = i + 1 < n ? (uint32_t)t->sizes[i] - 1 : UINT32_MAX;
	free(cycles);
	return 0;
}
