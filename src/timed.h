/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The time controller in the module (timed.c): one per CPU
 * (tlbpath/timectl.h), fed by the hooks of either architecture with the
 * clock the architecture reads (arch.h: tlbp_arch_clock()) and the
 * per-CPU counters (counters.h).
 */
#ifndef _TLBPATH_TIMED_H
#define _TLBPATH_TIMED_H

#include <linux/percpu.h>
#include "tlbpath/timectl.h"

struct cpumask;

DECLARE_PER_CPU(struct tlbp_tc, tlbp_cpu_tc);

/* The controller parameter: which controller the adaptive default runs. */
enum tlbp_controller { TLBP_CTL_TIME, TLBP_CTL_WALKS, TLBP_CTL_NONE };
extern enum tlbp_controller tlbp_controller;
const char *tlbp_controller_name(void);

/* Load: the parameter, checked (@walks: this architecture counts walks). */
int tlbp_timed_init(bool walks);

/* The controllers decide (auto, enabled, no model, costs measured). */
extern bool tlbp_timed_on;

/*
 * On the hook's fast path, every user request, before anything else:
 * false when this CPU's controller wants the slow path (its tick).
 */
static __always_inline bool tlbp_timed_count(void)
{
	return (s32)this_cpu_dec_return(tlbp_cpu_tc.left) > 0;
}

/*
 * The hook's slow path, preemption off, before the request is counted:
 * the tick if due, then the decision on a range of @entries (keep: true)
 * and its reason for the tracepoint.  @remote: the flush reaches other
 * CPUs; @reach: which, where they execute it themselves and time it
 * (x86 IPIs: mm_cpumask()), else NULL (arm64's broadcast TLBI, x86's
 * INVLPGB).  TLB_FLUSH_ALL (@entries ~0UL) ticks, and is not decided.
 */
bool tlbp_timed_decide(unsigned long entries, bool remote, const struct cpumask *reach,
		       enum tlbp_tc_reason *why);

/* A remote range was decided with its peers since this was last cleared. */
extern bool tlbp_timed_peers_wanted;

/*
 * The tlb:tlb_flush probe, interrupts off, on a CPU that executed a flush
 * another CPU asked for: @pages one by one, or TLBP_FLUSH_ALL.
 * @generation: changes each time the probe is registered again, so that
 * no epoch spans a time it was not.
 */
void tlbp_timed_executed(unsigned long pages, u64 generation);

/* The tracepoint's reason for a decision of the controller. */
static inline enum tlbp_reason tlbp_timed_reason(enum tlbp_tc_reason r)
{
	return r == TLBP_TC_R_TIMED ? TLBP_WHY_TIMED :
	       r == TLBP_TC_R_PROBE ? TLBP_WHY_PROBE : TLBP_WHY_STOCK;
}

/* The most entries a decision on @cpu may keep now. */
u32 tlbp_timed_ceiling(unsigned int cpu);

/*
 * Under the tunables' lock: start every CPU's controller afresh from the
 * costs (@on) or leave them quiet; each CPU's fast limit then follows it.
 */
void tlbp_timed_apply(bool on, const struct tlbp_costs *costs);

/* One line of adapt/by_cpu for @cpu, at @buf + @len; the new length. */
#define TLBP_TIMED_LINE_MAX	448	/* its longest: 431 bytes */
int tlbp_timed_show_cpu(char *buf, int len, unsigned int cpu);

#endif /* _TLBPATH_TIMED_H */
