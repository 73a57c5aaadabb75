// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the arm64 TLBI operand encoding and of the count of TLBI
 * operations __flush_tlb_range() issues, against a transcription of each
 * kernel's loop from Debian's arm64 headers: 6.1's, 6.12's
 * __flush_tlb_range_op() macro and 7.2's (sid) function of that name,
 * with and without LPA2.
 */
#include <string.h>
#include "tap.h"
#include "tlbpath/tlbi.h"

#define PG	12
#define PMD_ORDER	9	/* 2M stride in 4K pages */
#define PUD_ORDER	18	/* 1G stride */
#define PTRS	512	/* MAX_TLBI_OPS (6.1), MAX_DVM_OPS (6.12, 7.2): PTRS_PER_PTE */
#define SZ_64K	0x10000UL

/* One flush as __flush_tlb_range() gets it, after its rounding. */
struct flush {
	unsigned long start, pages;
	unsigned int order;	/* stride: 1 << order pages */
	bool range;		/* system_supports_tlb_range() */
	bool lpa2;		/* lpa2_is_enabled() (6.12 on) */
};

/*
 * One range TLBI as the loops make it: checks the operand's base (as
 * encoded without LPA2) and, under LPA2, the 64K alignment the kernel
 * relies on; advances *addr and takes the pages off *pages.
 */
static int range_op(const struct flush *f, unsigned long *addr, unsigned long *pages,
		    int scale, int num, u64 *last)
{
	struct tlbp_tlbi_range r;
	u64 op = tlbp_tlbi_vaddr_range(*addr, PG, 1, scale, num, 0);

	tlbp_tlbi_range_decode(op, &r);
	if (r.baddr != ((*addr >> PG) & ((1ULL << 37) - 1)))
		return -2;
	if (f->lpa2 && (*addr & (SZ_64K - 1)))
		return -5;
	*addr += tlbp_tlbi_range_pages(&r) << PG;
	*pages -= tlbp_tlbi_range_pages(&r);
	if (last)
		*last = op;
	return 0;
}

/*
 * 6.1's __flush_tlb_range(), one TLBI at a time: returns the operations
 * (-1: the ASID is flushed instead, below -1: the transcription went
 * wrong), checks that they cover the range exactly and in order, and
 * keeps the last range operand in *last.  6.1 has no LPA2.
 */
static long kernel_loop_61(struct flush f, u64 *last)
{
	unsigned long stride = 1UL << (f.order + PG);
	unsigned long addr = f.start, pages = f.pages;
	int scale = 0, num;
	long ops = 0;

	if ((!f.range && (pages << PG) >= PTRS * stride) ||
	    pages >= TLBP_TLBI_MAX_RANGE_PAGES)
		return -1;
	while (pages > 0) {
		if (!f.range || pages % 2 == 1) {
			addr += stride;
			pages -= stride >> PG;
			ops++;
			continue;
		}
		num = (int)((pages >> (5 * scale + 1)) & 31) - 1;
		if (num >= 0) {
			if (range_op(&f, &addr, &pages, scale, num, last))
				return -2;
			ops++;
		}
		if (++scale > 4)
			return -3;	/* the kernel would loop for ever */
	}
	return addr == f.start + (f.pages << PG) ? ops : -4;
}

/*
 * 6.12's __flush_tlb_range_nosync() and its __flush_tlb_range_op()
 * macro: scale counts down from 3, __TLBI_RANGE_NUM() clamps pages to
 * __TLBI_RANGE_PAGES(31, scale), and under LPA2 pages go one by one
 * while the address is not 64K-aligned.
 */
static long kernel_loop_612(struct flush f, u64 *last)
{
	unsigned long stride = 1UL << (f.order + PG);
	unsigned long addr = f.start, pages = f.pages, clamp;
	int scale = 3, num;
	long ops = 0;

	if ((!f.range && (pages << PG) >= PTRS * stride) ||
	    pages > TLBP_TLBI_MAX_RANGE_PAGES)
		return -1;
	while (pages > 0) {
		if (!f.range || pages == 1 || (f.lpa2 && (addr & (SZ_64K - 1)))) {
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
			if (range_op(&f, &addr, &pages, scale, num, last))
				return -2;
			ops++;
		}
		scale--;
	}
	return addr == f.start + (f.pages << PG) ? ops : -4;
}

/*
 * 7.2's __do_flush_tlb_range(): __flush_tlb_range_limit_excess(), then
 * the __flush_tlb_range_op() function, which counts what is left from
 * the address and no longer clamps __TLBI_RANGE_NUM().
 */
static long kernel_loop_72(struct flush f, u64 *last)
{
	unsigned long stride = 1UL << (f.order + PG);
	unsigned long addr = f.start, end = f.start + (f.pages << PG), pages;
	int scale = 3, num;
	long ops = 0;

	if (f.range ? f.pages > TLBP_TLBI_MAX_RANGE_PAGES :
		      f.pages >= (PTRS * stride) >> PG)
		return -1;
	while (addr != end) {
		pages = (end - addr) >> PG;
		if (!f.range || pages == 1 || (f.lpa2 && (addr & (SZ_64K - 1)))) {
			addr += stride;
			ops++;
			continue;
		}
		if (scale < 0)
			return -3;
		num = (int)(pages >> (5 * scale + 1)) - 1;
		if (num >= 0) {
			if (range_op(&f, &addr, &pages, scale, num, last))
				return -2;
			ops++;
		}
		scale--;
	}
	return ops;
}

typedef long (*loop_fn)(struct flush, u64 *);

static const loop_fn loops[TLBP_TLBI_NR_LOOPS] = {
	[TLBP_TLBI_LOOP_61] = kernel_loop_61,
	[TLBP_TLBI_LOOP_612] = kernel_loop_612,
	[TLBP_TLBI_LOOP_72] = kernel_loop_72,
};

static struct tlbp_tlbi_cfg cfg(int loop, bool range, bool lpa2)
{
	return (struct tlbp_tlbi_cfg){ .loop = loop, .page_shift = PG,
				       .range = range, .lpa2 = lpa2 };
}

/*
 * The model against the loop for one flush: 0 if they agree; the most
 * operations the loop issued so far in *worst.
 */
static int differs_worst(int loop, struct flush f, unsigned long *worst)
{
	struct tlbp_tlbi_cfg c = cfg(loop, f.range, f.lpa2);
	long want = loops[loop](f, NULL);
	unsigned long got = tlbp_tlbi_ops(&c, f.start, f.pages, f.order);

	if (want == -1)
		return got != TLBP_TLBI_ASID_FLUSH;
	if (want > (long)*worst)
		*worst = want;
	return want < 0 || got != (unsigned long)want;
}

static int differs(int loop, struct flush f)
{
	unsigned long worst = 0;

	return differs_worst(loop, f, &worst);
}

static unsigned long ops_of(int loop, bool range, bool lpa2, unsigned long start,
			    unsigned long pages, unsigned int order)
{
	struct tlbp_tlbi_cfg c = cfg(loop, range, lpa2);

	return tlbp_tlbi_ops(&c, start, pages, order);
}

static unsigned long stock_of(int loop, bool range, bool lpa2, unsigned int page_shift)
{
	struct tlbp_tlbi_cfg c = cfg(loop, range, lpa2);

	c.page_shift = page_shift;
	return tlbp_tlbi_stock_max(&c);
}

static void ops_eq(unsigned long pages, unsigned int order, bool range,
		   unsigned long want)
{
	tap_eq(ops_of(TLBP_TLBI_LOOP_61, range, false, 0, pages, order), want,
	       "6.1: %lu pages, stride order %u, %s: %lu TLBI ops", pages, order,
	       range ? "range" : "no range", want);
}

int main(void)
{
	struct tlbp_tlbi_range r;
	unsigned long n, bad, worst, off;
	u64 op, last = 0;
	int i, lpa2;

	tap_plan(93);

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
	tap_eq(stock_of(TLBP_TLBI_LOOP_61, true, false, PG), 5,
	       "with range: at most 5 TLBI ops per flush");

	/* Without */
	ops_eq(1, 0, false, 1);
	ops_eq(511, 0, false, 511);
	ops_eq(512, 0, false, TLBP_TLBI_ASID_FLUSH);
	ops_eq(512 * 511, PMD_ORDER, false, 511);
	ops_eq(512 * 512, PMD_ORDER, false, TLBP_TLBI_ASID_FLUSH);
	tap_eq(stock_of(TLBP_TLBI_LOOP_61, false, false, PG), 511,
	       "without range: at most 511 TLBI ops");
	tap_eq(stock_of(TLBP_TLBI_LOOP_61, false, false, 16), 8191,
	       "without range, 64K pages: 8191");

	/* 6.12 and 7.2: MAX_TLBI_RANGE_PAGES is one range op. */
	for (i = TLBP_TLBI_LOOP_612; i <= TLBP_TLBI_LOOP_72; i++) {
		tap_eq(ops_of(i, true, false, 0, 1UL << 21, 0), 1,
		       "%s: 2^21 pages, range: 1 TLBI op", tlbp_tlbi_loop_name(i));
		tap_eq(ops_of(i, true, false, 0, (1UL << 21) + 2, 0), TLBP_TLBI_ASID_FLUSH,
		       "%s: 2^21 + 2 pages, range: the ASID", tlbp_tlbi_loop_name(i));
		tap_eq(ops_of(i, false, false, 0, 512, 0), TLBP_TLBI_ASID_FLUSH,
		       "%s: 512 pages, no range: the ASID (MAX_DVM_OPS)", tlbp_tlbi_loop_name(i));
		tap_eq(ops_of(i, true, true, 0x7000, 64, 0), 9 + 2,
		       "%s, LPA2: 64 pages from 0x7000: 9 single to 64K, then 54 and 1",
		       tlbp_tlbi_loop_name(i));
		tap_eq(ops_of(i, true, true, 0x10000, 64, 0), 1,
		       "%s, LPA2: 64 pages from 64K: 1 TLBI op", tlbp_tlbi_loop_name(i));
		tap_eq(stock_of(i, true, true, PG), 20,
		       "%s, LPA2: at most 20 TLBI ops per flush", tlbp_tlbi_loop_name(i));
	}
	tap_eq(ops_of(TLBP_TLBI_LOOP_61, true, true, 0x7000, 64, 0), 1,
	       "6.1 has no LPA2: 64 pages from 0x7000 are 1 TLBI op");
	tap_eq(stock_of(TLBP_TLBI_LOOP_612, false, true, PG), 511,
	       "LPA2 without range: 511 TLBI ops");
	tap_eq(stock_of(TLBP_TLBI_LOOP_72, true, true, 16), 5,
	       "LPA2 with 64K pages (it has none): 5 TLBI ops");
	/* Without range, 6.12 keeps the range limit, 7.2 only MAX_DVM_OPS. */
	tap_eq(ops_of(TLBP_TLBI_LOOP_612, false, false, 0, 9UL << PUD_ORDER, PUD_ORDER),
	       TLBP_TLBI_ASID_FLUSH, "6.12: 9 PUDs, no range: the ASID (past 2^21 pages)");
	tap_eq(ops_of(TLBP_TLBI_LOOP_72, false, false, 0, 9UL << PUD_ORDER, PUD_ORDER), 9,
	       "7.2: 9 PUDs, no range: 9 TLBI ops");

	/*
	 * Against each kernel's loop, for every size up to its limit and
	 * past it, keeping the most operations any flush took; with LPA2
	 * from 4K offsets 0, 1, 9 and 15 in a 64K block, and from every one
	 * up to 4096 pages (the offset only matters for the first 64K).
	 */
	for (i = 0; i < TLBP_TLBI_NR_LOOPS; i++) {
		const char *name = tlbp_tlbi_loop_name(i);

		for (lpa2 = 0; lpa2 <= (i != TLBP_TLBI_LOOP_61); lpa2++) {
			for (bad = 0, worst = 0, off = 0; off < (lpa2 ? 16 : 1); off++) {
				bool full = !lpa2 || off == 0 || off == 1 || off == 9 || off == 15;

				for (n = 0; n <= (full ? TLBP_TLBI_MAX_RANGE_PAGES + 2 : 4096); n++)
					bad += differs_worst(i, (struct flush){ 0x400000 + (off << PG),
						n, 0, true, lpa2 }, &worst);
			}
			tap_eq(bad, 0, "%s%s, range: the count matches the loop for 0..2^21 + 2 pages%s",
			       name, lpa2 ? ", LPA2" : "", lpa2 ? " from 4K offsets in 64K" : "");
			tap_eq(worst, stock_of(i, true, lpa2, PG),
			       "%s%s: the loop's most TLBI ops is stock_ceiling, %lu", name,
			       lpa2 ? ", LPA2" : "", worst);
		}
		for (bad = 0, n = 0; n <= 2 * PTRS; n++)
			bad += differs(i, (struct flush){ 0x400000, n, 0, false, false });
		tap_eq(bad, 0, "%s, no range: the count matches the loop for 0..1024 pages", name);
		for (bad = 0, n = 0; n <= 4100; n++)
			bad += differs(i, (struct flush){ 0, n << PMD_ORDER, PMD_ORDER, true, true }) +
			       differs(i, (struct flush){ 0, n << PMD_ORDER, PMD_ORDER, false, false });
		tap_eq(bad, 0, "%s, 2M stride: the count matches the loop for 0..4100 PMDs", name);
		for (bad = 0, n = 0; n <= 520; n++)
			bad += differs(i, (struct flush){ 0, n << PUD_ORDER, PUD_ORDER, true, false }) +
			       differs(i, (struct flush){ 0, n << PUD_ORDER, PUD_ORDER, false, false });
		tap_eq(bad, 0, "%s, 1G stride: the count matches the loop for 0..520 PUDs", name);
	}
	tap_eq(kernel_loop_61((struct flush){ 0, (1UL << 21) - 2, 0, true, false }, &last), 4,
	       "6.1: 2^21 - 2 pages: four range ops");
	tlbp_tlbi_range_decode(last, &r);
	tap_ok(r.scale == 3 && r.num == 30, "the last one at SCALE 3, NUM 30 (the loop never uses 31)");
	for (i = TLBP_TLBI_LOOP_612; i <= TLBP_TLBI_LOOP_72; i++) {
		tap_eq(loops[i]((struct flush){ 0, 1UL << 21, 0, true, false }, &last), 1,
		       "%s: 2^21 pages: one range op", tlbp_tlbi_loop_name(i));
		tlbp_tlbi_range_decode(last, &r);
		tap_ok(r.scale == 3 && r.num == 31, "%s: at SCALE 3, NUM 31", tlbp_tlbi_loop_name(i));
		tap_eq(loops[i]((struct flush){ 0, 67, 0, true, false }, &last), 3,
		       "%s: 67 pages: 64, 2, then 1 alone", tlbp_tlbi_loop_name(i));
		tlbp_tlbi_range_decode(last, &r);
		tap_ok(r.scale == 0 && r.num == 0, "%s: the last range op is 2 pages at SCALE 0",
		       tlbp_tlbi_loop_name(i));
	}
	tap_ok(!strcmp(tlbp_tlbi_loop_name(TLBP_TLBI_NR_LOOPS), "?"), "no name for no loop");
	return tap_done();
}
