/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The adaptive flush controller: per CPU, it learns from the CPU's own
 * page-walk counter what a full flush costs in refills afterwards, and
 * keeps a range per page when the measured costs say that is cheaper.
 * Pure C, no kernel headers: the module, the unit tests and tlbsim feed
 * it identically.  Design and parameters: Documentation/adaptive.md.
 *
 * Contract (every input is an argument; nothing is read behind it):
 *
 *  - tlbp_adapt_init() once per CPU, before any other call on it, from
 *    slow-path code (it divides).  @counter false: no usable counter on
 *    that CPU, which then decides as stock for good (TLBP_ADAPT_NO_COUNTER).
 *
 *  - On the CPU that asks for a ranged flush (the hook), with
 *    interrupts or preemption off: if entries <= tlbp_adapt_fast(), keep
 *    the range, nothing else to do; otherwise call tlbp_adapt_decide().
 *    The hook reads no counter.  TLB_FLUSH_ALL is never passed here: the
 *    caller's full flush stays full.
 *
 *  - On every CPU that executes a flush, local or remote (the
 *    tlb:tlb_flush tracepoint; also flushes tlbpath did not decide, such
 *    as a context switch's), after it: tlbp_adapt_executed() with the
 *    pages invalidated one by one, or TLBP_FLUSH_ALL.  Read the CPU's
 *    page-walk counter and the clock only when
 *    tlbp_adapt_wants_count() says so; otherwise pass 0 and false.
 *
 *  - The kernel's ceiling: tlbp_adapt_ceiling() is the most entries
 *    a decision on that CPU may keep until its next call; keep the
 *    kernel's ceiling at the maximum of it over the CPUs (it equals the
 *    stock ceiling unless measurements showed that keeping more pays).
 *
 *  - sysfs: tlbp_adapt_mode(), ->why, and the counters in ->stats.
 *
 * The clock is any monotonic count (ns, cycles; tlbsim: accesses): only
 * ratios of its differences are used.  The counter is the CPU's cumulative
 * count of page walks (e.g. dTLB load misses causing a walk).
 */
#ifndef _TLBPATH_ADAPT_H
#define _TLBPATH_ADAPT_H

#include "types.h"
#include "geometry.h"
#include "policy.h"

enum tlbp_adapt_mode {
	TLBP_ADAPT_ON,		/* the measured costs decide */
	TLBP_ADAPT_FALLBACK,	/* decides as the stock kernel: see why */
};

enum tlbp_adapt_why {
	TLBP_ADAPT_OK,		/* adaptive */
	TLBP_ADAPT_NO_COUNTER,	/* no page-walk counter on this CPU */
	TLBP_ADAPT_NO_COSTS,	/* calibration measured nothing usable */
	TLBP_ADAPT_ZERO,	/* the counter stopped moving */
};

/* Why a range was kept or widened (tlbp_adapt_decide()). */
enum tlbp_adapt_reason {
	TLBP_AR_FALLBACK,	/* stock rule: the CPU is in fallback */
	TLBP_AR_MEASURED,	/* the break-even of the measured costs */
	TLBP_AR_EXPLORE,	/* the other branch, to measure it */
	TLBP_AR_CAP,		/* above the cap: widened */
};

struct tlbp_adapt_stats {
	u32 windows;		/* refill measurements completed */
	u32 explore_widen;	/* ranges it would keep, widened to measure */
	u32 explore_keep;	/* ranges it would widen, kept to measure */
	u32 decisions;		/* tlbp_adapt_decide() calls */
};

/* Per-CPU state: touched only by its own CPU (one writer). */
struct tlbp_adapt {
	/* Read by the hook and the module. */
	u32 fast;		/* keep up to this many entries, no call */
	u32 ceiling;		/* the most a decision may keep now */
	u8 mode;		/* enum tlbp_adapt_mode */
	u8 why;			/* enum tlbp_adapt_why */
	u8 win_open;		/* a full flush's refills are being counted */
	u8 samples;		/* windows measured, saturating */
	u8 last_full;		/* the last reading was at a full flush */
	u8 keep_run;		/* ranges still to keep in a kept exploration */
	u8 quiet;		/* flushes since a window ended, saturating */
	/* Fixed at init. */
	u32 invlpg, full, refill;	/* costs, in the clock of calibration */
	u32 reach;		/* translations one full flush can empty */
	u32 limit;		/* the break-even with reach refills */
	u32 stock, cap;
	/* Learnt. */
	u32 keep;		/* break-even entries from the estimate */
	u32 r;			/* refills per full flush, x16, average */
	u32 r_hi;		/* the same, a slowly decaying maximum */
	u32 zero_run;		/* readings in a row the counter stood still */
	s64 credit;		/* exploration budget, cycles */
	u64 win_w, win_t;	/* counter and clock at the window's flush */
	u64 last_w, last_t;	/* the last reading */
	/*
	 * Walks and time with a warm TLB: [0] outside any window, [1] late
	 * in windows (for when windows never end), with their interval counts.
	 */
	u64 warm_w[2], warm_t[2];
	u32 warm_n[2];
	u32 warm_age;		/* windows since [0] last grew */
	u32 events;
	struct tlbp_adapt_stats stats;
};

void tlbp_adapt_init(struct tlbp_adapt *a, const struct tlbp_geometry *g,
		     const struct tlbp_costs *c, u32 stock, u32 cap,
		     bool counter);

/*
 * The verdict for a range of @entries ((end - start) >> stride_shift)
 * asked on this CPU, above tlbp_adapt_fast().  @peers: the other CPUs the
 * flush reaches (mm_cpumask less this one), @peer_sum the sum of their
 * tlbp_adapt_keep(): their refills count too.  True: keep it.
 */
bool tlbp_adapt_decide(struct tlbp_adapt *a, unsigned long entries,
		       u32 peer_sum, u32 peers, enum tlbp_adapt_reason *reason);

/* @pages: invalidated one by one, or TLBP_FLUSH_ALL. */
void tlbp_adapt_executed(struct tlbp_adapt *a, unsigned long pages,
			 u64 walks, u64 now, bool counted);

/* The counter and clock are needed (see the contract above). */
static inline bool tlbp_adapt_wants_count(const struct tlbp_adapt *a,
					  unsigned long pages)
{
	return a->why != TLBP_ADAPT_NO_COUNTER &&
	       a->why != TLBP_ADAPT_NO_COSTS &&
	       (pages == TLBP_FLUSH_ALL || a->win_open || !(a->events & 7));
}

/* Refills a full flush was measured to cost: r and r_hi hold them x 16. */
#define TLBP_ADAPT_R_SHIFT	4

static inline u32 tlbp_adapt_refills(const struct tlbp_adapt *a)
{
	return a->r >> TLBP_ADAPT_R_SHIFT;
}

static inline u32 tlbp_adapt_fast(const struct tlbp_adapt *a)
{
	return a->fast;
}

static inline u32 tlbp_adapt_ceiling(const struct tlbp_adapt *a)
{
	return a->ceiling;
}

/*
 * This CPU's break-even (for a peer's @peer_sum): measured; with no walk
 * after full flushes, the full flush's own cost; else the stock ceiling.
 */
static inline u32 tlbp_adapt_keep(const struct tlbp_adapt *a)
{
	return a->keep;
}

static inline enum tlbp_adapt_mode tlbp_adapt_mode(const struct tlbp_adapt *a)
{
	return a->mode;
}

const char *tlbp_adapt_why_name(enum tlbp_adapt_why why);

#endif /* _TLBPATH_ADAPT_H */
