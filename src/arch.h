/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The split between architectures.  x86-64: hook.c (flush_tlb_mm_range(),
 * flush_tlb_kernel_range()), ceiling.c, cpu_x86.c (CPUID), calibrate.c
 * (INVLPG timing).  arm64: hook_arm64.c (the mmu_gather choke points),
 * arm64.c (ID registers; no architected TLB sizes, no calibration).
 * Files and counters for paths an architecture does not have are absent
 * from sysfs, not zero.
 */
#ifndef _TLBPATH_ARCH_H
#define _TLBPATH_ARCH_H

#include <linux/types.h>
#include "tlbpath.h"
#include "tlbpath/tlbi.h"

struct tlbp_arm64_info {
	u64 midr;		/* MIDR_EL1 of the boot CPU */
	u64 isar0;		/* ID_AA64ISAR0_EL1 of the boot CPU */
	bool mixed;		/* CPUs differ in ID_AA64ISAR0_EL1.TLB */
	bool tlbi_range;	/* the kernel uses range TLBI (every CPU has it) */
	struct tlbp_tlbi_cfg tlbi;	/* what tlbp_tlbi_ops() counts with */
};

extern struct tlbp_arm64_info tlbp_arm64;

/* The load and unload messages on arm64 (main.c has x86's). */
void tlbp_arm64_report(bool load);

/* Is @c counted on this architecture? */
static inline bool tlbp_counter_present(enum tlbp_counter c)
{
	if (IS_ENABLED(CONFIG_X86))
		return true;
	/*
	 * arm64 invalidates by broadcast TLBI, with no IPIs, so no
	 * remote/local split; flush_tlb_kernel_range() is inline there.
	 */
	switch (c) {
	case TLBP_USER_REMOTE:
	case TLBP_USER_LOCAL:
	case TLBP_KERNEL_PERPAGE:
	case TLBP_KERNEL_WIDENED:
	case TLBP_KERNEL_CALLER_FULL:
	case TLBP_KERNEL_PAGES:
		return false;
	default:
		return true;
	}
}

#endif /* _TLBPATH_ARCH_H */
