/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's tlb_single_page_flush_ceiling (ceiling_x86.c), found at
 * load in the code of the hooked functions, and moved only by tlbpath.
 */
#ifndef _TLBPATH_CEILING_X86_H
#define _TLBPATH_CEILING_X86_H

#include <linux/sysfs.h>
#include <linux/types.h>

/*
 * From where the hooks saw flush_tlb_mm_range() and flush_tlb_kernel_range()
 * called (hook_x86.h, after their self-test): the ceiling in their code.
 */
int tlbp_ceiling_resolve(unsigned long mm_ip, unsigned long kernel_ip);
unsigned long tlbp_ceiling_read(void);
void tlbp_ceiling_write(unsigned long val);
void tlbp_ceiling_raise(unsigned long val);
void tlbp_ceiling_lower(unsigned long old, unsigned long val);
bool tlbp_ceiling_tampered(void);
void tlbp_ceiling_restore(void);
unsigned long tlbp_ceiling_original(void);

/* kernel_ceiling, at the top */
extern const struct attribute_group tlbp_ceiling_group;

#endif /* _TLBPATH_CEILING_X86_H */
