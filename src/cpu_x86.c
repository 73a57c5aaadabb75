// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU TLB geometry.  Every CPU is read when it comes online (and
 * every online one at load) through a CPU hotplug state, so hybrid parts
 * get the numbers of each core type.  The parsing is pure C in geometry.c.
 */
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <asm/processor.h>
/* cpuid_count() moved from <asm/processor.h> to <asm/cpuid/api.h> (7.x). */
#ifdef TLBP_HAVE_CPUID_API_H
#include <asm/cpuid/api.h>
#endif
#include "tlbpath.h"

DEFINE_PER_CPU(struct tlbp_geometry, tlbp_cpu_geo);

static enum cpuhp_state hp_state;

static void cpuid_insn(void *ctx, u32 leaf, u32 subleaf, struct tlbp_regs *r)
{
	cpuid_count(leaf, subleaf, &r->eax, &r->ebx, &r->ecx, &r->edx);
}

/* Runs on the CPU being read. */
static void read_leaves(void *arg)
{
	tlbp_cpuid_fill(arg, cpuid_insn, NULL);
}

static int tlbp_cpu_online(unsigned int cpu)
{
	struct tlbp_geometry g;
	struct tlbp_cpuid *raw;
	int ret;

	raw = kmalloc(sizeof(*raw), GFP_KERNEL);
	if (!raw)
		return -ENOMEM;
	ret = smp_call_function_single(cpu, read_leaves, raw, 1);
	if (!ret) {
		tlbp_parse_geometry(raw, &g);
		per_cpu(tlbp_cpu_geo, cpu) = g;
		tlbp_geometry_changed(cpu);
	}
	kfree(raw);
	return ret;
}

/* Forget a CPU that goes away: it may come back as something else. */
static int tlbp_cpu_offline(unsigned int cpu)
{
	static const struct tlbp_geometry none;

	per_cpu(tlbp_cpu_geo, cpu) = none;
	tlbp_geometry_changed(cpu);
	return 0;
}

int tlbp_geometry_init(void)
{
	int ret;

	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "tlbpath:online",
				tlbp_cpu_online, tlbp_cpu_offline);
	if (ret < 0)
		return ret;
	hp_state = ret;
	return 0;
}

/* Without running the teardown: the numbers stay for sysfs until the end. */
void tlbp_geometry_exit(void)
{
	cpuhp_remove_state_nocalls(hp_state);
}

/* The CPU whose numbers geometry/ shows. */
unsigned int tlbp_boot_cpu(void)
{
	return cpu_online(0) ? 0 : cpumask_first(cpu_online_mask);
}
