/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The adaptive default in the module (adaptive.c): a controller per CPU
 * (tlbpath/adapt.h), fed by that CPU's page-walk counter (walks.h).
 */
#ifndef _TLBPATH_ADAPTIVE_H
#define _TLBPATH_ADAPTIVE_H

#include <linux/percpu.h>
#include <linux/sysfs.h>
#include "tlbpath/adapt.h"
#include "walks.h"

struct mm_struct;

DECLARE_PER_CPU(struct tlbp_adapt, tlbp_cpu_adapt);

/* The controllers decide: auto, enabled, no model, and a counter somewhere. */
extern bool tlbp_adapting;

/* /sys/kernel/tlbpath/adapt/ */
extern const struct attribute_group tlbp_adaptive_group;

int tlbp_adaptive_init(enum tlbp_walk_event ev);
void tlbp_adaptive_exit(void);

/*
 * Under tlbp_lock, after any change of policy, costs or CPUs, once
 * tlbp_fast_keep holds the policy's own fast limits: restart every
 * controller, let each lower its CPU's fast limit, and hook or unhook the
 * tracepoint.  @want: the policy asks for the controllers.
 */
void tlbp_adaptive_apply(bool want);

/* The hook's slow path while tlbp_adapting: keep @entries, and why. */
bool tlbp_adaptive_decide(struct mm_struct *mm, unsigned long entries,
			  enum tlbp_reason *why);

#endif /* _TLBPATH_ADAPTIVE_H */
