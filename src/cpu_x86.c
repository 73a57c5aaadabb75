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

static void read_leaves(void *arg)
{
	struct tlbp_cpuid *c = arg;
	u32 eax, ebx, ecx, edx, i, n;

	cpuid(0, &c->max_basic, &ebx, &ecx, &edx);
	c->vendor = tlbp_vendor_from_leaf0(ebx, ecx, edx);
	if (c->max_basic >= 1)
		c->leaf1_ecx = cpuid_ecx(1);
	if (c->max_basic >= 2)
		cpuid(2, &c->leaf2.eax, &c->leaf2.ebx, &c->leaf2.ecx, &c->leaf2.edx);
	if (c->max_basic >= 0x18) {
		cpuid_count(0x18, 0, &eax, &ebx, &ecx, &edx);
		n = min_t(u32, eax + 1, TLBP_LEAF18_MAX_SUBLEAVES);
		for (i = 0; i < n; i++) {
			struct tlbp_regs *r = &c->leaf18[i];

			cpuid_count(0x18, i, &r->eax, &r->ebx, &r->ecx, &r->edx);
		}
		c->leaf18_count = n;
	}

	c->max_ext = cpuid_eax(0x80000000);
	if ((c->max_ext & 0xffff0000) != 0x80000000) {
		c->max_ext = 0;
		return;
	}
	if (c->max_ext >= 0x80000005)
		cpuid(0x80000005, &c->ext5.eax, &c->ext5.ebx, &c->ext5.ecx, &c->ext5.edx);
	if (c->max_ext >= 0x80000006)
		cpuid(0x80000006, &c->ext6.eax, &c->ext6.ebx, &c->ext6.ecx, &c->ext6.edx);
	if (c->max_ext >= 0x80000019)
		cpuid(0x80000019, &c->ext19.eax, &c->ext19.ebx, &c->ext19.ecx, &c->ext19.edx);
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
		memset(raw, 0, sizeof(*raw));
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
