// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the arm64 TLBI operand encoding and of the count of TLBI
 * operations __flush_tlb_range() issues, against a transcription of each
 * kernel's loop from Debian's arm64 headers: 6.1's, 6.12's
 * __flush_tlb_range_op() and 7.2's (sid) function of that name.
 */
#include "tap.h"
#include "tlbpath/tlbi.h"

#define PG	12
#define PMD_ORDER	9	/* 2M stride in 4K pages */
#define PUD_ORDER	18	/* 1G stride */
#define PTRS	512	/* MAX_TLBI_OPS (6.1), MAX_DVM_OPS (6.12, 7.2): PTRS_PER_PTE */

/* One range TLBI as the loops make it; checks the operand's base. */
static int range_op(unsigned long *addr, unsigned long *pages, int scale,
		    int num, u64 *last)
{
	struct tlbp_tlbi_range r;
	u64 op = tlbp_tlbi_vaddr_range(*addr, PG, 1, scale, num, 0);

	tlbp_tlbi_range_decode(op, &r);
	if (r.baddr != ((*addr >> PG) & ((1ULL << 37) - 1)))
		return -2;
	*addr += tlbp_tlbi_range_pages(&r) << PG;
	*pages -= tlbp_tlbi_range_pages(&r);
	if (last)
		*last = op;
	return 0;
}

/*
 * 6.1's __flush_tlb_range() after its rounding, one TLBI at a time:
 * returns the operations (-1: the ASID is flushed instead), checks that
 * they cover [start, start + pages) exactly and in order, and keeps the
 * last range operand in *last.
 */
static long kernel_loop_61(unsigned long start, unsigned long pages,
			   unsigned int stride_order, bool range, u64 *last)
{
	unsigned long stride = 1UL << (stride_order + PG);
	unsigned long addr = start;
	int scale = 0, num;
	long ops = 0;

	if ((!range && (pages << PG) >= PTRS * stride) ||
	    pages >= TLBP_TLBI_MAX_RANGE_PAGES)
		return -1;
	while (pages > 0) {
		if (!range || pages % 2 == 1) {
			addr += stride;
			pages -= stride >> PG;
			ops++;
			continue;
		}
		num = (int)((pages >> (5 * scale + 1)) & 31) - 1;
		if (num >= 0) {
			if (range_op(&addr, &pages, scale, num, last))
				return -2;
			ops++;
		}
		if (++scale > 4)
			return -3;	/* the kernel would loop for ever */
	}
	if (addr != start + ((addr - start) >> PG << PG))
		return -4;
	return ops;
}

/*
 * The same for 6.12's __flush_tlb_range_nosync() and its
 * __flush_tlb_range_op() macro, without LPA2 (lpa2_is_enabled() is false
 * with 48-bit VAs, as Debian builds them): scale counts down from 3 and
 * __TLBI_RANGE_NUM() clamps pages to __TLBI_RANGE_PAGES(31, scale).
 */
static long kernel_loop_612(unsigned long start, unsigned long pages,
			   unsigned int stride_order, bool range, u64 *last)
{
	unsigned long stride = 1UL << (stride_order + PG);
	unsigned long addr = start, clamp;
	int scale = 3, num;
	long ops = 0;

	if ((!range && (pages << PG) >= PTRS * stride) ||
	    pages > TLBP_TLBI_MAX_RANGE_PAGES)
		return -1;
	while (pages > 0) {
		if (!range || pages == 1) {
			addr += stride;
			pages -= stride >> PG;
			ops++;
			continue;
		}
		if (scale < 0)
			return -3;	/* __TLBI_RANGE_NUM(pages, -1) */
		clamp = TLBP_TLBI_RANGE_PAGES(31, scale);
		num = (int)((pages < clamp ? pages : clamp) >> (5 * scale + 1)) - 1;
		if (num >= 0) {
			if (range_op(&addr, &pages, scale, num, last))
				return -2;
			ops++;
		}
		scale--;
	}
	if (addr != start + ((addr - start) >> PG << PG))
		return -4;
	return ops;
}

/*
 * 7.2's __do_flush_tlb_range(): __flush_tlb_range_limit_excess(), then the
 * __flush_tlb_range_op() function (no LPA2), which counts what is left
 * from the address and no longer clamps __TLBI_RANGE_NUM().
 */
static long kernel_loop_72(unsigned long start, unsigned long pages,
			   unsigned int stride_order, bool range, u64 *last)
{
	unsigned long stride = 1UL << (stride_order + PG);
	unsigned long addr = start, end = start + (pages << PG);
	int scale = 3, num;
	long ops = 0;

	if (range ? pages > TLBP_TLBI_MAX_RANGE_PAGES :
		    pages >= (PTRS * stride) >> PG)
		return -1;
	while (addr != end) {
		pages = (end - addr) >> PG;
		if (!range || pages == 1) {
			addr += stride;
			ops++;
			continue;
		}
		if (scale < 0)
			return -3;
		num = (int)(pages >> (5 * scale + 1)) - 1;
		if (num >= 0) {
			if (range_op(&addr, &pages, scale, num, last))
				return -2;
			ops++;
		}
		scale--;
	}
	return ops;
}

typedef long (*loop_fn)(unsigned long, unsigned long, unsigned int, bool, u64 *);

static const loop_fn loops[TLBP_TLBI_NR_LOOPS] = {
	[TLBP_TLBI_LOOP_61] = kernel_loop_61,
	[TLBP_TLBI_LOOP_612] = kernel_loop_612,
	[TLBP_TLBI_LOOP_72] = kernel_loop_72,
};

/* The model against loop @l for @pages at @order: 0 if they agree. */
static int differs(enum tlbp_tlbi_loop l, unsigned long pages, unsigned int order,
		   bool range)
{
	long want = loops[l](0x400000, pages, order, range, NULL);
	unsigned long got = tlbp_tlbi_ops(l, pages, order, PG, range);

	if (want == -1)
		return got != TLBP_TLBI_ASID_FLUSH;
	return want < 0 || got != (unsigned long)want;
}

static void ops_eq(unsigned long pages, unsigned int order, bool range,
		   unsigned long want)
{
	tap_eq(tlbp_tlbi_ops(TLBP_TLBI_LOOP_61, pages, order, PG, range), want,
	       "6.1: %lu pages, stride order %u, %s: %lu TLBI ops", pages, order,
	       range ? "range" : "no range", want);
}

int main(void)
{
	struct tlbp_tlbi_range r;
	unsigned long n, bad;
	u64 op, last = 0;
	int i;

	tap_plan(76);

	/* Granules */
	tap_eq(tlbp_tlbi_tg(12), 1, "TG of 4K is 1");
	tap_eq(tlbp_tlbi_tg(14), 2, "TG of 16K is 2");
	tap_eq(tlbp_tlbi_tg(16), 3, "TG of 64K is 3");
	tap_eq(tlbp_tlbi_tg(13), 0, "no TG for 8K");

	/* __TLBI_VADDR: 4K units whatever the page size, ASID on top */
	tap_eq(tlbp_tlbi_vaddr(0x7f0000201000UL, 0x42), 0x420007f0000201ULL,
	       "VAE1IS operand of 0x7f0000201000, ASID 0x42");
	tap_eq(tlbp_tlbi_vaddr(~0ULL, 0), (1ULL << 44) - 1, "VAE1IS address is 44 bits");
	tap_eq(tlbp_tlbi_vaddr(0, 0xffff) >> 48, 0xffff, "16-bit ASID in 63:48");

	/* Worked example: 8 pages of 2 * 4 at scale 1 from 0x7f0000200000. */
	op = tlbp_tlbi_vaddr_range(0x7f0000200000UL, PG, 0x42, 1, 3, 3);
	tap_eq(op, 0x4251e7f0000200ULL, "RVAE1IS operand: ASID 0x42 TG 1 SCALE 1 NUM 3 TTL 3");
	tlbp_tlbi_range_decode(op, &r);
	tap_eq(r.baddr, 0x7f0000200ULL, "decode: BADDR");
	tap_eq(r.ttl, 3, "decode: TTL");
	tap_eq(r.num, 3, "decode: NUM");
	tap_eq(r.scale, 1, "decode: SCALE");
	tap_eq(r.tg, 1, "decode: TG");
	tap_eq(r.asid, 0x42, "decode: ASID");
	tap_eq(tlbp_tlbi_range_pages(&r), 4 * 64, "NUM 3 at SCALE 1 covers 4 * 2^6 pages");
	op = tlbp_tlbi_vaddr_range(1ULL << 49, PG, 0, 0, 0, 0);
	tap_eq(op & ((1ULL << 37) - 1), 0, "BADDR keeps 37 bits of the page number");
	op = tlbp_tlbi_vaddr_range(0x10000UL, 16, 7, 3, 31, 0);
	tlbp_tlbi_range_decode(op, &r);
	tap_ok(r.baddr == 1 && r.tg == 3 && r.scale == 3 && r.num == 31 && r.asid == 7,
	       "64K pages: BADDR in 64K units, TG 3");
	tap_eq(tlbp_tlbi_range_pages(&r), TLBP_TLBI_MAX_RANGE_PAGES,
	       "NUM 31 at SCALE 3 is MAX_TLBI_RANGE_PAGES");
	tap_eq(TLBP_TLBI_MAX_RANGE_PAGES, 1UL << 21, "MAX_TLBI_RANGE_PAGES is 2^21");
	tap_eq(tlbp_tlbi_range_pages(&(struct tlbp_tlbi_range){ .num = 0 }), 2,
	       "the smallest range is 2 pages");

	/* ID_AA64ISAR0_EL1.TLB */
	tap_eq(tlbp_isar0_tlb(0), 0, "ISAR0 TLB field 0: no TLBIOS, no range");
	tap_eq(tlbp_isar0_tlb(2ULL << 56), TLBP_ISAR0_TLB_RANGE, "ISAR0 TLB field 2: FEAT_TLBIRANGE");
	tap_eq(tlbp_isar0_tlb(0x1021111110212120ULL), 0, "Neoverse-N1-like ISAR0: no range");
	tap_eq(tlbp_isar0_tlb(0x0221111110212120ULL), 2, "an ISAR0 with TLB=2: range");

	/* Worked examples with range operations */
	ops_eq(0, 0, true, 0);
	ops_eq(1, 0, true, 1);
	ops_eq(2, 0, true, 1);
	ops_eq(3, 0, true, 2);
	ops_eq(33, 0, true, 2);
	ops_eq(64, 0, true, 1);
	ops_eq(65, 0, true, 2);
	ops_eq(512, 0, true, 1);
	ops_eq(1000, 0, true, 2);
	ops_eq(62, 0, true, 1);
	ops_eq(63, 0, true, 2);
	ops_eq((1UL << 21) - 1, 0, true, 5);
	ops_eq(1UL << 21, 0, true, TLBP_TLBI_ASID_FLUSH);
	ops_eq(512 * 1024, PMD_ORDER, true, 1);
	tap_eq(tlbp_tlbi_stock_max(PG, true), 5, "with range: at most 5 TLBI ops per flush");

	/* Without */
	ops_eq(1, 0, false, 1);
	ops_eq(511, 0, false, 511);
	ops_eq(512, 0, false, TLBP_TLBI_ASID_FLUSH);
	ops_eq(512 * 511, PMD_ORDER, false, 511);
	ops_eq(512 * 512, PMD_ORDER, false, TLBP_TLBI_ASID_FLUSH);
	tap_eq(tlbp_tlbi_stock_max(PG, false), 511, "without range: at most 511 TLBI ops");
	tap_eq(tlbp_tlbi_stock_max(16, false), 8191, "without range, 64K pages: 8191");

	/* 6.12 and 7.2: MAX_TLBI_RANGE_PAGES is one range op. */
	for (i = TLBP_TLBI_LOOP_612; i <= TLBP_TLBI_LOOP_72; i++) {
		tap_eq(tlbp_tlbi_ops(i, 1UL << 21, 0, PG, true), 1,
		       "%s: 2^21 pages, range: 1 TLBI op", tlbp_tlbi_loop_name(i));
		tap_eq(tlbp_tlbi_ops(i, (1UL << 21) + 2, 0, PG, true), TLBP_TLBI_ASID_FLUSH,
		       "%s: 2^21 + 2 pages, range: the ASID", tlbp_tlbi_loop_name(i));
		tap_eq(tlbp_tlbi_ops(i, 512, 0, PG, false), TLBP_TLBI_ASID_FLUSH,
		       "%s: 512 pages, no range: the ASID (MAX_DVM_OPS)", tlbp_tlbi_loop_name(i));
	}
	/* Without range, 6.12 keeps the range limit, 7.2 only MAX_DVM_OPS. */
	tap_eq(tlbp_tlbi_ops(TLBP_TLBI_LOOP_612, 9UL << PUD_ORDER, PUD_ORDER, PG, false),
	       TLBP_TLBI_ASID_FLUSH, "6.12: 9 PUDs, no range: the ASID (past 2^21 pages)");
	tap_eq(tlbp_tlbi_ops(TLBP_TLBI_LOOP_72, 9UL << PUD_ORDER, PUD_ORDER, PG, false), 9,
	       "7.2: 9 PUDs, no range: 9 TLBI ops");

	/* Against each kernel's loop, for every size up to its limit and past it */
	for (i = 0; i < TLBP_TLBI_NR_LOOPS; i++) {
		for (bad = 0, n = 0; n <= TLBP_TLBI_MAX_RANGE_PAGES + 2; n++)
			bad += differs(i, n, 0, true);
		tap_eq(bad, 0, "%s, range: the count matches the loop for 0..2^21 + 2 pages",
		       tlbp_tlbi_loop_name(i));
		for (bad = 0, n = 0; n <= 2 * PTRS; n++)
			bad += differs(i, n, 0, false);
		tap_eq(bad, 0, "%s, no range: the count matches the loop for 0..1024 pages",
		       tlbp_tlbi_loop_name(i));
		for (bad = 0, n = 0; n <= 4100; n++)
			bad += differs(i, n << PMD_ORDER, PMD_ORDER, true) +
			       differs(i, n << PMD_ORDER, PMD_ORDER, false);
		tap_eq(bad, 0, "%s, 2M stride: the count matches the loop for 0..4100 PMDs",
		       tlbp_tlbi_loop_name(i));
		for (bad = 0, n = 0; n <= 520; n++)
			bad += differs(i, n << PUD_ORDER, PUD_ORDER, true) +
			       differs(i, n << PUD_ORDER, PUD_ORDER, false);
		tap_eq(bad, 0, "%s, 1G stride: the count matches the loop for 0..520 PUDs",
		       tlbp_tlbi_loop_name(i));
	}
	tap_eq(kernel_loop_61(0, (1UL << 21) - 2, 0, true, &last), 4,
	       "6.1: 2^21 - 2 pages: four range ops");
	tlbp_tlbi_range_decode(last, &r);
	tap_ok(r.scale == 3 && r.num == 30, "the last one at SCALE 3, NUM 30 (the loop never uses 31)");
	for (i = TLBP_TLBI_LOOP_612; i <= TLBP_TLBI_LOOP_72; i++) {
		tap_eq(loops[i](0, 1UL << 21, 0, true, &last), 1,
		       "%s: 2^21 pages: one range op", tlbp_tlbi_loop_name(i));
		tlbp_tlbi_range_decode(last, &r);
		tap_ok(r.scale == 3 && r.num == 31, "%s: at SCALE 3, NUM 31", tlbp_tlbi_loop_name(i));
		tap_eq(loops[i](0, 67, 0, true, &last), 3,
		       "%s: 67 pages: 64, 2, then 1 alone", tlbp_tlbi_loop_name(i));
		tlbp_tlbi_range_decode(last, &r);
		tap_ok(r.scale == 0 && r.num == 0, "%s: the last range op is 2 pages at SCALE 0",
		       tlbp_tlbi_loop_name(i));
	}
	return tap_done();
}
