// SPDX-License-Identifier: GPL-2.0
/*
 * Registering and unregistering the hooks of any architecture, and the
 * load-time self-test's user flush.
 */
#include <linux/err.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/sched.h>
#include <linux/string.h>
#include "ftrace.h"

void tlbp_ftrace_unregister(struct tlbp_hook *hooks, unsigned int n)
{
	while (n--) {
		struct tlbp_hook *h = &hooks[n];

		if (h->registered)
			unregister_ftrace_function(&h->ops);
		if (h->filtered)
			ftrace_free_filter(&h->ops);
		h->registered = false;
		h->filtered = false;
	}
}

/*
 * A filter that holds the hook's anchor (ftrace_anchor.c, by address),
 * then the hooked function (by name).  ftrace_set_filter() can fail to
 * add the name and return 0: 6.1's ftrace_set_hash() takes
 * match_records()'s -ENOMEM for a match and installs the hash as it is.
 * An empty filter would hook every function in the kernel; this one
 * hooks a function nothing calls, and the self-test finds the hook silent.
 */
static int filter(struct tlbp_hook *h, unsigned int i)
{
	int ret = 0;

#ifndef TLBP_MUTANT_NOANCHOR
	ret = ftrace_set_filter_ip(&h->ops, tlbp_ftrace_anchor(i), 0, 1);
#endif
	if (!ret)
		ret = ftrace_set_filter(&h->ops, (unsigned char *)h->name,
					strlen(h->name), 0);
	return ret;
}

/* Each hook filtered on its one function and registered; all or none. */
int tlbp_ftrace_register(struct tlbp_hook *hooks, unsigned int n)
{
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		struct tlbp_hook *h = &hooks[i];

#ifdef TLBP_MUTANT_IPMODIFY
		/* Tests only (Kbuild): the claim tlbpath must never make. */
		h->ops.flags |= FTRACE_OPS_FL_IPMODIFY;
#endif
		h->filtered = true;
		ret = filter(h, i);
		if (ret) {
			pr_err("cannot filter ftrace on %s (%d)\n", h->name, ret);
			goto fail;
		}
		ret = register_ftrace_function(&h->ops);
		if (ret) {
			/* -EBUSY: a user that cannot share the function (design.md). */
			pr_err("cannot hook %s through ftrace (%d)%s\n", h->name, ret,
			       ret == -EBUSY ? ": another ftrace user holds it exclusively" : "");
			goto fail;
		}
		h->registered = true;
	}
	return 0;
fail:
	tlbp_ftrace_unregister(hooks, n);
	return ret;
}

/*
 * Map a populated page in the loading process and unmap it, so that the
 * kernel flushes a user range (flush_tlb_mm_range() on x86; the
 * mmu_gather code on arm64).
 */
int tlbp_user_flush(void)
{
	unsigned long addr;

	if (!current->mm)
		return -EINVAL;
	addr = vm_mmap(NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, 0);
	if (IS_ERR_VALUE(addr))
		return (int)addr;
	return vm_munmap(addr, PAGE_SIZE);
}
