// SPDX-License-Identifier: GPL-2.0
/*
 * Reading CPUID on every online CPU and folding the per-CPU geometry.
 * The parsing itself is pure C in geometry.c.
 */
#include <linux/cpu.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <asm/processor.h>
#include "tlbpath.h"

static void cpuid_insn(void *ctx, u32 leaf, u32 subleaf, struct tlbp_regs *r)
{
	cpuid_count(leaf, subleaf, &r->eax, &r->ebx, &r->ecx, &r->edx);
}

/* Runs on the CPU being read, from smp_call_function_single(). */
static void read_leaves(void *arg)
{
	tlbp_cpuid_fill(arg, cpuid_insn, NULL);
}

static void fold_min(struct tlbp_geometry *acc, const struct tlbp_geometry *g)
{
	int s;

	for (s = 0; s < TLBP_NR_SIZES; s++) {
		acc->l1d[s] = min(acc->l1d[s], g->l1d[s]);
		acc->l1i[s] = min(acc->l1i[s], g->l1i[s]);
		acc->l2[s] = min(acc->l2[s], g->l2[s]);
	}
	acc->hypervisor |= g->hypervisor;
}

/*
 * Read the geometry of every online CPU.  Hybrid parts report different
 * TLBs on different cores; the default threshold must suit all of them,
 * so the published geometry is the smallest of each figure.
 */
int tlbp_read_geometry(struct tlbp_geometry *out)
{
	struct tlbp_cpuid *raw;
	struct tlbp_geometry g;
	bool first = true;
	int cpu, ret = 0;

	raw = kmalloc(sizeof(*raw), GFP_KERNEL);
	if (!raw)
		return -ENOMEM;

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		ret = smp_call_function_single(cpu, read_leaves, raw, 1);
		if (ret)
			break;
		tlbp_parse_geometry(raw, &g);
		if (first)
			*out = g;
		else
			fold_min(out, &g);
		first = false;
	}
	cpus_read_unlock();

	kfree(raw);
	return ret;
}
