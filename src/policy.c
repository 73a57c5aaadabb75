// SPDX-License-Identifier: GPL-2.0
/*
 * The per-call flush decision.  Pure C, no kernel headers; tlbp_decide()
 * runs in the ftrace callback, so: no locks, no divisions, no loops.
 */
#include "tlbpath/policy.h"

static u32 limit_of(const struct tlbp_policy *p, enum tlbp_reason *why)
{
	if (!p->enabled) {
		*why = TLBP_WHY_DISABLED;
		return p->stock;
	}
	if (p->threshold > p->cap) {
		*why = TLBP_WHY_CAP;
		return p->cap;
	}
	*why = TLBP_WHY_THRESHOLD;
	return p->threshold;
}

static enum tlbp_page_size size_of(unsigned int stride_shift)
{
	if (stride_shift >= 30)
		return TLBP_1G;
	if (stride_shift >= 21)
		return TLBP_2M;
	return TLBP_4K;
}

/*
 * The break-even model.  Invalidating N entries one by one costs
 *
 *	per-page = N * invlpg
 *
 * and each of those N translations is refilled on its next use whichever
 * way it was dropped.  A full flush costs
 *
 *	full-flush = full + (H - N) * refill
 *
 * where H is the number of live translations it throws away: the address
 * space's resident pages counted in units of the stride (a 2M-stride call
 * unmaps 2M pages, and lives in the 2M TLB), but never more than the TLB
 * holds for that page size (reach).  Keeping the range wins when
 *
 *	N * (invlpg + refill) <= full + H * refill
 *
 * which needs two multiplications and no division.  H is an upper bound
 * (not every resident page is in the TLB, nor used again), so the model
 * errs towards keeping; it is only consulted above the stock ceiling,
 * so it can keep more than the stock kernel but never fewer.
 */
static bool model_keeps(const struct tlbp_model *m, unsigned long n,
			unsigned int stride_shift, unsigned long footprint)
{
	enum tlbp_page_size sz = size_of(stride_shift);
	unsigned long h = footprint;

	if (stride_shift > 12)
		h >>= stride_shift - 12;
	if (h > m->reach[sz])
		h = m->reach[sz];
	if (n > m->limit[sz])
		return false;
	return (u64)n * m->keep <= (u64)m->full + (u64)h * m->refill;
}

/*
 * A range of N entries is invalidated one by one when N is at most the
 * limit, and by one full flush otherwise.  N is counted the way the kernel
 * counts it against tlb_single_page_flush_ceiling (tlbp_entries()), so
 * that the kernel's own check, with the ceiling we keep in step, never
 * contradicts a decision made here.  A range that wraps (end < start)
 * counts as huge and is widened, which never narrows a flush.
 */
void tlbp_decide(const struct tlbp_policy *p, unsigned long start,
		 unsigned long end, unsigned int stride_shift,
		 unsigned long footprint, struct tlbp_decision *d)
{
	enum tlbp_reason why = TLBP_WHY_CALLER;
	unsigned long n = tlbp_entries(start, end, stride_shift);
	bool keep = false;

	if (end == TLBP_FLUSH_ALL) {
		;
	} else if (!p->enabled || !p->model) {
		keep = n <= limit_of(p, &why);
	} else if (n > p->cap) {
		why = TLBP_WHY_CAP;
	} else if (n <= p->stock) {
		why = TLBP_WHY_STOCK;
		keep = true;
	} else {
		why = TLBP_WHY_MODEL;
		keep = model_keeps(p->model, n, stride_shift, footprint);
	}
	tlbp_decision_fill(p, start, end, stride_shift, keep, why, d);
}

/*
 * The decision record for a range that is kept (@keep) or widened for
 * @why, as tlbp_decide() fills it; TLBP_FLUSH_ALL stays the caller's.
 */
void tlbp_decision_fill(const struct tlbp_policy *p, unsigned long start,
			unsigned long end, unsigned int stride_shift, bool keep,
			enum tlbp_reason why, struct tlbp_decision *d)
{
	d->invalidations = 0;
	d->entries = 0;
	d->reason = why;
	if (end == TLBP_FLUSH_ALL) {
		d->verdict = TLBP_CALLER_FULL;
		d->reason = TLBP_WHY_CALLER;
		d->stock_full = true;
		return;
	}
	d->entries = tlbp_entries(start, end, stride_shift);
	/* The kernel's own count: stock keeps a range under its stride. */
	d->stock_full = (end - start) >> stride_shift > p->stock;
	if (!keep) {
		d->verdict = TLBP_WIDEN;
		return;
	}
	d->verdict = TLBP_PERPAGE;
	/* The kernel's loop runs for addr = start; addr < end; addr += stride. */
	d->invalidations = (end - start + (1UL << stride_shift) - 1) >> stride_shift;
}

/* The most entries @p can keep in one call: the kernel's ceiling must allow it. */
u32 tlbp_policy_ceiling(const struct tlbp_policy *p)
{
	enum tlbp_reason why;
	u32 max;
	int sz;

	if (!p->enabled || !p->model)
		return limit_of(p, &why);
	max = p->stock;
	for (sz = 0; sz < TLBP_NR_SIZES; sz++)
		if (p->model->limit[sz] > max)
			max = p->model->limit[sz];
	return max < p->cap ? max : p->cap;
}

/*
 * The most entries @p keeps per-page exactly as the stock kernel does,
 * whatever else it knows: the hook counts such a call and leaves it, with
 * nothing else to weigh.
 */
u32 tlbp_policy_fast_keep(const struct tlbp_policy *p)
{
	enum tlbp_reason why;
	u32 limit;

	if (p->enabled && p->model)
		limit = p->cap;
	else
		limit = limit_of(p, &why);
	return limit < p->stock ? limit : p->stock;
}

/*
 * Where the CPU reports its TLBs, a full flush can empty its data TLBs
 * of each page size (first level and second); where it does not (a VM),
 * the timing probe's reach stands for every size.
 */
bool tlbp_model_init(struct tlbp_model *m, const struct tlbp_geometry *g,
		     const struct tlbp_costs *c, u32 cap)
{
	int sz;

	if (!c->invlpg || !c->full)
		return false;
	m->keep = c->invlpg + c->refill;
	m->full = c->full;
	m->refill = c->refill;
	for (sz = 0; sz < TLBP_NR_SIZES; sz++) {
		u64 limit;

		if (g->source != TLBP_SRC_NONE)
			m->reach[sz] = g->l1d[sz] + g->l2[sz];
		else
			m->reach[sz] = c->reach;
		/* The footprint that fills the TLB gives the largest limit. */
		limit = ((u64)m->full + (u64)m->reach[sz] * m->refill) / m->keep;
		m->limit[sz] = limit < cap ? (u32)limit : cap;
	}
	return true;
}
