// SPDX-License-Identifier: GPL-2.0
/*
 * x86-64's side of arch.h: the order in which its parts start and stop,
 * the kernel's ceiling kept in step with the policy, its sysfs groups and
 * its messages.  The parts: hook_x86.c (flush_tlb_mm_range(),
 * flush_tlb_kernel_range()), cpu_x86.c (CPUID geometry), calibrate_x86.c
 * (INVLPG timing, the model), ceiling_x86.c (tlb_single_page_flush_ceiling),
 * adaptive_x86.c and walks_x86.c (the adaptive default).
 */
#include <linux/percpu.h>
#include <linux/printk.h>
#include <asm/msr.h>
#include "adaptive_x86.h"
#include "arch.h"
#include "calibrate_x86.h"
#include "ceiling_x86.h"
#include "cpu_x86.h"
#include "hook_x86.h"
#include "sysfs.h"
#include "timed.h"
#include "tunables.h"

int tlbp_arch_init(void)
{
	int ret;

	ret = tlbp_timed_init(true);
	if (ret)
		return ret;
	/* Before the geometry: a CPU coming online has its counter first. */
	ret = tlbp_adaptive_init();
	if (ret)
		return ret;
	ret = tlbp_geometry_init();
	if (ret) {
		pr_err("cannot read CPUID on every CPU (%d)\n", ret);
		tlbp_adaptive_exit();
		return ret;
	}
	tlbp_calibrate_load();
	return 0;
}

void tlbp_arch_exit(void)
{
	/* No hotplug callback: the models stay as they are. */
	tlbp_geometry_exit();
	/* No controller raises the ceiling any more. */
	tlbp_adaptive_exit();
}

int tlbp_arch_find_stock(unsigned long *stock)
{
	int ret = tlbp_ceiling_resolve(tlbp_hook_ip(TLBP_HOOK_MM), tlbp_hook_ip(TLBP_HOOK_KERNEL));

	if (!ret)
		*stock = tlbp_ceiling_original();
	return ret;
}

void tlbp_arch_follow(u32 limit)
{
	/* In auto, where a CPU counts walks, the controllers may keep more. */
	tlbp_adaptive_apply(tlbp_auto && tlbp_policy.enabled && !tlbp_use_model);
	tlbp_ceiling_write(limit);
}

void tlbp_arch_restore(void)
{
	unsigned long now = tlbp_ceiling_read();

	if (tlbp_ceiling_tampered())
		pr_warn("tlb_single_page_flush_ceiling was changed behind our back (%lu); restoring %lu\n",
			now, tlbp_ceiling_original());
	tlbp_ceiling_restore();
}

/* The TSC: calibration measures in it. */
u64 tlbp_arch_clock(void)
{
	return rdtsc();
}

/* Raised at once from any CPU; lowered back once a second (adaptive_x86.c). */
void tlbp_arch_allow(u32 entries)
{
	if (entries > tlbp_ceiling_read())
		tlbp_ceiling_raise(entries);
}

const struct tlbp_model *tlbp_arch_model(unsigned int cpu)
{
	return &per_cpu(tlbp_cpu_model, cpu);
}

static const struct attribute_group *groups[] = {
	&tlbp_ceiling_group, &tlbp_model_group, &tlbp_geometry_group,
	&tlbp_calibration_group, &tlbp_adaptive_group, NULL,
};

int tlbp_arch_sysfs_init(void)
{
	return tlbp_sysfs_add(groups, &tlbp_hook_counters_group);
}

void tlbp_arch_sysfs_exit(void)
{
	tlbp_sysfs_remove(groups, &tlbp_hook_counters_group);
}

void tlbp_arch_report(bool load)
{
	const struct tlbp_geometry *boot = &per_cpu(tlbp_cpu_geo, tlbp_boot_cpu());
	struct tlbp_tunables t = tlbp_tunables_get();

	if (!load) {
		pr_info("unloaded: tlb_single_page_flush_ceiling back to %lu\n",
			tlbp_ceiling_original());
		return;
	}
	pr_info("loaded: geometry %s%s (l1d_4k=%u l2_4k=%u), threshold %u%s, stock ceiling %u, cap %u%s\n",
		tlbp_geo_source_name(boot->source),
		boot->hypervisor ? " under a hypervisor" : "",
		boot->l1d[TLBP_4K], boot->l2[TLBP_4K], tlbp_threshold_now(),
		!t.auto_mode ? "" : t.use_model && tlbp_model_ready ?
		" (auto, model at the largest footprint)" : " (auto: stock)",
		t.stock, t.cap, t.enabled ? "" : ", disabled");
	if (tlbp_model_ready)
		pr_info("calibrated on CPU %u: invlpg %u, full flush %u, refill %u, hit %u TSC cycles; reach %u pages\n",
			tlbp_cal.cpu, tlbp_costs.invlpg, tlbp_costs.full, tlbp_costs.refill,
			tlbp_cal.hit, tlbp_costs.reach);
}
