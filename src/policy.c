// SPDX-License-Identifier: GPL-2.0
/*
 * The per-call flush decision.  Pure C, no kernel headers; runs in the
 * ftrace callback, so: no locks, no divisions, no loops.
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

/*
 * A range of N entries is invalidated one by one when N is at most the
 * limit, and by one full flush otherwise.  N is counted the way the kernel
 * counts it against tlb_single_page_flush_ceiling, (end - start) >> stride,
 * so that the kernel's own check, with the ceiling we keep in step, never
 * contradicts a decision made here.  A range that wraps (end < start)
 * counts as huge and is widened, which never narrows a flush.
 */
void tlbp_decide(const struct tlbp_policy *p, unsigned long start,
		 unsigned long end, unsigned int stride_shift,
		 struct tlbp_decision *d)
{
	unsigned long n;
	u32 limit;

	d->invalidations = 0;
	d->entries = 0;
	if (end == TLBP_FLUSH_ALL) {
		d->verdict = TLBP_CALLER_FULL;
		d->reason = TLBP_WHY_CALLER;
		d->stock_full = true;
		return;
	}

	n = (end - start) >> stride_shift;
	limit = limit_of(p, &d->reason);
	d->entries = n;
	d->stock_full = n > p->stock;
	if (n > limit) {
		d->verdict = TLBP_WIDEN;
		return;
	}

	d->verdict = TLBP_PERPAGE;
	/* The kernel's loop runs for addr = start; addr < end; addr += stride. */
	d->invalidations = (end - start + (1UL << stride_shift) - 1) >> stride_shift;
}

u32 tlbp_policy_ceiling(const struct tlbp_policy *p)
{
	enum tlbp_reason why;

	return limit_of(p, &why);
}

/*
 * Default threshold from the geometry:
 *
 *	threshold = l1d_4k / 2 + 1, clamped to [1, cap]
 *
 * Mainline has used 33 since 2014.  The Intel cores of that time
 * (Nehalem through Skylake) have a 64-entry 4K first-level data TLB, and
 * 64 / 2 + 1 = 33: the formula gives the stock value there and scales it
 * with the size of the structure a full flush empties first.  It is a
 * starting point, not a measurement; bench/ is where it gets judged.
 * It falls back to the stock 33 when the CPU reports no first-level data
 * TLB, which includes a hypervisor's numbers that describe no hardware
 * (the parser drops those; QEMU reports a 255-entry L1 whatever the host
 * has).  A hypervisor that passes the host's leaves through gets them used.
 */
u32 tlbp_default_threshold(const struct tlbp_geometry *g, u32 cap)
{
	u32 t = TLBP_STOCK_CEILING;

	if (g->l1d[TLBP_4K])
		t = (g->l1d[TLBP_4K] >> 1) + 1;
	if (t > cap)
		t = cap;
	return t ? t : 1;
}
