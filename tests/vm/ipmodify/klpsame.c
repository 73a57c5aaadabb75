// SPDX-License-Identifier: GPL-2.0
/*
 * klpsame: a real live patch of flush_tlb_mm_range(), for testing
 * tlbpath beside one.  Never part of tlbpath.
 *
 * The kernel's livepatch core does everything a live patch does: its
 * ftrace_ops (IPMODIFY, PERMANENT) on the function, the per-task
 * transition, /sys/kernel/livepatch/klpsame.  The new function is the
 * old one itself, entered just after its ftrace call site: calls go on
 * exactly as before, and the patch needs no copy of a function that uses
 * half of arch/x86/mm/tlb.c.  That address comes from a kprobe on the
 * function (armed and disarmed at once), which kprobes places on the
 * ftrace call site.  Nothing is ever called through it: ftrace returns
 * there, as it does for any live patch.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/livepatch.h>
#include <linux/module.h>

static struct klp_func funcs[] = {
	{ .old_name = "flush_tlb_mm_range" },
	{ }
};

static struct klp_object objs[] = {
	{ .funcs = funcs },	/* vmlinux */
	{ }
};

static struct klp_patch patch = {
	.mod = THIS_MODULE,
	.objs = objs,
};

static int __init klpsame_init(void)
{
	struct kprobe kp = { .symbol_name = "flush_tlb_mm_range" };
	int ret = register_kprobe(&kp);

	if (ret) {
		pr_err("cannot find flush_tlb_mm_range's ftrace call site (%d)\n", ret);
		return ret;
	}
	funcs[0].new_func = (void *)((unsigned long)kp.addr + MCOUNT_INSN_SIZE);
	unregister_kprobe(&kp);
	return klp_enable_patch(&patch);
}

static void __exit klpsame_exit(void)
{
}

module_init(klpsame_init);
module_exit(klpsame_exit);
MODULE_LICENSE("GPL");
MODULE_INFO(livepatch, "Y");
MODULE_DESCRIPTION("Test only: a live patch of flush_tlb_mm_range() by itself");
