/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The adaptive default on x86 (adaptive_x86.c): a controller per CPU
 * (tlbpath/adapt.h), fed by that CPU's page-walk counter (walks_x86.h).
 */
#ifndef _TLBPATH_ADAPTIVE_X86_H
#define _TLBPATH_ADAPTIVE_X86_H

#include <linux/percpu.h>
#include <linux/sysfs.h>
#include "tlbpath/adapt.h"
#include "walks_x86.h"

struct mm_struct;

DECLARE_PER_CPU(struct tlbp_adapt, tlbp_cpu_adapt);

/* The controllers decide: auto, enabled, no model, and a counter somewhere. */
extern bool tlbp_adapting;

/* /sys/kernel/tlbpath/adapt/ */
extern const struct attribute_group tlbp_adaptive_group;

/* The walk_event parameter, checked; the counters and the probe set up. */
int tlbp_adaptive_init(void);
void tlbp_adaptive_exit(void);

/*
 * Under the tunables' lock, after any change of policy, costs or CPUs, once
 * tlbp_fast_keep holds the policy's own fast limits: restart every
 * controller, let each lower its CPU's fast limit, and hook or unhook the
 * tracepoint.  @want: the policy asks for the controllers.
 */
void tlbp_adaptive_apply(bool want);

/* The hook's slow path while tlbp_adapting: keep @entries, and why. */
bool tlbp_adaptive_decide(struct mm_struct *mm, unsigned long entries,
			  enum tlbp_reason *why);

#endif /* _TLBPATH_ADAPTIVE_X86_H */
