// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 TLBI operands and operation counts, as each kernel's
 * __flush_tlb_range() makes them.  Pure C: no kernel headers.
 */
#include "tlbpath/tlbi.h"

#define MASK(bits)	((1ULL << (bits)) - 1)

unsigned int tlbp_tlbi_tg(unsigned int page_shift)
{
	switch (page_shift) {
	case 12:
		return TLBP_TG_4K;
	case 14:
		return TLBP_TG_16K;
	case 16:
		return TLBP_TG_64K;
	default:
		return 0;
	}
}

u64 tlbp_tlbi_vaddr(u64 addr, unsigned int asid)
{
	/* Always in 4K units, whatever the page size: bits 43:0. */
	return ((addr >> 12) & MASK(44)) | ((u64)(asid & 0xffff) << 48);
}

u64 tlbp_tlbi_vaddr_range(u64 addr, unsigned int page_shift, unsigned int asid,
			  unsigned int scale, unsigned int num, unsigned int ttl)
{
	u64 ta = (addr >> page_shift) & MASK(37);

	ta |= (u64)(ttl & 3) << 37;
	ta |= (u64)(num & 31) << 39;
	ta |= (u64)(scale & 3) << 44;
	ta |= (u64)tlbp_tlbi_tg(page_shift) << 46;
	ta |= (u64)(asid & 0xffff) << 48;
	return ta;
}

void tlbp_tlbi_range_decode(u64 op, struct tlbp_tlbi_range *r)
{
	r->baddr = op & MASK(37);
	r->ttl = (op >> 37) & 3;
	r->num = (op >> 39) & 31;
	r->scale = (op >> 44) & 3;
	r->tg = (op >> 46) & 3;
	r->asid = (op >> 48) & 0xffff;
}

unsigned long tlbp_tlbi_range_pages(const struct tlbp_tlbi_range *r)
{
	return TLBP_TLBI_RANGE_PAGES(r->num, r->scale);
}

unsigned int tlbp_isar0_tlb(u64 isar0)
{
	return (isar0 >> TLBP_ISAR0_TLB_SHIFT) & 0xf;
}

const char *tlbp_tlbi_loop_name(enum tlbp_tlbi_loop loop)
{
	static const char *const name[TLBP_TLBI_NR_LOOPS] = {
		[TLBP_TLBI_LOOP_61] = "6.1",
		[TLBP_TLBI_LOOP_612] = "6.12",
		[TLBP_TLBI_LOOP_72] = "7.2",
	};

	return loop < TLBP_TLBI_NR_LOOPS ? name[loop] : "?";
}

/* MAX_TLBI_OPS, later MAX_DVM_OPS: PTRS_PER_PTE, a page of 8-byte descriptors. */
static unsigned long max_tlbi_ops(unsigned int page_shift)
{
	return 1UL << (page_shift - 3);
}

/*
 * Under LPA2 a range operation starts 64K-aligned: the most pages the
 * 6.12 and 7.2 loops flush one by one before (15 of 4K, 3 of 16K); as a
 * mask of the page number.  0 without LPA2 (64K pages never use it).
 */
static unsigned long lpa2_lead_max(const struct tlbp_tlbi_cfg *c)
{
	if (!c->lpa2 || c->loop == TLBP_TLBI_LOOP_61 || c->page_shift >= 16)
		return 0;
	return (1UL << (16 - c->page_shift)) - 1;
}

/* Whether the loop flushes the ASID instead of the range (tlbi.h). */
static bool limit_excess(const struct tlbp_tlbi_cfg *c, unsigned long pages,
			 unsigned int stride_order)
{
	/* The most pages a range flush takes: 6.1 stops one short of 2^21. */
	unsigned long most = TLBP_TLBI_MAX_RANGE_PAGES - (c->loop == TLBP_TLBI_LOOP_61);

	if (c->range)
		return pages > most;
	return pages >= max_tlbi_ops(c->page_shift) << stride_order ||
	       (c->loop != TLBP_TLBI_LOOP_72 && pages > most);
}

/*
 * Without range operations the loop issues one TLBI per stride.  With
 * them, an odd page count costs one TLBI for one page, and the even rest
 * one range TLBI per non-zero 5-bit digit of pages / 2: 6.1's loop takes
 * scale 0, 1, 2, 3 in turn, the later ones 3, 2, 1, 0, and at each
 * flushes __TLBI_RANGE_NUM(pages, scale) + 1 units of 2^(5 * scale + 1)
 * pages; which page goes alone, first or last, does not change the count,
 * and 2^21 pages (6.12 on) are the one fifth digit.  Under LPA2 the pages
 * before the first 64K boundary go one by one first; the range operations
 * after them keep that alignment but for the last, whose odd page is
 * single anyway.  No division and at most five iterations: this runs in
 * the hook.
 */
unsigned long tlbp_tlbi_ops(const struct tlbp_tlbi_cfg *c, u64 start,
			    unsigned long pages, unsigned int stride_order)
{
	unsigned long ops, rest;

	if (limit_excess(c, pages, stride_order))
		return TLBP_TLBI_ASID_FLUSH;
	if (!c->range)
		return (pages + (1UL << stride_order) - 1) >> stride_order;
	/* Under LPA2, single TLBIs up to the next 64K boundary. */
	ops = -(start >> c->page_shift) & lpa2_lead_max(c);
	if (ops > pages)
		ops = pages;
	pages -= ops;
	ops += pages & 1;
	for (rest = pages >> 1; rest; rest >>= 5)
		ops += (rest & 31) != 0;
	return ops;
}

unsigned long tlbp_tlbi_stock_max(const struct tlbp_tlbi_cfg *c)
{
	if (!c->range)
		return max_tlbi_ops(c->page_shift) - 1;
	/*
	 * An odd page and four non-zero digits: 2^21 - 1 pages, every loop;
	 * under LPA2 after up to 15 leading pages (the kernel's own "worst
	 * case number of DVM ops" is 20).
	 */
	return 1 + TLBP_TLBI_MAX_SCALE + 1 + lpa2_lead_max(c);
}
