// SPDX-License-Identifier: GPL-2.0
/*
 * dropflush: a deliberately broken flush path, for testing the tests.
 *
 * Never built into tlbpath.  It hooks flush_tlb_mm_range() the way
 * tlbpath does, but for processes named "staletlb" (or comm=) it
 * *narrows* ranged flushes to their first half (a one-page flush to
 * nothing), which is exactly the bug tlbpath must never have.  The
 * stale-TLB detector and tlbpath-probe's self-check have to catch it; if
 * they do not, they prove nothing.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <asm/tlbflush.h>

#define DROP_FLAGS	FTRACE_OPS_FL_SAVE_REGS
#include "dropflush.h"

static void notrace drop_cb(unsigned long ip, unsigned long parent_ip,
			    struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct pt_regs *regs = ftrace_get_regs(fregs);
	unsigned long start, end, entries;
	unsigned int stride;

	if (!regs || strcmp(current->comm, comm))
		return;
	start = regs->si;
	end = regs->dx;
	stride = regs->cx;
	if (end == TLB_FLUSH_ALL || end <= start)
		return;
	entries = (end - start) >> stride;
	regs->dx = start + ((entries / 2) << stride);
	atomic_long_inc(&dropped);
}

static int __init dropflush_init(void)
{
	int ret = ftrace_set_filter(&drop_ops, "flush_tlb_mm_range",
				    strlen("flush_tlb_mm_range"), 1);

	return drop_register(ret, "flush_tlb_mm_range");
}

module_init(dropflush_init);
