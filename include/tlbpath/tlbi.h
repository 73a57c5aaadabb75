/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arm64 TLB invalidation by range (FEAT_TLBIRANGE), as pure C.
 *
 * The kernel issues the instructions itself (__flush_tlb_range() in
 * arch/arm64/include/asm/tlbflush.h is inline); tlbpath only decides
 * whether a range is flushed at all or widened to a full ASID flush, and
 * what that decision weighs is how many TLBI operations the kernel's loop
 * would issue for it.  This encodes the operands the way the kernel does
 * and counts the operations of each kernel's loop, so both can be
 * unit-tested (Documentation/arm64.md).
 *
 * Range operand (TLBI RVAE1IS, RVALE1IS):
 *
 *   | ASID  | TG    | SCALE | NUM   | TTL   | BADDR          |
 *   | 63:48 | 47:46 | 45:44 | 43:39 | 38:37 | 36:0           |
 *
 * and it covers [BADDR, BADDR + (NUM + 1) * 2^(5 * SCALE + 1) pages).
 */
#ifndef _TLBPATH_TLBI_H
#define _TLBPATH_TLBI_H

#include "types.h"

/* Translation granule codes, TG (get_trans_granule()) */
#define TLBP_TG_4K		1
#define TLBP_TG_16K		2
#define TLBP_TG_64K		3

#define TLBP_TLBI_MAX_SCALE	3
#define TLBP_TLBI_MAX_NUM	31

/* __TLBI_RANGE_PAGES(num, scale) */
#define TLBP_TLBI_RANGE_PAGES(num, scale) \
	((unsigned long)((num) + 1) << (5 * (scale) + 1))

/* MAX_TLBI_RANGE_PAGES: 2^21, what one range operand covers at most. */
#define TLBP_TLBI_MAX_RANGE_PAGES \
	TLBP_TLBI_RANGE_PAGES(TLBP_TLBI_MAX_NUM, TLBP_TLBI_MAX_SCALE)

/*
 * The kernel's __flush_tlb_range() loops, as far as their counts differ,
 * each named for the Debian kernel whose arm64 tlbflush.h it transcribes.
 * Which one a kernel has, the Kbuild probe reads from its tlbflush.h.
 *
 * TLBP_TLBI_LOOP_61:  scale 0 up to 3, the odd page first; from
 *   MAX_TLBI_RANGE_PAGES pages on, a full ASID flush, range or not.
 * TLBP_TLBI_LOOP_612: __flush_tlb_range_op(), scale 3 down to 0, the odd
 *   page last; MAX_TLBI_RANGE_PAGES pages are one range operation, only
 *   more flush the ASID, range or not.
 * TLBP_TLBI_LOOP_72:  as 6.12, but without range operations only the
 *   MAX_DVM_OPS limit applies (__flush_tlb_range_limit_excess()).
 *
 * With LPA2 in use (6.12 on; sid's 7.2 builds 52-bit VAs and uses it
 * where the CPU has FEAT_LPA2) a range operation must start 64K-aligned:
 * the 6.12 and 7.2 loops first issue single TLBIs up to that boundary.
 */
enum tlbp_tlbi_loop {
	TLBP_TLBI_LOOP_61,
	TLBP_TLBI_LOOP_612,
	TLBP_TLBI_LOOP_72,
	TLBP_TLBI_NR_LOOPS
};

/* The kernel a loop is transcribed from: "6.1", "6.12", "7.2". */
const char *tlbp_tlbi_loop_name(enum tlbp_tlbi_loop loop);

/*
 * tlbp_tlbi_ops() of a range the kernel does not invalidate by address:
 * it flushes the whole ASID instead (far above any threshold).
 */
#define TLBP_TLBI_ASID_FLUSH	(~0UL >> 1)

/* ID_AA64ISAR0_EL1.TLB, bits 59:56 */
#define TLBP_ISAR0_TLB_SHIFT	56
#define TLBP_ISAR0_TLB_OS	1	/* TLBI *OS: outer shareable */
#define TLBP_ISAR0_TLB_RANGE	2	/* and TLBI R*: FEAT_TLBIRANGE */

struct tlbp_tlbi_range {
	u64 baddr;		/* base address >> page shift, 37 bits */
	unsigned int ttl;	/* level hint, 0: any */
	unsigned int num;
	unsigned int scale;
	unsigned int tg;
	unsigned int asid;
};

/* The TG code of a page size given as its shift (12, 14, 16); 0 if none. */
unsigned int tlbp_tlbi_tg(unsigned int page_shift);

/* __TLBI_VADDR(addr, asid): the operand of TLBI VAE1IS, VALE1IS. */
u64 tlbp_tlbi_vaddr(u64 addr, unsigned int asid);

/* __TLBI_VADDR_RANGE(addr, asid, scale, num, ttl) for pages of 1 << @page_shift. */
u64 tlbp_tlbi_vaddr_range(u64 addr, unsigned int page_shift, unsigned int asid,
			  unsigned int scale, unsigned int num, unsigned int ttl);

void tlbp_tlbi_range_decode(u64 op, struct tlbp_tlbi_range *r);

/* Pages a range operand covers: (num + 1) << (5 * scale + 1). */
unsigned long tlbp_tlbi_range_pages(const struct tlbp_tlbi_range *r);

/* The FEAT_TLBIRANGE level of an ID_AA64ISAR0_EL1 value: 0, 1 or 2. */
unsigned int tlbp_isar0_tlb(u64 isar0);

/* What the count depends on besides the range: kernel, page size, CPU. */
struct tlbp_tlbi_cfg {
	enum tlbp_tlbi_loop loop;
	unsigned int page_shift;	/* PAGE_SHIFT: 12, 14 or 16 */
	bool range;			/* system_supports_tlb_range() */
	bool lpa2;			/* lpa2_is_enabled() */
};

/*
 * The TLBI operations the kernel's __flush_tlb_range() issues for a range
 * from @start, @pages long (both already rounded to the stride), at a
 * stride of 1 << @stride_order pages; TLBP_TLBI_ASID_FLUSH when it
 * flushes the ASID instead.  Each operation is doubled with KPTI (the
 * user ASID), not counted here.
 */
unsigned long tlbp_tlbi_ops(const struct tlbp_tlbi_cfg *c, u64 start,
			    unsigned long pages, unsigned int stride_order);

/* The most operations the loop ever issues for one range. */
unsigned long tlbp_tlbi_stock_max(const struct tlbp_tlbi_cfg *c);

#endif /* _TLBPATH_TLBI_H */
