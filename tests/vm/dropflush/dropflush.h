/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the two mutants share: drop_ops around each one's drop_cb(), the
 * count of narrowed flushes, registering once the filter is set, and
 * unloading.  Each defines DROP_FLAGS (drop_ops' flags) before this, and
 * its own drop_cb() and dropflush_init().
 */
#ifndef DROPFLUSH_H
#define DROPFLUSH_H

#include <linux/ftrace.h>
#include <linux/module.h>

static atomic_long_t dropped;

/* Whose flushes it narrows: the stale-TLB detector's, or (tests) another's. */
static char *comm = "staletlb";
module_param(comm, charp, 0444);
MODULE_PARM_DESC(comm, "Narrow the flushes of tasks of this name (default staletlb)");

static void notrace drop_cb(unsigned long ip, unsigned long parent_ip,
			    struct ftrace_ops *op, struct ftrace_regs *fregs);

static struct ftrace_ops drop_ops = {
	.func = drop_cb,
	.flags = DROP_FLAGS,
};

/*
 * Register drop_ops if setting its filter returned @ret == 0; else, or if
 * that fails, free the filter and say that @what could not be hooked.
 */
static int __init drop_register(int ret, const char *what)
{
	if (!ret)
		ret = register_ftrace_function(&drop_ops);
	if (ret) {
		ftrace_free_filter(&drop_ops);
		pr_err("cannot hook %s (%d)\n", what, ret);
		return ret;
	}
	pr_info("narrowing flushes of processes named staletlb\n");
	return 0;
}

static void __exit dropflush_exit(void)
{
	unregister_ftrace_function(&drop_ops);
	ftrace_free_filter(&drop_ops);
	pr_info("narrowed %ld flushes\n", atomic_long_read(&dropped));
}

module_exit(dropflush_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Test only: narrows TLB flushes so the stale-TLB detector can be seen to fail");

#endif /* DROPFLUSH_H */
