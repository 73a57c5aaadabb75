/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Each x86 CPU's TLB geometry (cpu_x86.c), read from CPUID when the CPU
 * comes online, and its model: the geometry with the measured costs.  The
 * parsing and the model are pure C (tlbpath/geometry.h, tlbpath/policy.h).
 * The hook uses the model while auto and a model (tunables.h:
 * tlbp_model_ready) are set.
 */
#ifndef _TLBPATH_CPU_X86_H
#define _TLBPATH_CPU_X86_H

#include <linux/percpu.h>
#include <linux/sysfs.h>
#include "tlbpath/geometry.h"
#include "tlbpath/policy.h"

DECLARE_PER_CPU(struct tlbp_geometry, tlbp_cpu_geo);
DECLARE_PER_CPU(struct tlbp_model, tlbp_cpu_model);

int tlbp_geometry_init(void);
void tlbp_geometry_exit(void);

/* New costs (calibrate_x86.c): rebuild every CPU's model, under the lock. */
void tlbp_models_rebuild(const struct tlbp_costs *c);

/* geometry/ */
extern const struct attribute_group tlbp_geometry_group;

#endif /* _TLBPATH_CPU_X86_H */
