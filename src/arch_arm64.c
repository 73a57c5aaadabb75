// SPDX-License-Identifier: GPL-2.0
/*
 * arm64's side of arch.h.  The parts: hook_arm64.c (the mmu_gather choke
 * points), cpu_arm64.c (ID registers, the TLBI loop).
 *
 * There is nothing to calibrate (the x86 cost model times INVLPG and
 * refills with the TSC), so no model, and no ceiling variable:
 * __flush_tlb_range()'s limits are the compile-time MAX_TLBI_OPS and
 * MAX_TLBI_RANGE_PAGES.  The "stock ceiling" is therefore the most TLBI
 * operations the kernel's loop ever issues for one range, which is what
 * the threshold counts, and the hooks' decision is all tlbpath changes.
 */
#include <linux/printk.h>
#include "arch.h"
#include "cpu_arm64.h"
#include "sysfs.h"
#include "tunables.h"

int tlbp_arch_init(void)
{
	return tlbp_cpu_arm64_init();
}

/* Nothing runs on its own: no hotplug state, no controllers. */
void tlbp_arch_exit(void)
{
}

int tlbp_arch_find_stock(unsigned long *stock)
{
	*stock = tlbp_tlbi_stock_max(&tlbp_arm64.tlbi);
	return 0;
}

/* No kernel variable follows the policy: the hooks apply it alone. */
void tlbp_arch_follow(u32 limit)
{
}

/* And nothing was moved. */
void tlbp_arch_restore(void)
{
}

const struct tlbp_model *tlbp_arch_model(unsigned int cpu)
{
	return NULL;
}

static const struct attribute_group *groups[] = {
	&tlbp_arm64_geometry_group, NULL,
};

/*
 * No counters of its own: broadcast TLBI needs no IPIs, so no remote/local
 * split, and flush_tlb_kernel_range() is inline, so not hooked.
 */
int tlbp_arch_sysfs_init(void)
{
	return tlbp_sysfs_add(groups, NULL);
}

void tlbp_arch_sysfs_exit(void)
{
	tlbp_sysfs_remove(groups, NULL);
}

void tlbp_arch_report(bool load)
{
	struct tlbp_tunables t = tlbp_tunables_get();

	if (!load) {
		pr_info("unloaded: the mmu_gather hooks are gone\n");
		return;
	}
	pr_info("loaded: FEAT_TLBIRANGE %s (ID_AA64ISAR0_EL1.TLB=%u%s), MIDR 0x%08llx, TLB sizes unknown (not architected on arm64)\n",
		tlbp_arm64.tlbi_range ? "in use" : "not in use",
		tlbp_isar0_tlb(tlbp_arm64.isar0),
		tlbp_arm64.mixed ? ", differs between CPUs" : "",
		tlbp_arm64.midr);
	pr_info("threshold %u TLBI ops per flush%s (as %s's __flush_tlb_range() counts them%s), stock %u, cap %u%s\n",
		tlbp_threshold_now(), t.auto_mode ? " (auto: stock)" : "",
		tlbp_tlbi_loop_name(tlbp_arm64.tlbi.loop),
		tlbp_arm64.tlbi.lpa2 ? ", LPA2" : "",
		t.stock, t.cap, t.enabled ? "" : ", disabled");
}
