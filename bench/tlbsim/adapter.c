// SPDX-License-Identifier: GPL-2.0
/*
 * The one place where tlbsim calls tlbpath's decision code (src/policy.c,
 * linked as it is built into the module): what the module would decide
 * for a flush call, given the CPU's geometry.  When policy.h changes,
 * this file is the one to re-point.
 *
 * Two builds of policy.h are understood:
 *  - tlbp_decide(p, start, end, stride, d) with a threshold only;
 *  - tlbp_decide(p, start, end, stride, footprint, d), where a
 *    calibrated model (tlbp_model_init() from measured costs) may decide
 *    and the footprint is the mm's resident pages (get_mm_rss(), as
 *    src/hook_x86.c passes it).  "tlbpath-model" feeds the model the
 *    simulator's own costs, as if calibration had measured exactly those:
 *    INVLPG, full flush, and a page walk as the refill.
 *
 * The controllers, one per simulated CPU, fed as the module feeds them:
 *  - "tlbpath-pmu", src/adapt.c (adapt.h's contract): the asking CPU
 *    calls tlbp_adapt_decide() above its fast value, and every CPU a
 *    flush reaches calls tlbp_adapt_executed() with its own page-walk
 *    counter (the simulator's walks) and its clock, read only when the
 *    controller asks for them;
 *  - "tlbpath-time", src/timectl.c (timectl.h's contract): every request
 *    counts down the asking CPU's epoch, which ends with its clock and
 *    its counts of pages kept and full flushes; above its fast value it
 *    decides, a remote range with the bounds of the other CPUs it
 *    reaches, each of which times the flushes it executes for others
 *    (tlbp_tc_executed(), as the module's tlb:tlb_flush probe does).
 * Their costs are the run's, as calibration would measure them: INVLPG,
 * full flush, a walk as the refill.  "tlbpath", the module's default
 * where a PMU counts walks, is one of them (SIM_TP_DEFAULT below).
 */
#include <stdlib.h>
#include <string.h>

#include "tlbsim.h"
#include "tlbpath/policy.h"
#include "tlbpath/adapt.h"
#include "tlbpath/timectl.h"

/*
 * The module's default, PMU or not: the time controller decided best in
 * this simulator (Documentation/adaptive.md, "Which default").
 */
#define SIM_TP_DEFAULT	SIM_TP_TIME

bool sim_tlbpath_kind_of(enum sim_policy_kind p, enum sim_tlbpath_kind *k)
{
	switch (p) {
	case POL_TLBPATH:
		*k = SIM_TP_DEFAULT;
		return true;
	case POL_TLBPATH_PMU:
		*k = SIM_TP_PMU;
		return true;
	case POL_TLBPATH_TIME:
		*k = SIM_TP_TIME;
		return true;
	case POL_TLBPATH_BOTH:
		*k = SIM_TP_BOTH;
		return true;
	case POL_TLBPATH_MODEL:
		*k = SIM_TP_MODEL;
		return true;
	default:
		return false;
	}
}

struct state {
	struct tlbp_policy pol;
#ifdef TLBP_FOOTPRINT_UNKNOWN
	struct tlbp_model model;
#endif
};

_Static_assert(sizeof(struct state) <= sizeof(((struct sim_tlbpath *)0)->state),
	       "sim_tlbpath.state too small for policy.c's objects");

void sim_tlbpath_init(struct sim_tlbpath *a, enum sim_tlbpath_kind kind,
		      const struct tlbp_geometry *g, const struct sim_costs *c,
		      uint32_t cap, unsigned int ncpus, uint32_t walkers)
{
	struct state *s = (struct state *)a->state;
	/*
	 * What calibration measures: its refill is a page re-read by
	 * independent loads after a full flush (calibrate_x86.c), a walk
	 * as they overlap.
	 */
	struct tlbp_costs k = {
		.invlpg = c->invlpg, .full = c->full,
		.refill = sim_miss_units(c->walk, false, walkers, c->issue) / walkers,
	};
	unsigned int i;

	memset(a, 0, sizeof(*a));
	a->kind = kind;
	a->on = true;
	a->threshold = TLBP_STOCK_CEILING < cap ? TLBP_STOCK_CEILING : cap;
	if (kind != SIM_TP_MODEL) {
		struct tlbp_adapt *cpu = kind != SIM_TP_TIME ? calloc(ncpus, sizeof(*cpu)) : NULL;
		struct tlbp_tc *tc = kind != SIM_TP_PMU ? calloc(ncpus, sizeof(*tc)) : NULL;

		a->usable = (cpu || kind == SIM_TP_TIME) && (tc || kind == SIM_TP_PMU);
		a->cpus = cpu;
		a->tcs = tc;
		a->ncpus = a->usable ? ncpus : 0;
		for (i = 0; i < a->ncpus; i++) {
			if (cpu)
				tlbp_adapt_init(&cpu[i], g, &k, TLBP_STOCK_CEILING, cap, true);
			if (tc)
				tlbp_tc_init(&tc[i], &k, TLBP_STOCK_CEILING, cap, i);
		}
		return;
	}
	s->pol.threshold = a->threshold;
	s->pol.cap = cap;
	s->pol.stock = TLBP_STOCK_CEILING;
	s->pol.enabled = true;
#ifdef TLBP_FOOTPRINT_UNKNOWN
	s->pol.model = NULL;
	if (tlbp_model_init(&s->model, g, &k, cap)) {
		s->pol.model = &s->model;
		a->usable = true;
	}
#else
	(void)k;
#endif
}

/* The policy, pointing at this copy's model (struct sim_tlbpath may be copied). */
static struct tlbp_policy policy_of(const struct sim_tlbpath *a)
{
	const struct state *s = (const struct state *)a->state;
	struct tlbp_policy p = s->pol;

#ifdef TLBP_FOOTPRINT_UNKNOWN
	if (p.model)
		p.model = &s->model;
#endif
	return p;
}

void sim_tlbpath_free(struct sim_tlbpath *a)
{
	free(a->cpus);
	free(a->tcs);
	a->cpus = NULL;
	a->tcs = NULL;
	a->ncpus = 0;
}

void sim_tlbpath_request(struct sim_tlbpath *a, unsigned int cpu, const struct tlbp_tc_clock *c)
{
	struct tlbp_tc *t;

	if (!a->on || !a->tcs || cpu >= a->ncpus)
		return;
	t = &((struct tlbp_tc *)a->tcs)[cpu];
	if (--t->left <= 0) {
		tlbp_tc_tick(t, c);
		if (getenv("TLBSIM_DEBUG"))
			fprintf(stderr, "tc cpu %u req %llu now %llu phase %u probing %u band (%u,%u] thr %u/%u r %d [%d,%d] n %u exp %u [%d,%d] credit %lld epochs %u voided %u\n",
				cpu, (unsigned long long)c->requests, (unsigned long long)c->now,
				t->phase, t->probing, t->lo, t->hi, t->thr[0], t->thr[1], t->fit.r,
				t->fit.r_lo, t->fit.r_hi, t->fit.n, t->exp.n, t->exp.r_lo, t->exp.r_hi,
				(long long)t->credit, t->stats.epochs, t->stats.voided);
	}
}

void sim_tlbpath_remote(struct sim_tlbpath *a, unsigned int cpu, unsigned long pages,
			const struct tlbp_tc_clock *c)
{
	if (a->on && a->tcs && cpu < a->ncpus)
		tlbp_tc_executed(&((struct tlbp_tc *)a->tcs)[cpu], pages, c);
}

/* The hook: the fast value first, then the controller with its peers' keep. */
static bool adapt_perpage(struct sim_tlbpath *a, const struct sim_flush_call *c)
{
	struct tlbp_adapt *cpu = a->cpus;
	unsigned long n = tlbp_entries(c->start, c->end, c->stride_shift);
	enum tlbp_adapt_reason why;
	uint32_t sum = 0, peers = 0;
	unsigned int i;

	if (n <= tlbp_adapt_fast(&cpu[c->cpu]))
		return true;
	for (i = 0; i < c->ncpus && i < a->ncpus; i++)
		if (i != c->cpu && c->reached[i]) {
			sum += tlbp_adapt_keep(&cpu[i]);
			peers++;
		}
	return tlbp_adapt_decide(&cpu[c->cpu], n, sum, peers, &why);
}

void sim_tlbpath_executed(struct sim_tlbpath *a, unsigned int cpu, unsigned long pages,
			  uint64_t walks, uint64_t now)
{
	struct tlbp_adapt *st;

	if (!a->on || !a->cpus || cpu >= a->ncpus)
		return;
	st = &((struct tlbp_adapt *)a->cpus)[cpu];
	if (tlbp_adapt_wants_count(st, pages))
		tlbp_adapt_executed(st, pages, walks, now, true);
	else
		tlbp_adapt_executed(st, pages, 0, 0, false);
}

void sim_tlbpath_stats(const struct sim_tlbpath *a, struct sim_adapt_stats *s)
{
	const struct tlbp_adapt *cpu = a->cpus;
	unsigned int i;

	memset(s, 0, sizeof(*s));
	if (a->kind == SIM_TP_TIME || a->kind == SIM_TP_BOTH) {
		const struct tlbp_tc *tc = a->tcs;
		uint32_t most = 0;

		/* The threshold: the local one of the CPU that measured most. */
		for (i = 0; i < a->ncpus; i++) {
			s->windows += tc[i].stats.samples;
			if (!i || tc[i].stats.epochs > most) {
				most = tc[i].stats.epochs;
				s->keep_max = tc[i].thr[0];
			}
			s->fallback += tc[i].why != TLBP_TC_OK;
		}
		return;
	}
	if (a->kind != SIM_TP_PMU)
		return;
	for (i = 0; i < a->ncpus; i++) {
		s->explore_widen += cpu[i].stats.explore_widen;
		s->explore_keep += cpu[i].stats.explore_keep;
		s->windows += cpu[i].stats.windows;
		if (tlbp_adapt_keep(&cpu[i]) > s->keep_max)
			s->keep_max = tlbp_adapt_keep(&cpu[i]);
		s->fallback += tlbp_adapt_mode(&cpu[i]) != TLBP_ADAPT_ON;
	}
}

bool sim_tlbpath_perpage(struct sim_tlbpath *a, const struct sim_flush_call *c)
{
	unsigned long n = tlbp_entries(c->start, c->end, c->stride_shift);
	struct tlbp_policy p;
	struct tlbp_decision d;

	if (a->kind == SIM_TP_PMU || (a->kind == SIM_TP_BOTH && c->nr_cpus > 1))
		return adapt_perpage(a, c);
	if (a->kind == SIM_TP_TIME || a->kind == SIM_TP_BOTH) {
		struct tlbp_tc *t = &((struct tlbp_tc *)a->tcs)[c->cpu];

		struct tlbp_tc_peers peers = { 0 };
		enum tlbp_tc_reason why;
		unsigned int i;

		if (n <= tlbp_tc_fast(t))
			return true;
		for (i = 0; i < c->ncpus && i < a->ncpus; i++)
			if (i != c->cpu && c->reached[i])
				tlbp_tc_peer_add(&peers, &((struct tlbp_tc *)a->tcs)[i]);
		return tlbp_tc_decide(t, n, c->nr_cpus > 1 ? &peers : NULL, c->clock, &why);
	}
	p = policy_of(a);

#ifdef TLBP_FOOTPRINT_UNKNOWN
	tlbp_decide(&p, c->start, c->end, c->stride_shift,
		    c->rss ? (unsigned long)c->rss : TLBP_FOOTPRINT_UNKNOWN, &d);
#else
	tlbp_decide(&p, c->start, c->end, c->stride_shift, &d);
#endif
	return d.verdict == TLBP_PERPAGE;
}

uint32_t sim_tlbpath_ceiling(const struct sim_tlbpath *a)
{
	struct tlbp_policy p;

	if (a->kind == SIM_TP_TIME) {
		const struct tlbp_tc *cpu = a->tcs;
		uint32_t max = 0;
		unsigned int i;

		for (i = 0; i < a->ncpus; i++)
			if (tlbp_tc_ceiling(&cpu[i]) > max)
				max = tlbp_tc_ceiling(&cpu[i]);
		return max;
	}
	if (a->kind == SIM_TP_PMU || a->kind == SIM_TP_BOTH) {
		const struct tlbp_adapt *cpu = a->cpus;
		uint32_t max = 0;
		unsigned int i;

		for (i = 0; i < a->ncpus; i++)
			if (tlbp_adapt_ceiling(&cpu[i]) > max)
				max = tlbp_adapt_ceiling(&cpu[i]);
		return max;
	}
	p = policy_of(a);
	return tlbp_policy_ceiling(&p);
}
