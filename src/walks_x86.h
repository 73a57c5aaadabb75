/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Each CPU's page-walk counter (walks_x86.c): a kernel perf event per CPU,
 * created when the CPU comes online and released when it goes, read on
 * its own CPU from any context.
 */
#ifndef _TLBPATH_WALKS_X86_H
#define _TLBPATH_WALKS_X86_H

#include <linux/types.h>

/* The event counted: the hardware's walks, or a software stand-in (tests). */
enum tlbp_walk_event {
	TLBP_WALKS_HW,		/* dTLB load misses that walk (PERF_TYPE_HW_CACHE) */
	TLBP_WALKS_SW,		/* cpu-clock: a software event every kernel has */
	TLBP_WALKS_NONE,	/* no counter at all */
};

/* Its name in the walk_event parameter and in sysfs. */
static inline const char *tlbp_walk_event_name(enum tlbp_walk_event ev)
{
	switch (ev) {
	case TLBP_WALKS_HW:
		return "hw";
	case TLBP_WALKS_SW:
		return "sw";
	case TLBP_WALKS_NONE:
		return "none";
	}
	return "?";
}

int tlbp_walks_init(enum tlbp_walk_event ev);
void tlbp_walks_exit(void);

/*
 * This CPU's count so far; false when it has no running counter (and,
 * after many such reads in a row, tlbp_walks_error() says -EBUSY).
 */
bool tlbp_walks_read(u64 *count);

/*
 * 0, or why @cpu has no counter: -errno from perf, -ENODEV (offline or not
 * counting), -EBUSY (made, but never read running).
 */
int tlbp_walks_error(unsigned int cpu);

#endif /* _TLBPATH_WALKS_X86_H */
