// SPDX-License-Identifier: GPL-2.0
/*
 * dropflush-arm64: a deliberately broken flush path, for testing the tests.
 *
 * Never built into tlbpath.  It hooks the same mmu_gather choke points as
 * tlbpath on arm64, unmap_page_range() (7.2: __zap_vma_range()) and
 * change_protection(), but for
 * processes named "staletlb" it *narrows* the flush of the range about to
 * be gathered to nothing: it marks the gather as a whole-mm teardown, for
 * which tlb_end_vma() does not flush and arm64's tlb_flush() invalidates
 * only page-table walks, trusting that the ASID is never reused.  That is
 * exactly the bug tlbpath must never have; the stale-TLB detector has to
 * catch it, or it proves nothing.  (A full-mm gather only ever grows the
 * range, so shrinking tlb->end at entry could not narrow anything.)
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <asm/tlb.h>

/*
 * The first argument.  Up to 6.1 arm64 saves full registers; from 6.2 on
 * it has DYNAMIC_FTRACE_WITH_ARGS only, where SAVE_REGS cannot register.
 */
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_REGS
#define DROP_FLAGS	FTRACE_OPS_FL_SAVE_REGS

static unsigned long first_arg(struct ftrace_regs *fregs)
{
	struct pt_regs *regs = ftrace_get_regs(fregs);

	return regs ? regs->regs[0] : 0;
}
#else
#define DROP_FLAGS	0

static unsigned long first_arg(struct ftrace_regs *fregs)
{
	return ftrace_regs_get_argument(fregs, 0);
}
#endif

#include "dropflush.h"

/* (struct mmu_gather *tlb, struct vm_area_struct *vma, start, end, ...) */
static void notrace drop_cb(unsigned long ip, unsigned long parent_ip,
			    struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct mmu_gather *tlb = (struct mmu_gather *)first_arg(fregs);

	if (!tlb || strcmp(current->comm, comm))
		return;
	if (tlb->fullmm)
		return;
	tlb->fullmm = 1;
	atomic_long_inc(&dropped);
}

static int __init dropflush_init(void)
{
	/* 7.2 zaps in __zap_vma_range(), as tlbpath's hook_arm64.c says. */
	static const char *const unmap[] = { "unmap_page_range", "__zap_vma_range" };
	int i, ret, found = 0;

	ret = ftrace_set_filter(&drop_ops, (unsigned char *)"change_protection",
				strlen("change_protection"), 0);
	for (i = 0; i < ARRAY_SIZE(unmap) && !ret; i++)
		found += !ftrace_set_filter(&drop_ops, (unsigned char *)unmap[i],
					    strlen(unmap[i]), 0);
	if (!ret && !found)
		ret = -ENOENT;
	return drop_register(ret, "the mmu_gather choke points");
}

module_init(dropflush_init);
