// SPDX-License-Identifier: GPL-2.0
/*
 * What a TLBI operation and a full flush cost on arm64, measured at load
 * for the time controller (timed.c), in local_clock() nanoseconds, the
 * clock it reads.  The kernel's own inline flush_tlb_kernel_range() runs
 * the TLBI loop the user ranges' flushes run (one broadcast operation per
 * page, on addresses nothing maps: invalidating them changes nothing) and
 * flush_tlb_all() the full flush; each is timed over many, the fastest of
 * a few rounds kept.
 */
#include <linux/kernel.h>
#include <linux/sched/clock.h>
#include <linux/vmalloc.h>
#include <asm/tlbflush.h>
#include "cpu_arm64.h"

#define CAL_OPS		64	/* operations a timed range issues */
#define CAL_REPS	32	/* ranges or full flushes a round */
#define CAL_ROUNDS	5

struct tlbp_costs tlbp_arm64_costs;

static u64 time_ranges(unsigned long base, unsigned long pages)
{
	u64 t = local_clock();
	int i;

	for (i = 0; i < CAL_REPS; i++)
		flush_tlb_kernel_range(base, base + pages * PAGE_SIZE);
	return local_clock() - t;
}

static u64 time_full(void)
{
	u64 t = local_clock();
	int i;

	for (i = 0; i < CAL_REPS; i++)
		flush_tlb_all();
	return local_clock() - t;
}

void tlbp_arm64_calibrate(void)
{
	u64 one = U64_MAX, many = U64_MAX, full = U64_MAX, t;
	/* The start of the vmalloc area: nothing there is flushed by a fault. */
	unsigned long base = VMALLOC_START;
	int r;

	for (r = 0; r < CAL_ROUNDS; r++) {
		preempt_disable();
		t = time_ranges(base, 1);
		one = min(one, t);
		t = time_ranges(base, CAL_OPS);
		many = min(many, t);
		t = time_full();
		full = min(full, t);
		preempt_enable();
	}
	/* One more operation a range, and one full flush, in ns; at least 1. */
	tlbp_arm64_costs.invlpg = max_t(u64, div_u64(many > one ? many - one : 0,
						     (CAL_OPS - 1) * CAL_REPS), 1);
	tlbp_arm64_costs.full = max_t(u64, div_u64(full, CAL_REPS), 1);
}
