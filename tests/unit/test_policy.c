// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the flush decision and the default threshold.
 */
#include <stdlib.h>
#include "tap.h"
#include "tlbpath/policy.h"

#define PAGE	12
#define PMD	21
#define PUD	30

static struct tlbp_decision decide(u32 threshold, bool enabled,
				   unsigned long start, unsigned long end,
				   unsigned int stride)
{
	struct tlbp_policy p = {
		.threshold = threshold, .cap = TLBP_CAP_DEFAULT,
		.stock = TLBP_STOCK_CEILING, .enabled = enabled,
	};
	struct tlbp_decision d;

	tlbp_decide(&p, start, end, stride, &d);
	return d;
}

static struct tlbp_geometry geo(u32 l1d, bool hv)
{
	struct tlbp_geometry g = { .l1d = { l1d }, .hypervisor = hv };

	return g;
}

int main(void)
{
	static const unsigned int strides[] = { PAGE, PMD, PUD };
	const unsigned long base = 0x7f0000000000ul;
	struct tlbp_decision d;
	struct tlbp_geometry g;
	unsigned int i, k;
	int bad;

	tap_plan(8 + 3 * 7 + 13 + 1);

	g = geo(64, false);
	tap_eq(tlbp_default_threshold(&g, 512), 33, "64-entry L1 dTLB gives the stock 33");
	g = geo(96, false);
	tap_eq(tlbp_default_threshold(&g, 512), 49, "96-entry L1 dTLB gives 49");
	g = geo(0, false);
	tap_eq(tlbp_default_threshold(&g, 512), 33, "unknown geometry falls back to 33");
	g = geo(64, true);
	tap_eq(tlbp_default_threshold(&g, 512), 33, "a hypervisor passing real leaves: used");
	g = geo(1024, false);
	tap_eq(tlbp_default_threshold(&g, 100), 100, "the cap bounds the default");
	g = geo(1, false);
	tap_eq(tlbp_default_threshold(&g, 512), 1, "a 1-entry TLB gives 1");
	g = geo(0, false);
	tap_eq(tlbp_default_threshold(&g, 8), 8, "the cap bounds the fallback too");
	tap_eq(TLBP_FLUSH_ALL, (unsigned long)-1, "TLBP_FLUSH_ALL is -1UL");

	for (k = 0; k < 3; k++) {
		unsigned int s = strides[k];
		unsigned long t = 40;

		d = decide(t, true, base, base + ((t - 1) << s), s);
		tap_ok(d.verdict == TLBP_PERPAGE && d.invalidations == t - 1,
		       "stride %u: threshold-1 entries kept", s);
		d = decide(t, true, base, base + (t << s), s);
		tap_ok(d.verdict == TLBP_PERPAGE && d.invalidations == t,
		       "stride %u: threshold entries kept", s);
		tap_ok(d.stock_full, "stride %u: 40 entries, stock would flush all", s);
		d = decide(t, true, base, base + ((t + 1) << s), s);
		tap_ok(d.verdict == TLBP_WIDEN && d.invalidations == 0,
		       "stride %u: threshold+1 entries widened", s);
		d = decide(t, true, base, base + (33ul << s), s);
		tap_ok(!d.stock_full, "stride %u: 33 entries, stock keeps them", s);
		d = decide(t, true, base, base + (34ul << s), s);
		tap_ok(d.stock_full, "stride %u: 34 entries, stock would flush all", s);
		/* 40 entries of 2M counted at 4K would be 20480: widened. */
		d = decide(t, true, base, base + (t << s), PAGE);
		tap_ok(s == PAGE ? d.verdict == TLBP_PERPAGE : d.verdict == TLBP_WIDEN,
		       "stride %u range counted at 4K follows the 4K count", s);
	}

	d = decide(33, true, 0, TLBP_FLUSH_ALL, PAGE);
	tap_ok(d.verdict == TLBP_CALLER_FULL && d.stock_full && d.reason == TLBP_WHY_CALLER,
	       "TLB_FLUSH_ALL stays full, because the caller asked");
	d = decide(TLBP_CAP_DEFAULT, true, base, TLBP_FLUSH_ALL, PAGE);
	tap_ok(d.verdict == TLBP_CALLER_FULL, "TLB_FLUSH_ALL is never made a range");
	d = decide(0, true, base, base + 4096, PAGE);
	tap_ok(d.verdict == TLBP_WIDEN, "threshold 0 widens one page");
	d = decide(0, true, base, base, PAGE);
	tap_ok(d.verdict == TLBP_PERPAGE && d.invalidations == 0, "an empty range flushes nothing");
	d = decide(1, true, base, base + 6144, PAGE);
	tap_ok(d.verdict == TLBP_PERPAGE && d.invalidations == 2,
	       "1.5 pages count as 1 entry and take 2 invalidations");
	d = decide(512, true, base + 4096, base, PAGE);
	tap_ok(d.verdict == TLBP_WIDEN, "a wrapped range is widened, never kept");
	d = decide(0, false, base, base + (8 << PAGE), PAGE);
	tap_ok(d.verdict == TLBP_PERPAGE && d.reason == TLBP_WHY_DISABLED,
	       "disabled: stock keeps 8 pages despite threshold 0");
	d = decide(40, true, base, base + (41ul << PAGE), PAGE);
	tap_ok(d.verdict == TLBP_WIDEN && d.reason == TLBP_WHY_THRESHOLD && d.entries == 41,
	       "41 entries over threshold 40: widened by the threshold");
	d = decide(512, false, base, base + (64ul << PAGE), PAGE);
	tap_ok(d.verdict == TLBP_WIDEN, "disabled: stock widens 64 pages despite threshold 512");

	{
		struct tlbp_policy p = { .threshold = 100, .cap = 50,
					 .stock = 33, .enabled = true };

		tlbp_decide(&p, base, base + (60ul << PAGE), PAGE, &d);
		tap_ok(d.verdict == TLBP_WIDEN && d.reason == TLBP_WHY_CAP && d.entries == 60,
		       "the cap wins over a larger threshold, and says so");
		tap_eq(tlbp_policy_ceiling(&p), 50, "ceiling is the capped threshold");
		p.enabled = false;
		tap_eq(tlbp_policy_ceiling(&p), 33, "disabled: ceiling is the stock one");
		p.enabled = true;
		p.threshold = 0;
		tap_eq(tlbp_policy_ceiling(&p), 0, "threshold 0: ceiling 0");
	}

	/*
	 * Properties over random requests: a kept range never exceeds the
	 * limit, a widened one always does, and the kernel's own check
	 * ((end - start) >> stride > ceiling) agrees with every decision.
	 */
	srand(2);
	bad = 0;
	for (i = 0; i < 200000; i++) {
		struct tlbp_policy p = {
			.threshold = rand() % 600, .cap = TLBP_CAP_DEFAULT,
			.stock = 33, .enabled = rand() & 1,
		};
		unsigned int s = strides[rand() % 3];
		unsigned long start = base + ((unsigned long)rand() << PAGE);
		unsigned long end = start + ((unsigned long)(rand() % 700) << s) +
				    (rand() % 3) * 2048;
		unsigned long n = (end - start) >> s;
		bool kernel_full;

		tlbp_decide(&p, start, end, s, &d);
		kernel_full = n > tlbp_policy_ceiling(&p);
		if ((d.verdict == TLBP_PERPAGE) == kernel_full ||
		    (d.verdict == TLBP_PERPAGE && d.invalidations > TLBP_CAP_DEFAULT + 1))
			bad++;
	}
	tap_eq(bad, 0, "200000 random requests: kernel ceiling agrees with every decision");

	return tap_done();
}
