// SPDX-License-Identifier: GPL-2.0
/*
 * ipmodify: an ftrace user that claims FTRACE_OPS_FL_IPMODIFY on a
 * function, as a live patch or a function-hooking module does, for
 * testing tlbpath beside one.  Never part of tlbpath.
 *
 * It hooks func= (flush_tlb_mm_range by default) with an IPMODIFY
 * ftrace_ops, counts the calls (calls=, read-only) and sets the
 * instruction pointer ftrace returns to: where the call goes on anyway,
 * just after the function's ftrace call site, so that the write is real
 * and changes nothing.  The kernel allows one IPMODIFY ops per function:
 * with second=1 it also registers a second one, which the kernel must
 * refuse (-EBUSY); the error is kept in second_ret=.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/module.h>
#include <linux/ptrace.h>
#include <linux/string.h>

static char *func = "flush_tlb_mm_range";
module_param(func, charp, 0444);
MODULE_PARM_DESC(func, "The function to hook");

static bool second;
module_param(second, bool, 0444);
MODULE_PARM_DESC(second, "Also register a second IPMODIFY ops on it (must be refused)");

static int second_ret;
module_param(second_ret, int, 0444);
MODULE_PARM_DESC(second_ret, "What registering the second ops returned");

static atomic_long_t calls;

static int calls_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(&calls));
}

static const struct kernel_param_ops calls_ops = { .get = calls_get };
module_param_cb(calls, &calls_ops, NULL, 0444);
MODULE_PARM_DESC(calls, "Calls seen");

/*
 * Where a call resumes after the ftrace call site at @ip, and how a
 * callback sets it: through ftrace_regs where the arch passes arguments
 * that way (x86, arm64 from 6.2), in full pt_regs otherwise (arm64 6.1).
 */
#ifdef CONFIG_HAVE_DYNAMIC_FTRACE_WITH_ARGS
#define IPMOD_FLAGS	FTRACE_OPS_FL_IPMODIFY

static void set_resume(struct ftrace_regs *fregs, unsigned long ip)
{
#ifdef IPMOD_HAVE_FREGS_SET_IP
	ftrace_regs_set_instruction_pointer(fregs, ip);
#else
	ftrace_instruction_pointer_set(fregs, ip);
#endif
}
#else
#define IPMOD_FLAGS	(FTRACE_OPS_FL_IPMODIFY | FTRACE_OPS_FL_SAVE_REGS)

static void set_resume(struct ftrace_regs *fregs, unsigned long ip)
{
	struct pt_regs *regs = ftrace_get_regs(fregs);

	if (regs)
		instruction_pointer_set(regs, ip);
}
#endif

static void notrace ipmod_cb(unsigned long ip, unsigned long parent_ip,
			     struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	atomic_long_inc(&calls);
	set_resume(fregs, ip + MCOUNT_INSN_SIZE);
}

static struct ftrace_ops ops[2] = {
	{ .func = ipmod_cb, .flags = IPMOD_FLAGS },
	{ .func = ipmod_cb, .flags = IPMOD_FLAGS },
};

static int hook(struct ftrace_ops *o)
{
	int ret = ftrace_set_filter(o, (unsigned char *)func, strlen(func), 1);

	if (!ret)
		ret = register_ftrace_function(o);
	if (ret)
		ftrace_free_filter(o);
	return ret;
}

static int __init ipmod_init(void)
{
	int ret = hook(&ops[0]);

	if (ret) {
		pr_err("cannot hook %s with IPMODIFY (%d)\n", func, ret);
		return ret;
	}
	if (second) {
		second_ret = hook(&ops[1]);
		if (!second_ret) {
			pr_err("a second IPMODIFY ops on %s was accepted\n", func);
			unregister_ftrace_function(&ops[1]);
			ftrace_free_filter(&ops[1]);
		} else {
			pr_info("a second IPMODIFY ops on %s was refused (%d)\n", func, second_ret);
		}
	}
	pr_info("hooked %s with IPMODIFY\n", func);
	return 0;
}

static void __exit ipmod_exit(void)
{
	unregister_ftrace_function(&ops[0]);
	ftrace_free_filter(&ops[0]);
	pr_info("saw %ld calls of %s\n", atomic_long_read(&calls), func);
}

module_init(ipmod_init);
module_exit(ipmod_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Test only: an IPMODIFY ftrace user beside tlbpath");
