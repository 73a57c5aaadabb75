// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/tlbpath: one value per file.
 *
 *   threshold, enabled, model   read-write tunables
 *   cap, stock_ceiling,         read-only: the limit, the kernel's ceiling
 *   kernel_ceiling              at load, and its value now
 *   geometry/                   the boot CPU's entries per level and page
 *                               size, source; by_cpu: every distinct one
 *   calibration/                measured costs, the boot CPU's model
 *                               limits, and run (write 1: measure again)
 *   counters/                   per-path counters, and reset (write 1)
 */
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/kernel.h>
#include <linux/kobject.h>
#include <linux/sysfs.h>
#include "tlbpath.h"
#include "arch.h"
#include "tlbpath/tlbi.h"
#include "adaptive.h"

static struct kobject *tlbp_kobj;

/*
 * A decimal number and nothing else but an optional trailing newline;
 * @len catches an embedded NUL, which kstrtouint() would stop at.
 */
static int parse_u32(const char *buf, size_t len, u32 max, u32 *out)
{
	unsigned int v;

	if (strnlen(buf, len) != len || kstrtouint(buf, 10, &v) || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static ssize_t threshold_show(struct kobject *k, struct kobj_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%u\n", tlbp_threshold_now());
}

/* A number of pages, or "auto": each CPU uses its own geometry's default. */
static ssize_t threshold_store(struct kobject *k, struct kobj_attribute *a,
			       const char *buf, size_t len)
{
	u32 v;
	int ret;

	if (sysfs_streq(buf, "auto")) {
		tlbp_set_auto();
		return len;
	}
	ret = parse_u32(buf, len, tlbp_policy.cap, &v);
	if (!ret)
		ret = tlbp_set_threshold(v);
	return ret ? ret : len;
}

static ssize_t model_show(struct kobject *k, struct kobj_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(tlbp_use_model));
}

static ssize_t model_store(struct kobject *k, struct kobj_attribute *a,
			   const char *buf, size_t len)
{
	u32 v;
	int ret;

	ret = parse_u32(buf, len, 1, &v);
	if (ret)
		return ret;
	tlbp_set_model(v);
	return len;
}

static ssize_t enabled_show(struct kobject *k, struct kobj_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(tlbp_policy.enabled));
}

static ssize_t enabled_store(struct kobject *k, struct kobj_attribute *a,
			     const char *buf, size_t len)
{
	u32 v;
	int ret;

	ret = parse_u32(buf, len, 1, &v);
	if (ret)
		return ret;
	tlbp_set_enabled(v);
	return len;
}

#define RO_U32(name, expr)						\
static ssize_t name##_show(struct kobject *k, struct kobj_attribute *a,	\
			   char *buf)					\
{									\
	return sysfs_emit(buf, "%lu\n", (unsigned long)(expr));	\
}									\
static struct kobj_attribute name##_attr = __ATTR_RO(name)

static struct kobj_attribute threshold_attr = __ATTR_RW(threshold);
static struct kobj_attribute enabled_attr = __ATTR_RW(enabled);
static struct kobj_attribute model_attr = __ATTR_RW(model);
RO_U32(cap, tlbp_policy.cap);
RO_U32(threshold_auto, READ_ONCE(tlbp_auto));
RO_U32(stock_ceiling, tlbp_policy.stock);
RO_U32(kernel_ceiling, tlbp_ceiling_read());

/*
 * Files of paths that only x86 has: on arm64 they are absent, not zero.
 * arm64 has no ceiling variable, no calibration (so no model), and no
 * architected TLB sizes.
 */
static umode_t x86_only(struct attribute *a, const struct attribute *const *only,
			size_t n)
{
	size_t i;

	if (IS_ENABLED(CONFIG_X86))
		return a->mode;
	for (i = 0; i < n; i++)
		if (a == only[i])
			return 0;
	return a->mode;
}

static const struct attribute *const top_x86[] = {
	&kernel_ceiling_attr.attr, &model_attr.attr,
};

static umode_t top_visible(struct kobject *k, struct attribute *a, int n)
{
	return x86_only(a, top_x86, ARRAY_SIZE(top_x86));
}

static struct attribute *top_attrs[] = {
	&threshold_attr.attr,
	&enabled_attr.attr,
	&cap_attr.attr,
	&threshold_auto_attr.attr,
	&model_attr.attr,
	&stock_ceiling_attr.attr,
	&kernel_ceiling_attr.attr,
	NULL,
};

static const struct attribute_group top_group = {
	.attrs = top_attrs,
	.is_visible = top_visible,
};

/* geometry/: the boot CPU's numbers */

#define BOOT_GEO	(&per_cpu(tlbp_cpu_geo, tlbp_boot_cpu()))

RO_U32(l1d_4k, BOOT_GEO->l1d[TLBP_4K]);
RO_U32(l1i_4k, BOOT_GEO->l1i[TLBP_4K]);
RO_U32(l2_4k, BOOT_GEO->l2[TLBP_4K]);
RO_U32(l1d_2m, BOOT_GEO->l1d[TLBP_2M]);
RO_U32(l1i_2m, BOOT_GEO->l1i[TLBP_2M]);
RO_U32(l2_2m, BOOT_GEO->l2[TLBP_2M]);
RO_U32(l1d_1g, BOOT_GEO->l1d[TLBP_1G]);
RO_U32(l1i_1g, BOOT_GEO->l1i[TLBP_1G]);
RO_U32(l2_1g, BOOT_GEO->l2[TLBP_1G]);
RO_U32(hypervisor, BOOT_GEO->hypervisor);

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

#ifdef CONFIG_ARM64
/* FEAT_TLBIRANGE: in use by the kernel, and the boot CPU's ID field. */
RO_U32(tlbi_range, tlbp_arm64.tlbi_range);
RO_U32(isar0_tlb, tlbp_isar0_tlb(tlbp_arm64.isar0));

static ssize_t midr_show(struct kobject *k, struct kobj_attribute *a, char *buf)
{
	return sysfs_emit(buf, "0x%08llx\n", tlbp_arm64.midr);
}

static struct kobj_attribute midr_attr = __ATTR_RO(midr);
#endif

static struct attribute *geometry_attrs[] = {
	&l1d_4k_attr.attr, &l1i_4k_attr.attr, &l2_4k_attr.attr,
	&l1d_2m_attr.attr, &l1i_2m_attr.attr, &l2_2m_attr.attr,
	&l1d_1g_attr.attr, &l1i_1g_attr.attr, &l2_1g_attr.attr,
	&source_attr.attr, &hypervisor_attr.attr, &by_cpu_attr.attr,
#ifdef CONFIG_ARM64
	&tlbi_range_attr.attr, &isar0_tlb_attr.attr, &midr_attr.attr,
#endif
	NULL,
};

static const struct attribute *const geometry_x86[] = {
	&l1d_4k_attr.attr, &l1i_4k_attr.attr, &l2_4k_attr.attr,
	&l1d_2m_attr.attr, &l1i_2m_attr.attr, &l2_2m_attr.attr,
	&l1d_1g_attr.attr, &l1i_1g_attr.attr, &l2_1g_attr.attr,
	&hypervisor_attr.attr, &by_cpu_attr.attr,
};

static umode_t geometry_visible(struct kobject *k, struct attribute *a, int n)
{
	return x86_only(a, geometry_x86, ARRAY_SIZE(geometry_x86));
}

static const struct attribute_group geometry_group = {
	.name = "geometry",
	.attrs = geometry_attrs,
	.is_visible = geometry_visible,
};

/* calibration/ */

#define BOOT_MODEL	(&per_cpu(tlbp_cpu_model, tlbp_boot_cpu()))

RO_U32(invlpg_cycles, tlbp_costs.invlpg);
RO_U32(full_cycles, tlbp_costs.full);
RO_U32(refill_cycles, tlbp_costs.refill);
RO_U32(refill_invlpg_cycles, tlbp_cal.refill_invlpg);
RO_U32(hit_cycles, tlbp_cal.hit);
RO_U32(reach, tlbp_costs.reach);
RO_U32(cpu, tlbp_cal.cpu);
RO_U32(runs, tlbp_cal.runs);
RO_U32(limit_4k, BOOT_MODEL->limit[TLBP_4K]);
RO_U32(limit_2m, BOOT_MODEL->limit[TLBP_2M]);
RO_U32(limit_1g, BOOT_MODEL->limit[TLBP_1G]);

static ssize_t status_show(struct kobject *k, struct kobj_attribute *a, char *buf)
{
	if (!tlbp_cal.runs)
		return sysfs_emit(buf, "off\n");
	if (tlbp_cal.status)
		return sysfs_emit(buf, "failed %d\n", tlbp_cal.status);
	return sysfs_emit(buf, "ok\n");
}

static ssize_t run_store(struct kobject *k, struct kobj_attribute *a,
			 const char *buf, size_t len)
{
	u32 v;
	int ret;

	if (parse_u32(buf, len, 1, &v) || v != 1)
		return -EINVAL;
	ret = tlbp_recalibrate();
	return ret ? ret : len;
}

static struct kobj_attribute status_attr = __ATTR_RO(status);
static struct kobj_attribute run_attr = __ATTR_WO(run);

static struct attribute *calibration_attrs[] = {
	&invlpg_cycles_attr.attr, &full_cycles_attr.attr,
	&refill_cycles_attr.attr, &refill_invlpg_cycles_attr.attr,
	&hit_cycles_attr.attr, &reach_attr.attr, &cpu_attr.attr,
	&runs_attr.attr, &limit_4k_attr.attr, &limit_2m_attr.attr,
	&limit_1g_attr.attr, &status_attr.attr, &run_attr.attr,
	NULL,
};

static const struct attribute_group calibration_group __maybe_unused = {
	.name = "calibration",
	.attrs = calibration_attrs,
};

/* counters/ */

struct counter_attr {
	struct kobj_attribute kattr;
	enum tlbp_counter idx;
};

static ssize_t counter_show(struct kobject *k, struct kobj_attribute *a, char *buf)
{
	const struct counter_attr *ca = container_of(a, struct counter_attr, kattr);

	return sysfs_emit(buf, "%lu\n", tlbp_counter_sum(ca->idx));
}

#define COUNTER(_name, _idx)						\
	{ .kattr = __ATTR(_name, 0444, counter_show, NULL), .idx = _idx }

static struct counter_attr counter_attrs[] = {
	COUNTER(user_perpage, TLBP_USER_PERPAGE),
	COUNTER(user_widened, TLBP_USER_WIDENED),
	COUNTER(user_caller_full, TLBP_USER_CALLER_FULL),
	COUNTER(user_pages, TLBP_USER_PAGES),
	COUNTER(user_remote, TLBP_USER_REMOTE),
	COUNTER(user_local, TLBP_USER_LOCAL),
#ifdef TLBP_HAVE_BROADCAST
	COUNTER(user_broadcast, TLBP_USER_BROADCAST),
#endif
	COUNTER(kernel_perpage, TLBP_KERNEL_PERPAGE),
	COUNTER(kernel_widened, TLBP_KERNEL_WIDENED),
	COUNTER(kernel_caller_full, TLBP_KERNEL_CALLER_FULL),
	COUNTER(kernel_pages, TLBP_KERNEL_PAGES),
	COUNTER(kept_where_stock_full, TLBP_KEPT_WHERE_STOCK_FULL),
	COUNTER(full_where_stock_kept, TLBP_FULL_WHERE_STOCK_KEPT),
};

static_assert(ARRAY_SIZE(counter_attrs) == TLBP_NR_COUNTERS);

static ssize_t reset_store(struct kobject *k, struct kobj_attribute *a,
			   const char *buf, size_t len)
{
	u32 v;

	if (parse_u32(buf, len, 1, &v) || v != 1)
		return -EINVAL;
	tlbp_counters_reset();
	return len;
}

static struct kobj_attribute reset_attr = __ATTR_WO(reset);

static struct attribute *counters_attrs[TLBP_NR_COUNTERS + 2];

/* counters_attrs[n] is counter_attrs[n], then reset. */
static umode_t counters_visible(struct kobject *k, struct attribute *a, int n)
{
	if (n < TLBP_NR_COUNTERS && !tlbp_counter_present(counter_attrs[n].idx))
		return 0;
	return a->mode;
}

static const struct attribute_group counters_group = {
	.name = "counters",
	.attrs = counters_attrs,
	.is_visible = counters_visible,
};

static const struct attribute_group *groups[] = {
	&top_group, &geometry_group, &counters_group,
#ifdef CONFIG_X86
	&calibration_group, &tlbp_adaptive_group,
#endif
	NULL,
};

int tlbp_sysfs_init(void)
{
	int i, ret;

	for (i = 0; i < TLBP_NR_COUNTERS; i++)
		counters_attrs[i] = &counter_attrs[i].kattr.attr;
	counters_attrs[i] = &reset_attr.attr;

	tlbp_kobj = kobject_create_and_add("tlbpath", kernel_kobj);
	if (!tlbp_kobj)
		return -ENOMEM;
	ret = sysfs_create_groups(tlbp_kobj, groups);
	if (ret) {
		kobject_put(tlbp_kobj);
		tlbp_kobj = NULL;
	}
	return ret;
}

void tlbp_sysfs_exit(void)
{
	sysfs_remove_groups(tlbp_kobj, groups);
	kobject_put(tlbp_kobj);
	tlbp_kobj = NULL;
}
