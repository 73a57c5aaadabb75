// SPDX-License-Identifier: GPL-2.0
/*
 * The ftrace hooks on flush_tlb_mm_range() and flush_tlb_kernel_range().
 *
 * Each callback runs at the function's entry, decides, and at most
 * rewrites the (start, end) arguments in the saved registers to
 * (0, TLB_FLUSH_ALL).  The kernel's own code then does everything else:
 * the IPIs, lazy-TLB CPUs, PCID and PTI user-space flushes.  A range is
 * only ever widened, never narrowed, and a TLB_FLUSH_ALL request is never
 * turned into a range, so no decision can lose an invalidation.
 *
 * A kept range stays exactly as the caller asked; for the kernel to
 * honour it above 33 pages, tlb_single_page_flush_ceiling is kept equal to
 * the largest count the policy can choose (see tlbp_apply_policy()).
 */
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/mm_types.h>
#include <linux/smp.h>
#include <linux/vmalloc.h>
#include <asm/tlbflush.h>
#include "ftrace.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

static_assert(TLBP_FLUSH_ALL == TLB_FLUSH_ALL);

/*
 * Which way flush_tlb_mm_range() sends the flush, by its own tests: an mm
 * with a global ASID is flushed by INVLPGB broadcast (6.15+, AMD), one
 * live on other CPUs by IPIs, any other one on this CPU alone.
 */
static __always_inline enum tlbp_counter user_path(struct mm_struct *mm,
						   bool remote)
{
#ifdef TLBP_HAVE_BROADCAST
	/*
	 * mm_global_asid() is hidden from modules (#ifndef MODULE in
	 * <asm/tlbflush.h>); this is its test.  Only the path is counted
	 * here, so a plain read does: no ordering against the ASID.
	 */
	if (mm && cpu_feature_enabled(X86_FEATURE_INVLPGB) &&
	    READ_ONCE(mm->context.global_asid))
		return TLBP_USER_BROADCAST;
#endif
	return remote ? TLBP_USER_REMOTE : TLBP_USER_LOCAL;
}

/*
 * flush_tlb_mm_range(struct mm_struct *mm, unsigned long start,
 *		      unsigned long end, unsigned int stride_shift,
 *		      bool freed_tables): mm in %rdi, start in %rsi, end in %rdx,
 * stride_shift in %ecx.
 */
static void notrace tlbp_mm_range_cb(unsigned long ip, unsigned long parent_ip,
				     struct ftrace_ops *op,
				     struct ftrace_regs *fregs)
{
	struct pt_regs *regs = ftrace_get_regs(fregs);
	unsigned long start, end;
	struct mm_struct *mm;
	unsigned long footprint;
	struct tlbp_decision d;
	struct tlbp_policy p;
	bool remote;
	int bit;

	if (!regs || !tlbp_hook_live(op, ip))
		return;
	/* Also disables preemption, which smp_processor_id() needs. */
	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0)
		return;

	mm = (struct mm_struct *)regs->di;
	start = regs->si;
	end = regs->dx;
	/* A model being rebuilt may be read half old, half new: still safe. */
	tlbp_policy_now(&p, this_cpu_ptr(&tlbp_cpu_model));
	/* Resident pages: an upper bound on the translations a full flush loses. */
	footprint = mm ? get_mm_rss(mm) : TLBP_FOOTPRINT_UNKNOWN;
	tlbp_decide(&p, start, end, (unsigned int)regs->cx, footprint, &d);
	if (d.verdict == TLBP_WIDEN) {
		regs->si = 0;
		regs->dx = TLB_FLUSH_ALL;
	}
	tlbp_count_decision(&d, TLBP_USER_PERPAGE, TLBP_USER_PAGES);

	remote = mm && cpumask_any_but(mm_cpumask(mm), smp_processor_id()) < nr_cpu_ids;
	tlbp_count(user_path(mm, remote));
	trace_decision(mm, start, end, (unsigned int)regs->cx, footprint, &d, remote);

	ftrace_test_recursion_unlock(bit);
}

/* flush_tlb_kernel_range(unsigned long start, unsigned long end) */
static void notrace tlbp_kernel_range_cb(unsigned long ip,
					 unsigned long parent_ip,
					 struct ftrace_ops *op,
					 struct ftrace_regs *fregs)
{
	struct pt_regs *regs = ftrace_get_regs(fregs);
	unsigned long start, end;
	struct tlbp_decision d;
	struct tlbp_policy p;
	int bit;

	if (!regs || !tlbp_hook_live(op, ip))
		return;
	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0)
		return;

	start = regs->di;
	end = regs->si;
	tlbp_policy_now(&p, this_cpu_ptr(&tlbp_cpu_model));
	tlbp_decide(&p, start, end, PAGE_SHIFT, TLBP_FOOTPRINT_UNKNOWN, &d);
	if (d.verdict == TLBP_WIDEN) {
		regs->di = 0;
		regs->si = TLB_FLUSH_ALL;
	}
	tlbp_count_decision(&d, TLBP_KERNEL_PERPAGE, TLBP_KERNEL_PAGES);
	/* Kernel ranges are flushed on every CPU: no mm, always "remote". */
	trace_decision(NULL, start, end, PAGE_SHIFT, TLBP_FOOTPRINT_UNKNOWN, &d,
		       num_online_cpus() > 1);

	ftrace_test_recursion_unlock(bit);
}

static struct tlbp_hook hooks[TLBP_NR_HOOKS] = {
	[TLBP_HOOK_MM] = {
		.name = "flush_tlb_mm_range",
		.ops = {
			.func = tlbp_mm_range_cb,
			.flags = FTRACE_OPS_FL_SAVE_REGS,
		},
	},
	[TLBP_HOOK_KERNEL] = {
		.name = "flush_tlb_kernel_range",
		.ops = {
			.func = tlbp_kernel_range_cb,
			.flags = FTRACE_OPS_FL_SAVE_REGS,
		},
	},
};

void tlbp_hooks_unregister(void)
{
	tlbp_ftrace_unregister(hooks, ARRAY_SIZE(hooks));
}

int tlbp_hooks_register(void)
{
	return tlbp_ftrace_register(hooks, ARRAY_SIZE(hooks));
}

unsigned long tlbp_hook_ip(enum tlbp_hook_id id)
{
	return READ_ONCE(hooks[id].seen_ip);
}

/* vmap() a page, unmap it and purge: flush_tlb_kernel_range(). */
static int kernel_flush(void)
{
	struct page *page = alloc_page(GFP_KERNEL);
	void *va;

	if (!page)
		return -ENOMEM;
	va = vmap(&page, 1, VM_MAP, PAGE_KERNEL);
	if (va)
		vunmap(va);
	vm_unmap_aliases();
	__free_page(page);
	return va ? 0 : -ENOMEM;
}

/*
 * Registering succeeds even with kernel.ftrace_enabled=0, and then no
 * callback ever runs: make the kernel call both hooked functions and check
 * that each callback saw it.  That also gives their addresses, which
 * finding the ceiling needs, without kallsyms_lookup_name() or kprobes.
 */
int tlbp_hooks_selftest(void)
{
	int ret, i;

	ret = kernel_flush();
	if (!ret)
		ret = tlbp_user_flush();
	if (ret)
		return ret;
	for (i = 0; i < TLBP_NR_HOOKS; i++)
		if (!tlbp_hook_ip(i))
			return -ENODEV;
	return 0;
}
