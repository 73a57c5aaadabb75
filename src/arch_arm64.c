// SPDX-License-Identifier: GPL-2.0
/*
 * arm64's side of arch.h.  The parts: hook_arm64.c (the mmu_gather choke
 * points), cpu_arm64.c (ID registers, the TLBI loop).
 *
 * There is no cost model (the x86 one weighs the TLB's sizes, which arm64
 * does not tell) and no ceiling variable: __flush_tlb_range()'s limits are
 * the compile-time MAX_TLBI_OPS and MAX_TLBI_RANGE_PAGES.  The "stock
 * ceiling" is therefore the most TLBI operations the kernel's loop ever
 * issues for one range, which is what the threshold counts, and the hooks'
 * decision is all tlbpath changes.  What an operation and a full flush
 * cost is measured (calibrate_arm64.c) for the time controller (timed.c),
 * the adaptive default here as on x86.
 */
#include <linux/printk.h>
#include "arch.h"
#include <linux/sched/clock.h>
#include "cpu_arm64.h"
#include "sysfs.h"
#include "timed.h"
#include "tunables.h"

int tlbp_arch_init(void)
{
	int ret = tlbp_timed_init(false);

	if (!ret)
		ret = tlbp_cpu_arm64_init();
	if (!ret)
		tlbp_arm64_calibrate();
	return ret;
}

/* No controller decides any more (no hotplug state runs on its own). */
void tlbp_arch_exit(void)
{
	tlbp_timed_apply(false, NULL);
}

int tlbp_arch_find_stock(unsigned long *stock)
{
	*stock = tlbp_tlbi_stock_max(&tlbp_arm64.tlbi);
	return 0;
}

/* No kernel variable follows the policy: the hooks apply it, in auto with the controllers. */
void tlbp_arch_follow(u32 limit)
{
	tlbp_timed_apply(tlbp_auto && tlbp_policy.enabled, &tlbp_arm64_costs);
}

/* local_clock(): the controller's clock, in which calibration measures. */
u64 tlbp_arch_clock(void)
{
	return local_clock();
}

/* The hooks alone decide: nothing to let the kernel keep. */
void tlbp_arch_allow(u32 entries)
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

/* adapt/by_cpu: each CPU's time controller */
static ssize_t by_cpu_show(struct kobject *k, struct kobj_attribute *at, char *buf)
{
	int cpu, len = 0;

	for_each_online_cpu(cpu) {
		/* One page: stop at a whole line, and say so. */
		if (len > PAGE_SIZE - TLBP_TIMED_LINE_MAX) {
			len += sysfs_emit_at(buf, len, "...\n");
			break;
		}
		len = tlbp_timed_show_cpu(buf, len, cpu);
	}
	return len;
}

static ssize_t active_show(struct kobject *k, struct kobj_attribute *at, char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(tlbp_timed_on));
}

static ssize_t controller_show(struct kobject *k, struct kobj_attribute *at, char *buf)
{
	return sysfs_emit(buf, "%s\n", tlbp_controller_name());
}

static struct kobj_attribute active_attr = __ATTR_RO(active);
static struct kobj_attribute controller_attr = __ATTR_RO(controller);
static struct kobj_attribute by_cpu_attr = __ATTR(by_cpu, 0444, by_cpu_show, NULL);
TLBP_ATTR_RO_U32(tlbi_ns, tlbp_arm64_costs.invlpg);
TLBP_ATTR_RO_U32(full_ns, tlbp_arm64_costs.full);

static struct attribute *adapt_attrs[] = {
	&active_attr.attr, &controller_attr.attr, &by_cpu_attr.attr,
	&tlbi_ns_attr.attr, &full_ns_attr.attr, NULL,
};

static const struct attribute_group adapt_group = {
	.name = "adapt",
	.attrs = adapt_attrs,
};

static const struct attribute_group *groups[] = {
	&tlbp_arm64_geometry_group, &adapt_group, NULL,
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
