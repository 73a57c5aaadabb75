// SPDX-License-Identifier: GPL-2.0
/*
 * badhook: a test-only mutant, never part of tlbpath, that makes the two
 * mistakes the debug tier (tests/debug) must catch: bug=sleep allocates
 * with GFP_KERNEL in an ftrace callback on flush_tlb_mm_range while
 * preemption is off, as tlbpath's hook runs its per-CPU section; bug=leak
 * loses an allocation at each load.
 */
#include <linux/ftrace.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

static char *bug = "sleep";
module_param(bug, charp, 0444);
MODULE_PARM_DESC(bug, "sleep: allocate with GFP_KERNEL in atomic context; leak: lose an allocation");

static void notrace badhook_call(unsigned long ip, unsigned long parent_ip,
				 struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	void *p;

	preempt_disable_notrace();
	p = kmalloc(64, GFP_KERNEL);
	kfree(p);
	preempt_enable_notrace();
}

static struct ftrace_ops badhook_ops = {
	.func = badhook_call,
	.flags = FTRACE_OPS_FL_RECURSION,
};

static bool hooked;

static int __init badhook_init(void)
{
	static const char name[] = "flush_tlb_mm_range";
	int ret;

	if (!strcmp(bug, "leak")) {
		char *p = kmalloc(128, GFP_KERNEL);

		if (p)
			strscpy(p, "badhook: leaked on purpose", 128);
		return 0;
	}
	ret = ftrace_set_filter(&badhook_ops, (unsigned char *)name, sizeof(name) - 1, 0);
	if (!ret)
		ret = register_ftrace_function(&badhook_ops);
	hooked = !ret;
	return ret;
}

static void __exit badhook_exit(void)
{
	if (hooked)
		unregister_ftrace_function(&badhook_ops);
	ftrace_free_filter(&badhook_ops);
}

module_init(badhook_init);
module_exit(badhook_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tlbpath test-only mutant: sleeps in atomic context or leaks (tests/debug)");
