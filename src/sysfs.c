// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/tlbpath: one value per file.  The core's files:
 *
 *   threshold, enabled          read-write tunables (tunables.c)
 *   cap, threshold_auto,        read-only: the limit, auto mode, the
 *   stock_ceiling               kernel's own limit as found at load
 *   counters/                   per-path counters, and reset (write 1)
 *
 * Each architecture adds its own groups (tlbp_arch_sysfs_init()): files
 * of what it does not have are absent, not zero.  Files only parse and
 * print; every write goes to tunables.c.
 */
#include <linux/kernel.h>
#include <linux/kobject.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include "sysfs.h"
#include "tunables.h"

static struct kobject *tlbp_kobj;

/* @len catches an embedded NUL, which kstrtouint() would stop at. */
int tlbp_sysfs_parse_u32(const char *buf, size_t len, u32 max, u32 *out)
{
	unsigned int v;

	if (strnlen(buf, len) != len || kstrtouint(buf, 10, &v) || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

ssize_t tlbp_sysfs_store_bool(const char *buf, size_t len, void (*set)(bool))
{
	u32 v;
	int ret;

	ret = tlbp_sysfs_parse_u32(buf, len, 1, &v);
	if (ret)
		return ret;
	set(v);
	return len;
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
	ret = tlbp_sysfs_parse_u32(buf, len, U32_MAX, &v);
	if (!ret)
		ret = tlbp_set_threshold(v);
	return ret ? ret : len;
}

TLBP_ATTR_BOOL(enabled, tlbp_tunables_get().enabled, tlbp_set_enabled);

static struct kobj_attribute threshold_attr = __ATTR_RW(threshold);
TLBP_ATTR_RO_U32(cap, tlbp_tunables_get().cap);
TLBP_ATTR_RO_U32(threshold_auto, tlbp_tunables_get().auto_mode);
TLBP_ATTR_RO_U32(stock_ceiling, tlbp_tunables_get().stock);

static struct attribute *top_attrs[] = {
	&threshold_attr.attr,
	&enabled_attr.attr,
	&cap_attr.attr,
	&threshold_auto_attr.attr,
	&stock_ceiling_attr.attr,
	NULL,
};

static const struct attribute_group top_group = {
	.attrs = top_attrs,
};

/* counters/: the paths every architecture has; each adds its own. */

ssize_t tlbp_counter_show(struct kobject *k, struct kobj_attribute *a, char *buf)
{
	const struct tlbp_counter_attr *ca = container_of(a, struct tlbp_counter_attr, kattr);

	return sysfs_emit(buf, "%lu\n", tlbp_counter_sum(ca->idx));
}

TLBP_ATTR_COUNTER(user_perpage, TLBP_USER_PERPAGE);
TLBP_ATTR_COUNTER(user_widened, TLBP_USER_WIDENED);
TLBP_ATTR_COUNTER(user_caller_full, TLBP_USER_CALLER_FULL);
TLBP_ATTR_COUNTER(user_pages, TLBP_USER_PAGES);
TLBP_ATTR_COUNTER(kept_where_stock_full, TLBP_KEPT_WHERE_STOCK_FULL);
TLBP_ATTR_COUNTER(full_where_stock_kept, TLBP_FULL_WHERE_STOCK_KEPT);

static ssize_t reset_store(struct kobject *k, struct kobj_attribute *a,
			   const char *buf, size_t len)
{
	u32 v;

	if (tlbp_sysfs_parse_u32(buf, len, 1, &v) || v != 1)
		return -EINVAL;
	tlbp_counters_reset();
	return len;
}

static struct kobj_attribute reset_attr = __ATTR_WO(reset);

static struct attribute *counters_attrs[] = {
	&user_perpage_attr.kattr.attr,
	&user_widened_attr.kattr.attr,
	&user_caller_full_attr.kattr.attr,
	&user_pages_attr.kattr.attr,
	&kept_where_stock_full_attr.kattr.attr,
	&full_where_stock_kept_attr.kattr.attr,
	&reset_attr.attr,
	NULL,
};

/* Each counter of its own, then reset and the end. */
static_assert(ARRAY_SIZE(counters_attrs) == TLBP_NR_CORE_COUNTERS + 2);

static const struct attribute_group counters_group = {
	.name = "counters",
	.attrs = counters_attrs,
};

static const struct attribute_group *groups[] = {
	&top_group, &counters_group, NULL,
};

int tlbp_sysfs_init(void)
{
	int ret;

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

int tlbp_sysfs_add(const struct attribute_group **arch_groups,
		   const struct attribute_group *counters)
{
	int ret;

	ret = sysfs_create_groups(tlbp_kobj, arch_groups);
	if (ret || !counters)
		return ret;
	ret = sysfs_merge_group(tlbp_kobj, counters);
	if (ret)
		sysfs_remove_groups(tlbp_kobj, arch_groups);
	return ret;
}

void tlbp_sysfs_remove(const struct attribute_group **arch_groups,
		       const struct attribute_group *counters)
{
	if (counters)
		sysfs_unmerge_group(tlbp_kobj, counters);
	sysfs_remove_groups(tlbp_kobj, arch_groups);
}
