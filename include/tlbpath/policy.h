/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The flush decision, as a pure function of (geometry, tunables, request).
 * No kernel headers: the same code runs in the module and in the tests.
 */
#ifndef _TLBPATH_POLICY_H
#define _TLBPATH_POLICY_H

#include "types.h"
#include "geometry.h"

/* The kernel's TLB_FLUSH_ALL (-1UL on x86). */
#define TLBP_FLUSH_ALL		(~0UL)

/* Mainline's tlb_single_page_flush_ceiling since 2014. */
#define TLBP_STOCK_CEILING	33

/* Hard limit on per-page invalidations in one call, and its default. */
#define TLBP_CAP_DEFAULT	512
#define TLBP_CAP_LIMIT		4096

/*
 * Costs measured at load (calibrate_x86.c), in TSC cycles; 0: not measured.
 */
struct tlbp_costs {
	u32 invlpg;	/* invalidating one present entry */
	u32 full;	/* one full local flush */
	u32 refill;	/* refilling one translation after a flush */
	u32 reach;	/* pages the TLB held in a timing probe; 0: not probed */
};

/*
 * The break-even model of one CPU, precomputed from its geometry and the
 * calibrated costs (tlbp_model_init()) so that deciding only multiplies.
 */
struct tlbp_model {
	u32 keep;			/* per kept entry: invlpg + refill */
	u32 full;			/* one full flush */
	u32 refill;			/* one translation lost to a full flush */
	u32 reach[TLBP_NR_SIZES];	/* translations a full flush can empty */
	u32 limit[TLBP_NR_SIZES];	/* most entries kept, footprint unbounded */
};

struct tlbp_policy {
	u32 threshold;	/* most entries still invalidated one by one */
	u32 cap;	/* threshold never exceeds this */
	u32 stock;	/* the kernel's own ceiling, as found at load */
	bool enabled;	/* false: decide exactly as the stock kernel does */
	/*
	 * Non-NULL: the calibrated model decides (threshold unused); ranges
	 * of up to stock entries are always kept, as the stock kernel does.
	 * Opt-in (sysfs model): see tlbp_model_init() for why.
	 */
	const struct tlbp_model *model;
};

/* The footprint of a flush whose address space is not known (kernel). */
#define TLBP_FOOTPRINT_UNKNOWN	(~0UL)

enum tlbp_verdict {
	TLBP_PERPAGE,		/* keep the caller's range */
	TLBP_WIDEN,		/* turn the range into a full flush */
	TLBP_CALLER_FULL,	/* the caller asked for a full flush */
};

/* Why: what set the limit a range was judged against. */
enum tlbp_reason {
	TLBP_WHY_THRESHOLD,	/* the threshold (admin's or per-CPU default) */
	TLBP_WHY_CAP,		/* the cap, below the threshold */
	TLBP_WHY_CALLER,	/* the caller asked for a full flush */
	TLBP_WHY_DISABLED,	/* enabled=0: the stock ceiling */
	TLBP_WHY_STOCK,		/* model, or time still learning: the stock ceiling */
	TLBP_WHY_MODEL,		/* model: the break-even of the costs */
	TLBP_WHY_MEASURED,	/* adaptive: the break-even of the measured refills */
	TLBP_WHY_EXPLORE,	/* adaptive: the other way, to measure it */
	TLBP_WHY_TIMED,		/* time: the thresholds of the refills measured as time */
	TLBP_WHY_PROBE,		/* time: an experiment's probe */
};

struct tlbp_decision {
	enum tlbp_verdict verdict;
	enum tlbp_reason reason;
	bool stock_full;	/* the stock kernel would flush everything */
	unsigned long entries;	/* tlbp_entries(); 0 if full */
	/* Invalidations the per-page path performs (0 unless TLBP_PERPAGE). */
	unsigned long invalidations;
};

/*
 * The entries of [@start, @end) at @stride_shift that a threshold bounds:
 * as the kernel counts them against its ceiling, (end - start) >> stride,
 * but one for a range smaller than its stride (a page table freed under
 * a 2M stride), which still flushes an entry one by one: threshold 0
 * widens it too.  A range that wraps counts as huge.
 */
static inline unsigned long tlbp_entries(unsigned long start, unsigned long end,
					 unsigned int stride_shift)
{
	unsigned long n = (end - start) >> stride_shift;

	return n ? n : end != start;
}

/* @footprint: resident pages of the address space, or TLBP_FOOTPRINT_UNKNOWN. */
void tlbp_decide(const struct tlbp_policy *p, unsigned long start,
		 unsigned long end, unsigned int stride_shift,
		 unsigned long footprint, struct tlbp_decision *d);

/* The record of a range kept (@keep) or widened for @why, as tlbp_decide() fills it. */
void tlbp_decision_fill(const struct tlbp_policy *p, unsigned long start,
			unsigned long end, unsigned int stride_shift, bool keep,
			enum tlbp_reason why, struct tlbp_decision *d);

/* The per-page count the kernel's own ceiling must allow for @p. */
u32 tlbp_policy_ceiling(const struct tlbp_policy *p);

/* The most entries @p keeps as the stock kernel does, with nothing to weigh. */
u32 tlbp_policy_fast_keep(const struct tlbp_policy *p);

/* False (and @m unusable) when @c holds no usable measurement. */
bool tlbp_model_init(struct tlbp_model *m, const struct tlbp_geometry *g,
		     const struct tlbp_costs *c, u32 cap);

#endif /* _TLBPATH_POLICY_H */
