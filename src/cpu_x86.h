/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Each x86 CPU's TLB geometry (cpu_x86.c), read from CPUID when the CPU
 * comes online; the parsing is pure C (tlbpath/geometry.h).
 */
#ifndef _TLBPATH_CPU_X86_H
#define _TLBPATH_CPU_X86_H

#include <linux/percpu.h>
#include <linux/sysfs.h>
#include "tlbpath/geometry.h"

DECLARE_PER_CPU(struct tlbp_geometry, tlbp_cpu_geo);

int tlbp_geometry_init(void);
void tlbp_geometry_exit(void);

/* geometry/ */
extern const struct attribute_group tlbp_geometry_group;

#endif /* _TLBPATH_CPU_X86_H */
