// SPDX-License-Identifier: GPL-2.0
/*
 * What tlbpath knows about an arm64 CPU.
 *
 * FEAT_TLBIRANGE is ID_AA64ISAR0_EL1.TLB == 2; whether the kernel uses it
 * is system_supports_tlb_range(), true only when every CPU has it.  The
 * architecture has no way to read the sizes of the TLBs (nothing like
 * CPUID leaf 2 or 0x18): the geometry stays unknown (source "none"), and
 * no MIDR table is kept, for want of sizes we could cite for each core.
 *
 * There is nothing to calibrate (the x86 cost model times INVLPG and
 * refills with the TSC) and no ceiling variable: __flush_tlb_range()'s
 * limits are the compile-time MAX_TLBI_OPS and MAX_TLBI_RANGE_PAGES.  The
 * "stock ceiling" is therefore the most TLBI operations the kernel's loop
 * ever issues for one range, which is what the threshold counts.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/percpu.h>
#include <linux/smp.h>
#include <asm/cpufeature.h>
#include <asm/cputype.h>
#include <asm/pgtable.h>
#include <asm/sysreg.h>
#include "tlbpath.h"
#include "arch.h"
#include "tlbpath/tlbi.h"

/* The Kbuild probe found no __flush_tlb_range() loop that tlbi.c models. */
#ifndef TLBP_TLBI_LOOP
#error "unknown arm64 __flush_tlb_range() loop in asm/tlbflush.h: see Documentation/arm64.md"
#endif

/* All zero: no architected TLB sizes. */
DEFINE_PER_CPU(struct tlbp_geometry, tlbp_cpu_geo);
DEFINE_PER_CPU(struct tlbp_model, tlbp_cpu_model);
struct tlbp_costs tlbp_costs;
struct tlbp_cal_info tlbp_cal;
bool tlbp_calibrated;

struct tlbp_arm64_info tlbp_arm64;

static unsigned long stock_ops, ceiling_now;

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

int tlbp_geometry_init(void)
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
	stock_ops = tlbp_tlbi_stock_max(&tlbp_arm64.tlbi);
	return 0;
}

void tlbp_geometry_exit(void)
{
}

unsigned int tlbp_boot_cpu(void)
{
	return cpu_online(0) ? 0 : cpumask_first(cpu_online_mask);
}

int tlbp_calibrate(void)
{
	return 0;
}

void tlbp_model_refresh_cpu(unsigned int cpu)
{
}

/* No variable to find: the "ceiling" is the kernel's own operation limit. */
int tlbp_ceiling_resolve(const char *sym)
{
	ceiling_now = stock_ops;
	return 0;
}

unsigned long tlbp_ceiling_read(void)
{
	return READ_ONCE(ceiling_now);
}

void tlbp_ceiling_write(unsigned long val)
{
	WRITE_ONCE(ceiling_now, val);
}

/* Nobody else can write it. */
bool tlbp_ceiling_tampered(void)
{
	return false;
}

void tlbp_ceiling_restore(void)
{
	WRITE_ONCE(ceiling_now, stock_ops);
}

unsigned long tlbp_ceiling_original(void)
{
	return stock_ops;
}

void tlbp_arm64_report(bool load)
{
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
		tlbp_threshold_now(), READ_ONCE(tlbp_auto) ? " (auto: stock)" : "",
		tlbp_tlbi_loop_name(tlbp_arm64.tlbi.loop),
		tlbp_arm64.tlbi.lpa2 ? ", LPA2" : "",
		tlbp_policy.stock, tlbp_policy.cap,
		tlbp_policy.enabled ? "" : ", disabled");
}
