/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The x86 hooks (hook_x86.c): what the rest of the x86 side needs of
 * them, the call sites they saw, and the counters of x86's own paths.
 */
#ifndef _TLBPATH_HOOK_X86_H
#define _TLBPATH_HOOK_X86_H

#include <linux/sysfs.h>

enum tlbp_hook_id { TLBP_HOOK_MM, TLBP_HOOK_KERNEL, TLBP_NR_HOOKS };

/* Where the hooked function called the callback from; 0: not yet. */
unsigned long tlbp_hook_ip(enum tlbp_hook_id id);

/* counters/: remote, local (broadcast) and the kernel ranges */
extern const struct attribute_group tlbp_hook_counters_group;

#endif /* _TLBPATH_HOOK_X86_H */
