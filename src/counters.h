/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-path counters (counters.c): per-CPU, bumped by the hooks with one
 * instruction each, summed for sysfs.  One list for every architecture;
 * an architecture publishes only the paths it has (its sysfs group).
 */
#ifndef _TLBPATH_COUNTERS_H
#define _TLBPATH_COUNTERS_H

#include <linux/percpu.h>

/*
 * 6.15+ kernels built with CONFIG_BROADCAST_TLB_FLUSH flush an mm that
 * has a global ASID with AMD's INVLPGB broadcast instead of IPIs: a path
 * of its own, counted only where it exists.
 */
#if defined(CONFIG_BROADCAST_TLB_FLUSH)
#define TLBP_HAVE_BROADCAST 1
#endif

enum tlbp_counter {
	TLBP_USER_PERPAGE,
	TLBP_USER_WIDENED,
	TLBP_USER_CALLER_FULL,
	TLBP_USER_PAGES,
	TLBP_USER_REMOTE,
	TLBP_USER_LOCAL,
#ifdef TLBP_HAVE_BROADCAST
	TLBP_USER_BROADCAST,
#endif
	TLBP_KERNEL_PERPAGE,
	TLBP_KERNEL_WIDENED,
	TLBP_KERNEL_CALLER_FULL,
	TLBP_KERNEL_PAGES,
	TLBP_KEPT_WHERE_STOCK_FULL,
	TLBP_FULL_WHERE_STOCK_KEPT,
	TLBP_NR_COUNTERS,
};

struct tlbp_counters {
	unsigned long c[TLBP_NR_COUNTERS];
};

DECLARE_PER_CPU(struct tlbp_counters, tlbp_stats);

static __always_inline void tlbp_count(enum tlbp_counter c)
{
	this_cpu_inc(tlbp_stats.c[c]);
}

static __always_inline void tlbp_count_add(enum tlbp_counter c, unsigned long n)
{
	this_cpu_add(tlbp_stats.c[c], n);
}

unsigned long tlbp_counter_sum(enum tlbp_counter c);
void tlbp_counters_reset(void);

#endif /* _TLBPATH_COUNTERS_H */
