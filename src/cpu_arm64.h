/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What tlbpath knows about the arm64 CPUs (cpu_arm64.c): ID registers,
 * and how this kernel's __flush_tlb_range() counts TLBI operations.
 */
#ifndef _TLBPATH_CPU_ARM64_H
#define _TLBPATH_CPU_ARM64_H

#include <linux/sysfs.h>
#include <linux/types.h>
#include "tlbpath/policy.h"
#include "tlbpath/tlbi.h"

struct tlbp_arm64_info {
	u64 midr;		/* MIDR_EL1 of the boot CPU */
	u64 isar0;		/* ID_AA64ISAR0_EL1 of the boot CPU */
	bool mixed;		/* CPUs differ in ID_AA64ISAR0_EL1.TLB */
	bool tlbi_range;	/* the kernel uses range TLBI (every CPU has it) */
	struct tlbp_tlbi_cfg tlbi;	/* what tlbp_tlbi_ops() counts with */
};

extern struct tlbp_arm64_info tlbp_arm64;

int tlbp_cpu_arm64_init(void);

/* What a TLBI operation and a full flush cost, ns (calibrate_arm64.c). */
extern struct tlbp_costs tlbp_arm64_costs;
void tlbp_arm64_calibrate(void);

/* geometry/ */
extern const struct attribute_group tlbp_arm64_geometry_group;

#endif /* _TLBPATH_CPU_ARM64_H */
