// SPDX-License-Identifier: GPL-2.0
/*
 * The adaptive flush controller (include/tlbpath/adapt.h).  Pure C, no
 * kernel headers, integer only, O(1) per call, per-CPU state with one
 * writer.  Why it is built this way: Documentation/adaptive.md.
 *
 * A full flush costs full + R * refill, where R is the refills it
 * causes that a per-page flush would not: the walks counted on the CPU
 * from the flush until the working set is back (at most reach walks
 * later, or the next full flush, which would empty the TLB anyway), less
 * the walks a warm TLB takes in as long.  Keeping N entries costs
 * N * invlpg, so the break-even is N = (full + R * refill) / invlpg.
 */
#include "tlbpath/adapt.h"
#include "tlbpath/ratio.h"

#define EXPLORE_SHIFT	5	/* explorations spend 1/32 of the flush cost */
#define WALK_SHIFT	6	/* and 1/64 of the walks' */
#define WARM_KEEP	16	/* warm intervals before their sums halve */
#define WARM_STALE	8	/* windows without a warm interval: use the late ones */
#define KEEP_RUN	4	/* a kept exploration keeps this many ranges */
#define QUIET		16	/* widen to explore only after this many flushes without a window */
#define ZERO_LIMIT	32	/* readings after full flushes with no walk */
#define RATE_SHIFT	16	/* warm walk rate, per clock unit, x 2^16 */

/* The break-even entries for r (x16) refills per full flush. */
static u32 break_even(const struct tlbp_adapt *a, u32 r)
{
	u64 cost = a->full + (((u64)r * a->refill) >> TLBP_ADAPT_R_SHIFT);

	return tlbp_min_u32(tlbp_ratio(cost, a->invlpg), a->limit);
}

/* What a full flush costs by the estimate @r (x16). */
static s64 full_cost(const struct tlbp_adapt *a, u32 r)
{
	return a->full + (s64)(((u64)r * a->refill) >> TLBP_ADAPT_R_SHIFT);
}

/* The largest range kept to measure: ranges beyond stay stock-widened. */
static u32 explore_max(const struct tlbp_adapt *a)
{
	return tlbp_min_u32(tlbp_min_u32(a->limit, a->cap),
		       tlbp_max_u32(2 * a->keep, 2 * a->stock));
}

/* One worst-case widening, or one run of kept explorations. */
static s64 credit_max(const struct tlbp_adapt *a)
{
	s64 run = KEEP_RUN * (s64)explore_max(a) * a->invlpg;
	s64 widen = full_cost(a, a->reach << TLBP_ADAPT_R_SHIFT);

	return run > widen ? run : widen;
}

/*
 * The estimate a widening is charged at: until measured, the most a full
 * flush can cost (every translation the TLBs hold, refilled).
 */
static u32 r_charged(const struct tlbp_adapt *a)
{
	return a->samples && a->mode == TLBP_ADAPT_ON ? a->r_hi : a->reach << TLBP_ADAPT_R_SHIFT;
}

/*
 * Below the stock ceiling it widens only where even the decaying maximum
 * of the measurements says so; above it, it keeps more than stock only
 * once a warm TLB has been measured to subtract (else every walk after a
 * flush would look like its refill).
 */
static void publish(struct tlbp_adapt *a)
{
	u32 k, xmax;

	if (a->mode != TLBP_ADAPT_ON) {
		/*
		 * A counter that stopped: no walk after full flushes, so a
		 * full flush costs this CPU only itself; the CPUs a flush
		 * reaches may still decide (decide()), alone it is stock.
		 */
		a->keep = a->why == TLBP_ADAPT_ZERO ? break_even(a, 0) : a->stock;
		a->fast = a->why == TLBP_ADAPT_ZERO ? 0 : a->stock;
		a->ceiling = a->stock;
		return;
	}
	k = break_even(a, a->r);
	if (!a->samples)
		k = a->stock;
	else if (k >= a->stock)
		k = a->warm_n[0] || a->warm_n[1] ? k : a->stock;
	else
		k = tlbp_min_u32(break_even(a, a->r_hi), a->stock);
	a->keep = tlbp_min_u32(k, a->cap);
	/* Whatever the other CPUs say, keeping up to stock never loses to it. */
	a->fast = tlbp_min_u32(a->keep, a->stock);
	/* Full flushes measure themselves: explore only where there are none. */
	if (a->quiet >= QUIET && a->credit >= full_cost(a, r_charged(a)))
		a->fast = 0;	/* a widening may be explored: ask decide() */
	a->ceiling = a->keep;
	xmax = explore_max(a);
	/*
	 * One kept range lengthens a window by one interval only: a kept
	 * exploration keeps a run of them, armed when the budget pays for all.
	 */
	if (xmax > a->keep &&
	    (a->keep_run || a->credit >= KEEP_RUN * ((s64)xmax * a->invlpg - a->full)))
		a->ceiling = xmax;
}

void tlbp_adapt_init(struct tlbp_adapt *a, const struct tlbp_geometry *g,
		     const struct tlbp_costs *c, u32 stock, u32 cap,
		     bool counter)
{
	u32 reach = 0;
	int sz;

	*a = (struct tlbp_adapt){ 0 };
	a->stock = tlbp_min_u32(stock, cap);
	a->cap = cap;
	a->mode = TLBP_ADAPT_FALLBACK;
	a->why = TLBP_ADAPT_NO_COUNTER;
	for (sz = 0; sz < TLBP_NR_SIZES; sz++)
		reach += g->l1d[sz] + g->l2[sz];
	/* No geometry (a VM): the timing probe's reach, else a big STLB's. */
	if (!reach)
		reach = c->reach ? c->reach : 4096;
	a->reach = reach;
	a->invlpg = c->invlpg;
	a->full = c->full;
	a->refill = c->refill;
	if (!c->invlpg || !c->full || !c->refill) {
		a->why = TLBP_ADAPT_NO_COSTS;
	} else if (counter) {
		a->mode = TLBP_ADAPT_ON;
		a->why = TLBP_ADAPT_OK;
		u64 cost = (u64)c->full + (u64)reach * c->refill;

		a->limit = tlbp_min_u32(tlbp_ratio(cost, c->invlpg), cap);
	}
	publish(a);
}

/* Which warm sums stand for a warm TLB: [1] when [0] is none or stale. */
static int warm_src(const struct tlbp_adapt *a)
{
	if (!a->warm_n[1])
		return 0;
	return a->warm_n[0] && a->warm_age < WARM_STALE ? 0 : 1;
}

static void warm_add(struct tlbp_adapt *a, int i, u64 w, u64 t)
{
	a->warm_w[i] += w;
	a->warm_t[i] += t;
	if (++a->warm_n[i] >= WARM_KEEP) {
		a->warm_w[i] >>= 1;
		a->warm_t[i] >>= 1;
		a->warm_n[i] >>= 1;
	}
}

static void close_window(struct tlbp_adapt *a, u64 walks, u64 now)
{
	u64 w = walks - a->win_w, t = now - a->win_t, base = 0;
	int i = warm_src(a);
	u32 sample;

	if (a->warm_t[i]) {
		u64 rate = tlbp_ratio(a->warm_w[i] << RATE_SHIFT, a->warm_t[i]);

		if (t >> 32)
			base = w;
		else
			base = (rate * t) >> RATE_SHIFT;
	}
	/*
	 * Fewer walks than a warm TLB takes in: the warm rate is stale (the
	 * workload changed while every flush was full): start it again here.
	 */
	if (w < base) {
		a->warm_w[i] = w;
		a->warm_t[i] = t;
		a->warm_n[i] = 1;
	}
	w = w > base ? w - base : 0;
	sample = (u32)(w < a->reach ? w : a->reach) << TLBP_ADAPT_R_SHIFT;
	if (!a->samples) {
		a->r = sample;
		a->r_hi = sample;
	} else {
		a->r = a->r - (a->r >> 2) + (sample >> 2);
		a->r_hi = tlbp_max_u32(sample, a->r_hi - (a->r_hi >> 2));
	}
	if (a->samples < 255)
		a->samples++;
	if (a->warm_age < WARM_STALE)
		a->warm_age++;
	a->stats.windows++;
	a->win_open = 0;
	a->quiet = 0;
}

static void reading(struct tlbp_adapt *a, bool full, u64 walks, u64 now)
{
	u64 dw = walks - a->last_w;

	/* Walks are a cost of flushing too: the budget grows with them. */
	a->credit += (s64)((dw < a->reach ? dw : a->reach) * a->refill) >> WALK_SHIFT;

	/* A CPU that just lost its TLB walks, unless the counter is dead. */
	if (dw) {
		a->zero_run = 0;
		if (a->why == TLBP_ADAPT_ZERO) {
			a->mode = TLBP_ADAPT_ON;
			a->why = TLBP_ADAPT_OK;
		}
	} else if (a->win_open && ++a->zero_run >= ZERO_LIMIT) {
		a->mode = TLBP_ADAPT_FALLBACK;
		a->why = TLBP_ADAPT_ZERO;
	}
	/*
	 * The walks a warm TLB takes in: between readings outside a window;
	 * and, for when windows never end (a full flush every interval),
	 * late in windows: every interval but the first after a full flush
	 * (refills still arriving there only make the estimate smaller).
	 */
	if (a->last_t && !a->win_open) {
		warm_add(a, 0, dw, now - a->last_t);
		a->warm_age = 0;
	} else if (a->last_t && !a->last_full) {
		warm_add(a, 1, dw, now - a->last_t);
	}
	if (a->win_open && (full || walks - a->win_w >= a->reach))
		close_window(a, walks, now);
	if (full) {
		a->win_open = 1;
		a->win_w = walks;
		a->win_t = now;
	}
	a->last_w = walks;
	a->last_t = now ? now : 1;
	a->last_full = full;
}

void tlbp_adapt_executed(struct tlbp_adapt *a, unsigned long pages,
			 u64 walks, u64 now, bool counted)
{
	bool full = pages == TLBP_FLUSH_ALL;

	if (a->why == TLBP_ADAPT_NO_COUNTER || a->why == TLBP_ADAPT_NO_COSTS)
		return;
	a->events++;
	if (a->quiet < QUIET)
		a->quiet++;
	/*
	 * The budget grows with what flushing surely costs this CPU: the
	 * flushes, and the walks counted (reading()).
	 */
	if (full)
		a->credit += a->full >> EXPLORE_SHIFT;
	else
		a->credit += ((s64)tlbp_min_u32(pages, a->cap) * a->invlpg) >> EXPLORE_SHIFT;
	if (counted)
		reading(a, full, walks, now);
	if (a->credit > credit_max(a))
		a->credit = credit_max(a);
	publish(a);
}

bool tlbp_adapt_decide(struct tlbp_adapt *a, unsigned long entries,
		       u32 peer_sum, u32 peers, enum tlbp_adapt_reason *reason)
{
	s64 cost;
	bool keep;

	a->stats.decisions++;
	if (entries > a->cap) {
		*reason = TLBP_AR_CAP;
		return false;
	}
	if (a->mode != TLBP_ADAPT_ON && (a->why != TLBP_ADAPT_ZERO || !peers)) {
		*reason = TLBP_AR_FALLBACK;
		return entries <= a->stock;
	}
	*reason = TLBP_AR_MEASURED;
	/*
	 * Every CPU reached pays entries * invlpg, or full plus its own
	 * refills: keep when entries is at most the mean break-even.
	 */
	keep = (u64)entries * (peers + 1) <= (u64)a->keep + peer_sum;
	if (keep) {
		cost = full_cost(a, r_charged(a)) - (s64)entries * a->invlpg;
		if (cost < a->full)
			cost = a->full;
		if (a->quiet < QUIET || a->credit < cost)
			return true;
		a->stats.explore_widen++;
	} else {
		if (entries > a->ceiling)
			return false;
		/* Charged as if the full flush cost no refill: a bound. */
		cost = (s64)entries * a->invlpg - a->full;
		if (cost < a->full)
			cost = a->full;
		if (!a->keep_run && a->credit < KEEP_RUN * cost)
			return false;
		a->keep_run = a->keep_run ? a->keep_run - 1 : KEEP_RUN - 1;
		a->stats.explore_keep++;
	}
	a->credit -= cost;
	*reason = TLBP_AR_EXPLORE;
	publish(a);
	return !keep;
}

const char *tlbp_adapt_why_name(enum tlbp_adapt_why why)
{
	switch (why) {
	case TLBP_ADAPT_OK:
		return "adaptive";
	case TLBP_ADAPT_NO_COUNTER:
		return "no-counter";
	case TLBP_ADAPT_NO_COSTS:
		return "no-costs";
	case TLBP_ADAPT_ZERO:
		return "counter-zero";
	}
	return "?";
}
