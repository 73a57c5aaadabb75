// SPDX-License-Identifier: GPL-2.0
/*
 * What tlbpath knows about an arm64 CPU.
 *
 * FEAT_TLBIRANGE is ID_AA64ISAR0_EL1.TLB == 2; whether the kernel uses it
 * is system_supports_tlb_range(), true only when every CPU has it.  The
 * architecture has no way to read the sizes of the TLBs (nothing like
 * CPUID leaf 2 or 0x18): geometry/ holds these IDs and a source of
 * "none", and no MIDR table is kept, for want of sizes we could cite for
 * each core.
 */
#include <linux/cpumask.h>
#include <linux/percpu.h>
#include <linux/smp.h>
#include <asm/cpufeature.h>
#include <asm/cputype.h>
#include <asm/pgtable.h>
#include <asm/sysreg.h>
#include "arch.h"
#include "cpu_arm64.h"
#include "sysfs.h"

/* The Kbuild probe found no __flush_tlb_range() loop that tlbi.c models. */
#ifndef TLBP_TLBI_LOOP
#error "unknown arm64 __flush_tlb_range() loop in asm/tlbflush.h: see Documentation/arm64.md"
#endif

struct tlbp_arm64_info tlbp_arm64;

static void read_ids(void *arg)
{
	u64 isar0 = read_sysreg_s(SYS_ID_AA64ISAR0_EL1);

	if (arg) {
		tlbp_arm64.midr = read_cpuid_id();
		tlbp_arm64.isar0 = isar0;
	} else if (tlbp_isar0_tlb(isar0) != tlbp_isar0_tlb(tlbp_arm64.isar0)) {
		WRITE_ONCE(tlbp_arm64.mixed, true);
	}
}

int tlbp_cpu_arm64_init(void)
{
	int ret;

	ret = smp_call_function_single(tlbp_boot_cpu(), read_ids, &tlbp_arm64, 1);
	if (ret)
		return ret;
	on_each_cpu(read_ids, NULL, 1);
	tlbp_arm64.tlbi_range = system_supports_tlb_range();
	tlbp_arm64.tlbi = (struct tlbp_tlbi_cfg){
		.loop = TLBP_TLBI_LOOP,
		.page_shift = PAGE_SHIFT,
		.range = tlbp_arm64.tlbi_range,
#ifdef CONFIG_ARM64_LPA2
		/* 52-bit VAs with 4K/16K pages, on a CPU with FEAT_LPA2 */
		.lpa2 = lpa2_is_enabled(),
#endif
	};
	return 0;
}

/* geometry/: no architected TLB sizes, so no source; the IDs instead. */

static ssize_t source_show(struct kobject *k, struct kobj_attribute *a, char *buf)
{
	return sysfs_emit(buf, "none\n");
}

static struct kobj_attribute source_attr = __ATTR_RO(source);

/* FEAT_TLBIRANGE: in use by the kernel, and the boot CPU's ID field. */
TLBP_ATTR_RO_U32(tlbi_range, tlbp_arm64.tlbi_range);
TLBP_ATTR_RO_U32(isar0_tlb, tlbp_isar0_tlb(tlbp_arm64.isar0));

static ssize_t midr_show(struct kobject *k, struct kobj_attribute *a, char *buf)
{
	return sysfs_emit(buf, "0x%08llx\n", tlbp_arm64.midr);
}

static struct kobj_attribute midr_attr = __ATTR_RO(midr);

static struct attribute *geometry_attrs[] = {
	&source_attr.attr, &tlbi_range_attr.attr, &isar0_tlb_attr.attr,
	&midr_attr.attr, NULL,
};

const struct attribute_group tlbp_arm64_geometry_group = {
	.name = "geometry",
	.attrs = geometry_attrs,
};
