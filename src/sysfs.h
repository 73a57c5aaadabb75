/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /sys/kernel/tlbpath (sysfs.c): the core's files, and what an
 * architecture needs to add its own (its groups, parsing, counters).
 */
#ifndef _TLBPATH_SYSFS_H
#define _TLBPATH_SYSFS_H

#include <linux/kobject.h>
#include <linux/sysfs.h>
#include "counters.h"

int tlbp_sysfs_init(void);
void tlbp_sysfs_exit(void);

/*
 * An architecture's groups (NULL-terminated), and the counters of its
 * own paths (a group named "counters", merged into counters/; or NULL).
 */
int tlbp_sysfs_add(const struct attribute_group **groups,
		   const struct attribute_group *counters);
void tlbp_sysfs_remove(const struct attribute_group **groups,
		       const struct attribute_group *counters);

/* A decimal number up to @max and nothing else but a trailing newline. */
int tlbp_sysfs_parse_u32(const char *buf, size_t len, u32 max, u32 *out);

/* A store of 0 or 1 through @set: the whole of a bool file's store(). */
ssize_t tlbp_sysfs_store_bool(const char *buf, size_t len, void (*set)(bool));

/* A read-only file @name showing the number @expr. */
#define TLBP_ATTR_RO_U32(name, expr)					\
static ssize_t name##_show(struct kobject *k, struct kobj_attribute *a,	\
			   char *buf)					\
{									\
	return sysfs_emit(buf, "%lu\n", (unsigned long)(expr));	\
}									\
static struct kobj_attribute name##_attr = __ATTR_RO(name)

/* A read-write file @name of 0 or 1: shows @expr, stores through @set. */
#define TLBP_ATTR_BOOL(name, expr, set)					\
static ssize_t name##_show(struct kobject *k, struct kobj_attribute *a,	\
			   char *buf)					\
{									\
	return sysfs_emit(buf, "%d\n", (expr));				\
}									\
static ssize_t name##_store(struct kobject *k, struct kobj_attribute *a,	\
			    const char *buf, size_t len)		\
{									\
	return tlbp_sysfs_store_bool(buf, len, set);			\
}									\
static struct kobj_attribute name##_attr = __ATTR_RW(name)

/* counters/@name: the sum of counter @idx over every CPU. */
struct tlbp_counter_attr {
	struct kobj_attribute kattr;
	enum tlbp_counter idx;
};

/* The counters every architecture publishes (sysfs.c); each adds its own. */
#define TLBP_NR_CORE_COUNTERS	6

ssize_t tlbp_counter_show(struct kobject *k, struct kobj_attribute *a, char *buf);

#define TLBP_ATTR_COUNTER(_name, _idx)					\
	static struct tlbp_counter_attr _name##_attr =			\
		{ __ATTR(_name, 0444, tlbp_counter_show, NULL), _idx }

#endif /* _TLBPATH_SYSFS_H */
