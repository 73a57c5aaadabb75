/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the hooks of every architecture share (ftrace.c): one ftrace_ops
 * per hooked function, registered passive, and the counting of a decision.
 */
#ifndef _TLBPATH_FTRACE_H
#define _TLBPATH_FTRACE_H

#include <linux/ftrace.h>
#include "tlbpath/policy.h"
#include "counters.h"
#include "tunables.h"

struct tlbp_hook {
	const char *name;
	struct ftrace_ops ops;
	unsigned long seen_ip;	/* where the callback was first called from */
	bool filtered;
	bool registered;
};

/*
 * Until tlbpath goes live, a callback only notes its call site, which
 * tells where the hooked function is, and leaves the call alone.
 */
static __always_inline bool tlbp_hook_live(struct ftrace_ops *op, unsigned long ip)
{
	struct tlbp_hook *h = container_of(op, struct tlbp_hook, ops);

	if (likely(READ_ONCE(tlbp_live)))
		return true;
	if (!READ_ONCE(h->seen_ip))
		WRITE_ONCE(h->seen_ip, ip);
	return false;
}

static_assert(TLBP_USER_PERPAGE + TLBP_WIDEN == TLBP_USER_WIDENED);
static_assert(TLBP_USER_PERPAGE + TLBP_CALLER_FULL == TLBP_USER_CALLER_FULL);
static_assert(TLBP_KERNEL_PERPAGE + TLBP_WIDEN == TLBP_KERNEL_WIDENED);
static_assert(TLBP_KERNEL_PERPAGE + TLBP_CALLER_FULL == TLBP_KERNEL_CALLER_FULL);

/* Count @d: @base is the path's TLBP_*_PERPAGE, @pages its TLBP_*_PAGES. */
static __always_inline void tlbp_count_decision(const struct tlbp_decision *d,
						enum tlbp_counter base,
						enum tlbp_counter pages)
{
	/* TLBP_*_PERPAGE, _WIDENED and _CALLER_FULL follow each other. */
	tlbp_count(base + (int)d->verdict);
	if (d->verdict == TLBP_PERPAGE) {
		tlbp_count_add(pages, d->invalidations);
		if (d->stock_full)
			tlbp_count(TLBP_KEPT_WHERE_STOCK_FULL);
	} else if (d->verdict == TLBP_WIDEN && !d->stock_full) {
		tlbp_count(TLBP_FULL_WHERE_STOCK_KEPT);
	}
}

/* Hooks an architecture may have (each hook_*.c asserts it): an anchor each. */
#define TLBP_FTRACE_ANCHORS 3
unsigned long tlbp_ftrace_anchor(unsigned int i);
int tlbp_ftrace_register(struct tlbp_hook *hooks, unsigned int n);
void tlbp_ftrace_unregister(struct tlbp_hook *hooks, unsigned int n);
int tlbp_user_flush(void);

#endif /* _TLBPATH_FTRACE_H */
