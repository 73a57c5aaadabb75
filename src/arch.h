/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What each architecture provides to the core: arch_x86.c with the
 * *_x86.c files, arch_arm64.c with the *_arm64.c files; Kbuild picks one
 * set.  The core (main.c, tunables.c, sysfs.c, counters.c, ftrace.c)
 * calls these and knows nothing else of either architecture.
 *
 *   x86-64: hooks flush_tlb_mm_range() and flush_tlb_kernel_range(),
 *   reads the TLB geometry from CPUID, calibrates a cost model, keeps the
 *   kernel's tlb_single_page_flush_ceiling in step, adapts per CPU.
 *   arm64: hooks the mmu_gather choke points, reads the ID registers;
 *   no architected TLB sizes, no calibration, no ceiling variable.
 */
#ifndef _TLBPATH_ARCH_H
#define _TLBPATH_ARCH_H

#include <linux/cpumask.h>
#include <linux/types.h>

struct tlbp_model;

/* Before the hooks: read the CPUs (and x86: measure the costs). */
int tlbp_arch_init(void);
void tlbp_arch_exit(void);

/* The hooks, registered passive (tunables.h: tlbp_live), and their proof. */
int tlbp_hooks_register(void);
int tlbp_hooks_selftest(void);
void tlbp_hooks_unregister(void);

/*
 * After the self-test: the most entries the kernel itself keeps in one
 * call (x86: its ceiling, found through the hooks' call sites; arm64: the
 * most TLBI operations its __flush_tlb_range() loop issues).
 */
int tlbp_arch_find_stock(unsigned long *stock);

/* The architecture's own sysfs groups, once /sys/kernel/tlbpath exists. */
int tlbp_arch_sysfs_init(void);
void tlbp_arch_sysfs_exit(void);

/*
 * Under the tunables' lock, while live, after any change: follow a policy
 * whose largest per-page count is now @limit.
 */
void tlbp_arch_follow(u32 limit);

/* Under that lock at unload, no longer live: put back what was moved. */
void tlbp_arch_restore(void);

/* The clock the time controller reads (timed.c), in its costs' units. */
u64 tlbp_arch_clock(void);

/* Let the kernel itself keep ranges of up to @entries (x86: its ceiling). */
void tlbp_arch_allow(u32 entries);

/* @cpu's cost model, or NULL where there is none. */
const struct tlbp_model *tlbp_arch_model(unsigned int cpu);

/* The load and unload messages. */
void tlbp_arch_report(bool load);

/* The CPU whose numbers sysfs and the load message show. */
static inline unsigned int tlbp_boot_cpu(void)
{
	return cpu_online(0) ? 0 : cpumask_first(cpu_online_mask);
}

#endif /* _TLBPATH_ARCH_H */
