// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU TLB geometry.  Every CPU is read when it comes online (and
 * every online one at load) through a CPU hotplug state, so hybrid parts
 * get the numbers of each core type.  The parsing is pure C in geometry.c.
 */
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <asm/processor.h>
/* cpuid_count() moved from <asm/processor.h> to <asm/cpuid/api.h> (7.x). */
#ifdef TLBP_HAVE_CPUID_API_H
#include <asm/cpuid/api.h>
#endif
#include "arch.h"
#include "cpu_x86.h"
#include "sysfs.h"
#include "tunables.h"

DEFINE_PER_CPU(struct tlbp_geometry, tlbp_cpu_geo);
DEFINE_PER_CPU(struct tlbp_model, tlbp_cpu_model);

/* The costs the models were built from: none until calibration ran. */
static struct tlbp_costs model_costs;

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

/* Rebuild @cpu's model from its geometry and the costs (caller serialises). */
static void model_refresh(unsigned int cpu)
{
	struct tlbp_model m = { 0 };

	if (tlbp_model_ready)
		tlbp_model_init(&m, &per_cpu(tlbp_cpu_geo, cpu), &model_costs,
				tlbp_policy.cap);
	per_cpu(tlbp_cpu_model, cpu) = m;
}

void tlbp_models_rebuild(const struct tlbp_costs *c)
{
	unsigned int cpu;

	model_costs = *c;
	for_each_possible_cpu(cpu)
		model_refresh(cpu);
}

/* A CPU came online (or was read at load), or went: its model may be new. */
static void geometry_changed(unsigned int cpu)
{
	tlbp_tunables_lock();
	model_refresh(cpu);
	tlbp_tunables_apply_unlock();
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
		geometry_changed(cpu);
	}
	kfree(raw);
	return ret;
}

/* Forget a CPU that goes away: it may come back as something else. */
static int tlbp_cpu_offline(unsigned int cpu)
{
	static const struct tlbp_geometry none;

	per_cpu(tlbp_cpu_geo, cpu) = none;
	geometry_changed(cpu);
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

/* geometry/: the boot CPU's numbers */

#define BOOT_GEO	(&per_cpu(tlbp_cpu_geo, tlbp_boot_cpu()))

TLBP_ATTR_RO_U32(l1d_4k, BOOT_GEO->l1d[TLBP_4K]);
TLBP_ATTR_RO_U32(l1i_4k, BOOT_GEO->l1i[TLBP_4K]);
TLBP_ATTR_RO_U32(l2_4k, BOOT_GEO->l2[TLBP_4K]);
TLBP_ATTR_RO_U32(l1d_2m, BOOT_GEO->l1d[TLBP_2M]);
TLBP_ATTR_RO_U32(l1i_2m, BOOT_GEO->l1i[TLBP_2M]);
TLBP_ATTR_RO_U32(l2_2m, BOOT_GEO->l2[TLBP_2M]);
TLBP_ATTR_RO_U32(l1d_1g, BOOT_GEO->l1d[TLBP_1G]);
TLBP_ATTR_RO_U32(l1i_1g, BOOT_GEO->l1i[TLBP_1G]);
TLBP_ATTR_RO_U32(l2_1g, BOOT_GEO->l2[TLBP_1G]);
TLBP_ATTR_RO_U32(hypervisor, BOOT_GEO->hypervisor);

static ssize_t source_show(struct kobject *k, struct kobj_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%s\n", tlbp_geo_source_name(BOOT_GEO->source));
}

static struct kobj_attribute source_attr = __ATTR_RO(source);

/*
 * by_cpu: one line per distinct geometry among the online CPUs, with the
 * CPUs that have it, in the format of tlbpath-geometry:
 *   cpus=0-7 source=leaf18 l1d_4k=64 ... l2_1g=1024 threshold=33
 * A hybrid part has a line per core type, so this stays within a page.
 */
static ssize_t by_cpu_show(struct kobject *k, struct kobj_attribute *a, char *buf)
{
	cpumask_var_t same;
	int cpu, other, n = 0;

	if (!zalloc_cpumask_var(&same, GFP_KERNEL))
		return -ENOMEM;
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		const struct tlbp_geometry *g = &per_cpu(tlbp_cpu_geo, cpu);
		bool seen = false;

		cpumask_clear(same);
		for_each_online_cpu(other) {
			if (!tlbp_geometry_equal(g, &per_cpu(tlbp_cpu_geo, other)))
				continue;
			if (other < cpu) {
				seen = true;
				break;
			}
			cpumask_set_cpu(other, same);
		}
		if (seen)
			continue;
		n += sysfs_emit_at(buf, n, "cpus=%*pbl source=%s l1d_4k=%u l1i_4k=%u l2_4k=%u",
				   cpumask_pr_args(same), tlbp_geo_source_name(g->source),
				   g->l1d[TLBP_4K], g->l1i[TLBP_4K], g->l2[TLBP_4K]);
		n += sysfs_emit_at(buf, n, " l1d_2m=%u l1i_2m=%u l2_2m=%u", g->l1d[TLBP_2M],
				   g->l1i[TLBP_2M], g->l2[TLBP_2M]);
		n += sysfs_emit_at(buf, n, " l1d_1g=%u l2_1g=%u threshold=%u\n",
				   g->l1d[TLBP_1G], g->l2[TLBP_1G],
				   tlbp_cpu_limit(cpu));
	}
	cpus_read_unlock();
	free_cpumask_var(same);
	return n;
}

static struct kobj_attribute by_cpu_attr = __ATTR_RO(by_cpu);

static struct attribute *geometry_attrs[] = {
	&l1d_4k_attr.attr, &l1i_4k_attr.attr, &l2_4k_attr.attr,
	&l1d_2m_attr.attr, &l1i_2m_attr.attr, &l2_2m_attr.attr,
	&l1d_1g_attr.attr, &l1i_1g_attr.attr, &l2_1g_attr.attr,
	&source_attr.attr, &hypervisor_attr.attr, &by_cpu_attr.attr,
	NULL,
};

const struct attribute_group tlbp_geometry_group = {
	.name = "geometry",
	.attrs = geometry_attrs,
};
