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
 * the largest count the policy can choose (tlbp_arch_follow()).
 */
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/mm_types.h>
#include <linux/smp.h>
#include <linux/vmalloc.h>
#include <asm/tlbflush.h>
#include "adaptive_x86.h"
#include "arch.h"
#include "cpu_x86.h"
#include "ftrace.h"
#include "hook_x86.h"
#include "sysfs.h"
#include "timed.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

static_assert(TLBP_FLUSH_ALL == TLB_FLUSH_ALL);

/*
 * The arguments, read and rewritten in the registers ftrace saved.
 * x86-64's ftrace_caller saves the argument registers and loads them back
 * before the traced function runs (DYNAMIC_FTRACE_WITH_ARGS), so a
 * rewrite needs neither FTRACE_OPS_FL_SAVE_REGS nor its full pt_regs.
 * Since 6.14 (and in some stable updates before it) ftrace_regs is
 * opaque: arch_ftrace_regs() reaches the pt_regs inside.
 */
#ifndef CONFIG_HAVE_DYNAMIC_FTRACE_WITH_ARGS
#error "tlbpath needs CONFIG_HAVE_DYNAMIC_FTRACE_WITH_ARGS (x86-64 kernels since 5.11)"
#endif
static __always_inline struct pt_regs *args_of(struct ftrace_regs *fregs)
{
#ifdef TLBP_HAVE_ARCH_FTRACE_REGS
	return &arch_ftrace_regs(fregs)->regs;
#else
	return &fregs->regs;
#endif
}

/* Every callback's prologue: its arguments in @regs; false until tlbpath is live. */
static __always_inline notrace bool live_args(unsigned long ip, struct ftrace_ops *op,
					      struct ftrace_regs *fregs,
					      struct pt_regs **regs)
{
	*regs = args_of(fregs);
	return tlbp_hook_live(op, ip);
}

/*
 * Whether @mm is live on a CPU other than @cpu: flush_tlb_mm_range()'s own
 * test, cpumask_any_but() < nr_cpu_ids, inline and a word at a time.
 */
static __always_inline bool mm_remote(struct mm_struct *mm, unsigned int cpu)
{
	const unsigned long *bits = cpumask_bits(mm_cpumask(mm));
	unsigned int i;

	if (nr_cpu_ids <= BITS_PER_LONG)
		return bits[0] & ~BIT(cpu);
	for (i = 0; i < BITS_TO_LONGS(nr_cpu_ids); i++)
		if (bits[i] & ~(i == cpu / BITS_PER_LONG ? BIT(cpu % BITS_PER_LONG) : 0))
			return true;
	return false;
}

/*
 * Which way flush_tlb_mm_range() sends the flush, by its own tests: an mm
 * with a global ASID is flushed by INVLPGB broadcast (6.15+, AMD), one
 * live on other CPUs by IPIs, any other one on this CPU alone.
 */
static __always_inline enum tlbp_counter user_path(struct mm_struct *mm,
						   unsigned int cpu)
{
	if (!mm)
		return TLBP_USER_LOCAL;
#ifdef TLBP_HAVE_BROADCAST
	/*
	 * mm_global_asid() is hidden from modules (#ifndef MODULE in
	 * <asm/tlbflush.h>); this is its test.  Only the path is counted
	 * here, so a plain read does: no ordering against the ASID.
	 */
	if (cpu_feature_enabled(X86_FEATURE_INVLPGB) &&
	    READ_ONCE(mm->context.global_asid))
		return TLBP_USER_BROADCAST;
#endif
	return mm_remote(mm, cpu) ? TLBP_USER_REMOTE : TLBP_USER_LOCAL;
}

/*
 * The policy's whole decision, counted and traced: the slow path, out of
 * line so that the fast path does not pay for its stack frame.  Called
 * with preemption off (tlbp_mm_range_cb()).
 */
static noinline void tlbp_mm_range_decide(struct pt_regs *regs,
					  struct mm_struct *mm)
{
	unsigned long start = regs->si, end = regs->dx;
	unsigned int stride_shift = (unsigned int)regs->cx;
	unsigned long footprint = TLBP_FOOTPRINT_UNKNOWN;
	enum tlbp_counter path;
	struct tlbp_decision d;
	struct tlbp_policy p;

	path = user_path(mm, smp_processor_id());
	tlbp_count(path);
	/* A model being rebuilt may be read half old, half new: still safe. */
	tlbp_policy_now(&p, this_cpu_ptr(&tlbp_cpu_model));
	/* Resident pages: an upper bound on the translations a full flush loses. */
	if (p.model && mm)
		footprint = get_mm_rss(mm);
	if (READ_ONCE(tlbp_timed_on)) {
		enum tlbp_tc_reason r;
		bool keep;

		/*
		 * TLB_FLUSH_ALL stays the caller's, and still counts as a
		 * request.  The CPUs an IPI reaches execute the flush and time
		 * it; INVLPGB's do not.
		 */
		keep = tlbp_timed_decide(end == TLB_FLUSH_ALL ? TLBP_FLUSH_ALL :
					 tlbp_entries(start, end, stride_shift),
					 path != TLBP_USER_LOCAL,
					 path == TLBP_USER_REMOTE ? mm_cpumask(mm) : NULL, &r);
		tlbp_decision_fill(&p, start, end, stride_shift, keep, tlbp_timed_reason(r), &d);
	} else if (READ_ONCE(tlbp_adapting) && end != TLB_FLUSH_ALL) {
		unsigned long n = tlbp_entries(start, end, stride_shift);
		enum tlbp_reason why = TLBP_WHY_STOCK;
		bool keep = true;

		/* Here only because someone traces: decide as the fast path. */
		if (n > this_cpu_read(tlbp_fast_keep))
			keep = tlbp_adaptive_decide(mm, n, &why);
		tlbp_decision_fill(&p, start, end, stride_shift, keep, why, &d);
	} else {
		tlbp_decide(&p, start, end, stride_shift, footprint, &d);
	}
	if (d.verdict == TLBP_WIDEN) {
		regs->si = 0;
		regs->dx = TLB_FLUSH_ALL;
	}
	tlbp_count_decision(&d, TLBP_USER_PERPAGE, TLBP_USER_PAGES);
	trace_decision(mm, start, end, stride_shift, footprint, &d,
		       path == TLBP_USER_REMOTE);
}

/* A range of @pages kept on the fast path: its path, and its pages. */
static __always_inline void count_kept(enum tlbp_counter path, unsigned long pages)
{
	tlbp_count(path);
	tlbp_count(TLBP_USER_PERPAGE);
	tlbp_count_add(TLBP_USER_PAGES, pages);
}

/* The same above 64 CPUs, out of line: mm_cpumask() is several words. */
static noinline notrace void tlbp_mm_range_kept(struct mm_struct *mm,
						unsigned long pages)
{
	count_kept(user_path(mm, smp_processor_id()), pages);
}

/*
 * A range above the fast limit: widened and counted when it is above the
 * time controller's threshold for its path, with nothing else to weigh;
 * else decided.  Out of line, so that the fast path needs no stack frame.
 */
static noinline notrace void tlbp_mm_range_above(struct pt_regs *regs,
						 struct mm_struct *mm)
{
	enum tlbp_counter path = user_path(mm, smp_processor_id());
	unsigned int shift = (unsigned int)regs->cx;

	if (regs->dx == TLB_FLUSH_ALL ||
	    tlbp_entries(regs->si, regs->dx, shift) <=
	    this_cpu_read(tlbp_fast_widen[path != TLBP_USER_LOCAL])) {
		tlbp_mm_range_decide(regs, mm);
		return;
	}
	tlbp_count(path);
	tlbp_count(TLBP_USER_WIDENED);
	/* The kernel's own count, as tlbp_decision_fill() has it. */
	if ((regs->dx - regs->si) >> shift <= READ_ONCE(tlbp_policy.stock))
		tlbp_count(TLBP_FULL_WHERE_STOCK_KEPT);
	regs->si = 0;
	regs->dx = TLB_FLUSH_ALL;
}

/*
 * Most calls are a few pages, which every policy keeps as the stock
 * kernel does (tlbp_fast_keep): those are counted and left alone before
 * anything else.  The time controller's thresholds also widen what is
 * above them there (tlbp_fast_widen, by path), unless it experiments with
 * them.  Both limits only ever keep what no policy widens or widen.  The
 * callback cannot recurse (it calls nothing that flushes): no recursion
 * guard.
 */
static __always_inline void mm_range(struct pt_regs *regs)
{
	struct mm_struct *mm = (struct mm_struct *)regs->di;
	unsigned int shift = (unsigned int)regs->cx;
	unsigned long last;

	if (unlikely(!tlbp_timed_count() || trace_decision_enabled())) {
		tlbp_mm_range_decide(regs, mm);
		return;
	}
	/*
	 * The last entry's index: the pages counted, less one, a partial
	 * entry counted whole.  TLB_FLUSH_ALL, an empty range or one that
	 * wraps comes out huge: never kept here.
	 */
	last = (regs->dx - regs->si - 1) >> shift;
	if (unlikely(last >= this_cpu_read(tlbp_fast_keep))) {
		tlbp_mm_range_above(regs, mm);
		return;
	}
	if (unlikely(nr_cpu_ids > BITS_PER_LONG)) {
		tlbp_mm_range_kept(mm, last + 1);
		return;
	}
	count_kept(user_path(mm, smp_processor_id()), last + 1);
}

/*
 * flush_tlb_mm_range(struct mm_struct *mm, unsigned long start,
 *		      unsigned long end, unsigned int stride_shift,
 *		      bool freed_tables): mm in %rdi, start in %rsi, end in %rdx,
 * stride_shift in %ecx.
 *
 * Preemption is off from the first limit read to the last count, as the
 * kernel reads its own ceiling: a sysfs write waits for an RCU grace
 * period (tunables.c), so once it returns no call decides or counts by
 * what it replaced.
 */
static void notrace tlbp_mm_range_cb(unsigned long ip, unsigned long parent_ip,
				     struct ftrace_ops *op,
				     struct ftrace_regs *fregs)
{
	struct pt_regs *regs;

	if (!live_args(ip, op, fregs, &regs))
		return;
	preempt_disable_notrace();
	mm_range(regs);
	preempt_enable_notrace();
}

/* flush_tlb_kernel_range(unsigned long start, unsigned long end) */
static void notrace tlbp_kernel_range_cb(unsigned long ip,
					 unsigned long parent_ip,
					 struct ftrace_ops *op,
					 struct ftrace_regs *fregs)
{
	unsigned long start, end;
	struct tlbp_decision d;
	struct tlbp_policy p;
	struct pt_regs *regs;

	if (!live_args(ip, op, fregs, &regs))
		return;
	start = regs->di;
	end = regs->si;
	preempt_disable_notrace();
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
	preempt_enable_notrace();
}

static_assert(TLBP_NR_HOOKS <= TLBP_FTRACE_ANCHORS);

static struct tlbp_hook hooks[TLBP_NR_HOOKS] = {
	[TLBP_HOOK_MM] = {
		.name = "flush_tlb_mm_range",
		.ops = {
			.func = tlbp_mm_range_cb,
		},
	},
	[TLBP_HOOK_KERNEL] = {
		.name = "flush_tlb_kernel_range",
		.ops = {
			.func = tlbp_kernel_range_cb,
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

/* counters/: the paths only x86 has */

TLBP_ATTR_COUNTER(user_remote, TLBP_USER_REMOTE);
TLBP_ATTR_COUNTER(user_local, TLBP_USER_LOCAL);
#ifdef TLBP_HAVE_BROADCAST
TLBP_ATTR_COUNTER(user_broadcast, TLBP_USER_BROADCAST);
#endif
TLBP_ATTR_COUNTER(kernel_perpage, TLBP_KERNEL_PERPAGE);
TLBP_ATTR_COUNTER(kernel_widened, TLBP_KERNEL_WIDENED);
TLBP_ATTR_COUNTER(kernel_caller_full, TLBP_KERNEL_CALLER_FULL);
TLBP_ATTR_COUNTER(kernel_pages, TLBP_KERNEL_PAGES);

static struct attribute *counters_attrs[] = {
	&user_remote_attr.kattr.attr,
	&user_local_attr.kattr.attr,
#ifdef TLBP_HAVE_BROADCAST
	&user_broadcast_attr.kattr.attr,
#endif
	&kernel_perpage_attr.kattr.attr,
	&kernel_widened_attr.kattr.attr,
	&kernel_caller_full_attr.kattr.attr,
	&kernel_pages_attr.kattr.attr,
	NULL,
};

/* x86 has every path: each counter has its file. */
static_assert(TLBP_NR_CORE_COUNTERS + ARRAY_SIZE(counters_attrs) - 1 == TLBP_NR_COUNTERS);

const struct attribute_group tlbp_hook_counters_group = {
	.name = "counters",
	.attrs = counters_attrs,
};
