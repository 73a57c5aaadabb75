// SPDX-License-Identifier: GPL-2.0
/*
 * The ftrace hooks of tlbpath on arm64: the mmu_gather choke points.
 *
 * Every arm64 flush helper is inline (__flush_tlb_range(), flush_tlb_mm(),
 * tlb_flush()), and so is the generic tlb_end_vma() that flushes each
 * VMA's gathered range, so there is no flush function to hook.  What can
 * be hooked is where a range starts to be gathered and where it is
 * flushed last:
 *
 *   unmap_page_range()   munmap, MAP_FIXED over a mapping,
 *   (7.2: __zap_vma_range) madvise(MADV_DONTNEED), the OOM reaper
 *   change_protection()  mprotect, NUMA hinting, userfaultfd write-protect
 *   tlb_finish_mmu()     the last flush of a gather: page tables freed,
 *                        and whatever is still gathered (tlb_flush_mmu(),
 *                        which does the flush, is inlined into it)
 *
 * Each callback decides on the range it is given (the VMA range asked
 * for, an upper bound of what will be gathered; or the gathered range) by
 * the number of TLBI operations this kernel's __flush_tlb_range() would
 * issue for it (tlbp_tlbi_ops(), the loop the Kbuild probe found),
 * and to widen it sets the mmu_gather's range to [0, TASK_SIZE_MAX).
 * __tlb_adjust_range() only ever grows a range, so that survives the
 * gathering, and __flush_tlb_range() then takes its own flush_tlb_mm()
 * (a full ASID flush), as it does above MAX_TLBI_RANGE_PAGES.  A range is
 * only ever widened, never narrowed.  A range widened ahead of a VMA in
 * which nothing is cleared stays wide until the next flush that has
 * something to flush, which it then makes full: more flushing, never less.
 *
 * mremap's move_ptes() and the hugetlb paths call flush_tlb_range() inline
 * without an mmu_gather: they are not reached, and flush as stock.
 */
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <asm/cpufeature.h>
#include <asm/processor.h>
#include <asm/tlb.h>
#include <asm/tlbflush.h>
#include "arch.h"
#include "cpu_arm64.h"
#include "ftrace.h"
#include "timed.h"

static_assert(TLBP_TLBI_MAX_RANGE_PAGES == MAX_TLBI_RANGE_PAGES);
/* A widened range is always past the kernel's own full-flush limit. */
static_assert((TASK_SIZE_MAX >> PAGE_SHIFT) > MAX_TLBI_RANGE_PAGES);

enum { HOOK_UNMAP, HOOK_MPROTECT, HOOK_FLUSH, NR_HOOKS };

/*
 * The first @n arguments.  arm64 up to 6.1 saves full registers
 * (DYNAMIC_FTRACE_WITH_REGS); from 6.2 on it has DYNAMIC_FTRACE_WITH_ARGS
 * only, and an ops asking for SAVE_REGS would not register there.
 */
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_REGS
#define TLBP_OPS_FLAGS	FTRACE_OPS_FL_SAVE_REGS

static __always_inline bool args(struct ftrace_regs *fregs, unsigned long *a, int n)
{
	struct pt_regs *regs = ftrace_get_regs(fregs);
	int i;

	if (!regs)
		return false;
	for (i = 0; i < n; i++)
		a[i] = regs->regs[i];
	return true;
}
#else
#define TLBP_OPS_FLAGS	0

static __always_inline bool args(struct ftrace_regs *fregs, unsigned long *a, int n)
{
	int i;

	for (i = 0; i < n; i++)
		a[i] = ftrace_regs_get_argument(fregs, i);
	return true;
}
#endif

/*
 * Every callback's prologue: its first @n arguments in @a once tlbpath is
 * live, and ftrace's recursion guard taken; below 0: leave the call alone.
 */
static __always_inline notrace int enter(unsigned long ip, unsigned long parent_ip,
					 struct ftrace_ops *op, struct ftrace_regs *fregs,
					 unsigned long *a, int n)
{
	if (!args(fregs, a, n) || !tlbp_hook_live(op, ip))
		return -1;
	return ftrace_test_recursion_trylock(ip, parent_ip);
}

/*
 * Decide on [start, end) at @stride, count, and widen the gathered range
 * of @tlb if so decided.
 */
static void notrace decide(struct mmu_gather *tlb, unsigned long start,
			   unsigned long end, unsigned long stride)
{
	unsigned long pages, ops;
	struct tlbp_decision d;
	struct tlbp_policy p;

	start = round_down(start, stride);
	end = round_up(end, stride);
	pages = (end - start) >> PAGE_SHIFT;
	ops = tlbp_tlbi_ops(&tlbp_arm64.tlbi, start, pages, ilog2(stride) - PAGE_SHIFT);

	tlbp_policy_now(&p, NULL);	/* no model on arm64 */
	/* The decision counts entries; here they are TLBI operations. */
	tlbp_timed_count();
	if (READ_ONCE(tlbp_timed_on)) {
		enum tlbp_tc_reason r;
		bool keep;

		/*
		 * arm64 keeps no mm_cpumask: another thread may run anywhere,
		 * and its refills are not this CPU's to time (a broadcast TLBI
		 * runs no code there).
		 */
		keep = tlbp_timed_decide(ops, atomic_read(&tlb->mm->mm_users) > 1, NULL, &r);
		tlbp_decision_fill(&p, 0, ops, 0, keep, tlbp_timed_reason(r), &d);
	} else {
		tlbp_decide(&p, 0, ops, 0, TLBP_FOOTPRINT_UNKNOWN, &d);
	}
	if (d.verdict == TLBP_WIDEN) {
		tlb->start = 0;
		tlb->end = max(tlb->end, TASK_SIZE_MAX);
	}

	/* d.invalidations is the TLBI operations counted. */
	tlbp_count_decision(&d, TLBP_USER_PERPAGE, TLBP_USER_PAGES);
}

/*
 * unmap_page_range(struct mmu_gather *tlb, struct vm_area_struct *vma,
 *		    unsigned long addr, unsigned long end, ...) (7.2:
 * __zap_vma_range(), the same four first) and
 * change_protection(struct mmu_gather *tlb, struct vm_area_struct *vma,
 *		     unsigned long start, unsigned long end, ...): the range
 * of one VMA about to be gathered, at page stride.
 */
static void notrace tlbp_vma_cb(unsigned long ip, unsigned long parent_ip,
				struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct vm_area_struct *vma;
	struct mmu_gather *tlb;
	unsigned long a[4], start, end;
	int bit;

	bit = enter(ip, parent_ip, op, fregs, a, 4);
	if (bit < 0)
		return;

	tlb = (struct mmu_gather *)a[0];
	vma = (struct vm_area_struct *)a[1];
	start = a[2];
	end = a[3];
	/*
	 * A full-mm teardown flushes by ASID anyway; hugetlb VMAs are
	 * flushed by their own code, outside the mmu_gather.
	 */
	if (!tlb->fullmm && !is_vm_hugetlb_page(vma) && end > start)
		decide(tlb, start, end, PAGE_SIZE);

	ftrace_test_recursion_unlock(bit);
}

/* tlb_finish_mmu(struct mmu_gather *tlb): the range as gathered. */
static void notrace tlbp_flush_cb(unsigned long ip, unsigned long parent_ip,
				  struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct mmu_gather *tlb;
	unsigned long a[1];
	int bit;

	bit = enter(ip, parent_ip, op, fregs, a, 1);
	if (bit < 0)
		return;

	tlb = (struct mmu_gather *)a[0];
	/* The same test tlb_flush_mmu_tlbonly() makes: is there a flush? */
	if (tlb->freed_tables || tlb->cleared_ptes || tlb->cleared_pmds ||
	    tlb->cleared_puds || tlb->cleared_p4ds) {
		if (tlb->fullmm)
			tlbp_count(TLBP_USER_CALLER_FULL);
		else if (tlb->end > tlb->start)
			decide(tlb, tlb->start, tlb->end, tlb_get_unmap_size(tlb));
	}

	ftrace_test_recursion_unlock(bit);
}

static_assert(NR_HOOKS <= TLBP_FTRACE_ANCHORS);

static struct tlbp_hook hooks[NR_HOOKS] = {
	[HOOK_UNMAP] = {	/* .name: pick_unmap() */
		.ops = { .func = tlbp_vma_cb, .flags = TLBP_OPS_FLAGS },
	},
	[HOOK_MPROTECT] = {
		.name = "change_protection",
		.ops = { .func = tlbp_vma_cb, .flags = TLBP_OPS_FLAGS },
	},
	[HOOK_FLUSH] = {
		.name = "tlb_finish_mmu",
		.ops = { .func = tlbp_flush_cb, .flags = TLBP_OPS_FLAGS },
	},
};

void tlbp_hooks_unregister(void)
{
	tlbp_ftrace_unregister(hooks, ARRAY_SIZE(hooks));
}

/*
 * The function that zaps one VMA's range: unmap_page_range() up to 6.x,
 * __zap_vma_range() in 7.2, which took its callers over (unmap_vmas(),
 * the OOM reaper, zap_vma_range_batched() for madvise) with the same
 * first four arguments.  Both are internal to mm/, so no header says
 * which a kernel has: ftrace's own list of traceable functions does.
 */
static const char *const unmap_names[] = { "unmap_page_range", "__zap_vma_range" };

static char *unmap_fn;
module_param(unmap_fn, charp, 0444);
MODULE_PARM_DESC(unmap_fn, "For tests only: the one unmap function to look for");

/*
 * A name that matches nothing leaves the ops as it was; the one that
 * matches stays set until tlbp_ftrace_register() sets it again.  (Not
 * ftrace_free_filter() in between: 6.1's frees the hashes and keeps the
 * pointers, and the next ftrace_set_filter() used them after the free:
 * an Oops in the load-time self-test.)
 */
static int pick_unmap(struct tlbp_hook *h)
{
	const char *const *names = unmap_names;
	int i, n = ARRAY_SIZE(unmap_names);

	if (unmap_fn) {
		names = (const char *const *)&unmap_fn;
		n = 1;
	}
	for (i = 0; i < n; i++) {
		if (!ftrace_set_filter(&h->ops, (unsigned char *)names[i], strlen(names[i]), 1)) {
			h->name = names[i];
			return 0;
		}
	}
	pr_err("cannot hook the unmap path: no traceable %s()%s%s%s\n", names[0],
	       n > 1 ? " or " : "", n > 1 ? names[1] : "", n > 1 ? "()" : "");
	return -ENOENT;
}

int tlbp_hooks_register(void)
{
	int ret = pick_unmap(&hooks[HOOK_UNMAP]);

	return ret ? ret : tlbp_ftrace_register(hooks, ARRAY_SIZE(hooks));
}

/*
 * Map a populated page in the loading process and unmap it: the kernel
 * calls unmap_page_range() and tlb_finish_mmu(), and each callback must
 * have seen it (kernel.ftrace_enabled=0 registers fine and never calls).
 * Nothing a module can call reaches change_protection(); it is hooked the
 * same way.
 */
int tlbp_hooks_selftest(void)
{
	int ret = tlbp_user_flush();

	if (ret)
		return ret;
	if (!READ_ONCE(hooks[HOOK_UNMAP].seen_ip) || !READ_ONCE(hooks[HOOK_FLUSH].seen_ip))
		return -ENODEV;
	return 0;
}
