// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the adaptive controller (src/adapt.c), on hand-worked
 * sequences: a model CPU whose full flushes cost a known number of
 * refills R, on top of B walks per interval whatever is flushed.
 */
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "tlbpath/adapt.h"

/*
 * 64 + 512 4K entries: reach 576.  INVLPG 100, full flush 200, refill 40:
 * the break-even with R refills is (200 + 40 R) / 100, 82 for R = 200;
 * the geometry's limit (R = 576) is 232.
 */
static const struct tlbp_geometry geo = {
	.l1d = { 64, 0, 0 }, .l2 = { 512, 0, 0 }, .source = TLBP_SRC_LEAF2,
};

static const struct tlbp_costs costs = { .invlpg = 100, .full = 200, .refill = 40 };

#define T	1000		/* clock per interval */
#define B	100		/* walks per interval anyway */

struct cpu {
	struct tlbp_adapt a;
	u64 walks, now;
	u32 r;			/* refills a full flush causes */
	unsigned int spread;	/* over this many intervals (0: 1) */
	u32 pending;		/* refills still to come */
	bool dead;		/* the counter reads 0 */
	unsigned long flushes, explored;
	s64 loss;		/* what explorations cost, by the model */
	u64 flush_cost, walk_cost;
};

static void cpu_init(struct cpu *c, u32 r)
{
	memset(c, 0, sizeof(*c));
	tlbp_adapt_init(&c->a, &geo, &costs, TLBP_STOCK_CEILING, TLBP_CAP_DEFAULT, true);
	c->r = r;
	c->now = 1;
}

/* One flush of @n entries asked and executed on the CPU, then an interval. */
static bool step(struct cpu *c, unsigned long n)
{
	enum tlbp_adapt_reason why = TLBP_AR_MEASURED;
	s64 keep_cost = (s64)n * costs.invlpg;
	s64 full_cost = costs.full + (s64)c->r * costs.refill;
	u32 refills;
	bool keep;

	keep = n <= tlbp_adapt_fast(&c->a) || tlbp_adapt_decide(&c->a, n, 0, 0, &why);
	if (why == TLBP_AR_EXPLORE) {
		c->explored++;
		c->loss += keep ? keep_cost - full_cost : full_cost - keep_cost;
	}
	if (tlbp_adapt_wants_count(&c->a, keep ? n : TLBP_FLUSH_ALL))
		tlbp_adapt_executed(&c->a, keep ? n : TLBP_FLUSH_ALL,
				    c->dead ? 0 : c->walks, c->now, true);
	else
		tlbp_adapt_executed(&c->a, keep ? n : TLBP_FLUSH_ALL, 0, 0, false);
	c->flush_cost += keep ? keep_cost : costs.full;
	if (!keep)
		c->pending = c->r;	/* the TLB is empty again */
	refills = c->spread ? c->r / c->spread : c->r;
	refills = refills < c->pending ? refills : c->pending;
	c->pending -= refills;
	c->walk_cost += (B + refills) * costs.refill;
	c->walks += B + refills;
	c->now += T;
	c->flushes++;
	return keep;
}

static const unsigned long cycle[] = { 20, 60, 100, 150 };

static void run(struct cpu *c, unsigned int steps)
{
	unsigned int i;

	for (i = 0; i < steps; i++)
		step(c, cycle[i % 4]);
}

static void test_start(void)
{
	struct tlbp_adapt a;
	enum tlbp_adapt_reason why;

	tlbp_adapt_init(&a, &geo, &costs, TLBP_STOCK_CEILING, TLBP_CAP_DEFAULT, true);
	tap_ok(tlbp_adapt_mode(&a) == TLBP_ADAPT_ON && a.why == TLBP_ADAPT_OK,
	       "start: adaptive with a counter and costs");
	tap_eq(tlbp_adapt_fast(&a), 33, "start: the fast path keeps what stock keeps (33)");
	tap_eq(tlbp_adapt_ceiling(&a), 33, "start: the kernel's ceiling stays stock (33)");
	tap_ok(!tlbp_adapt_decide(&a, 34, 0, 0, &why) && why == TLBP_AR_MEASURED,
	       "start: 34 entries widened, as stock, before any measurement");
	tap_eq(a.reach, 576, "geometry: reach = l1d + l2 over page sizes = 576");
	tap_eq(a.limit, 232, "geometry: limit = (200 + 576 * 40) / 100 = 232");
}

static void test_fallback(void)
{
	struct tlbp_costs none = { 0 };
	struct tlbp_adapt a, b;
	enum tlbp_adapt_reason why;
	bool stock = true;
	unsigned long n;

	tlbp_adapt_init(&a, &geo, &costs, TLBP_STOCK_CEILING, TLBP_CAP_DEFAULT, false);
	tlbp_adapt_init(&b, &geo, &none, TLBP_STOCK_CEILING, TLBP_CAP_DEFAULT, true);
	tap_ok(a.mode == TLBP_ADAPT_FALLBACK && a.why == TLBP_ADAPT_NO_COUNTER &&
	       !tlbp_adapt_wants_count(&a, TLBP_FLUSH_ALL),
	       "no counter: fallback (%s), and it never asks for a reading",
	       tlbp_adapt_why_name(a.why));
	tap_ok(b.mode == TLBP_ADAPT_FALLBACK && b.why == TLBP_ADAPT_NO_COSTS,
	       "no calibrated costs: fallback (%s)", tlbp_adapt_why_name(b.why));
	for (n = 0; n <= 1000; n++) {
		tlbp_adapt_executed(&a, TLBP_FLUSH_ALL, n * 1000, n * 1000, true);
		stock &= tlbp_adapt_decide(&a, n, 0, 0, &why) == (n <= 33);
		stock &= why == TLBP_AR_FALLBACK || (n > TLBP_CAP_DEFAULT && why == TLBP_AR_CAP);
	}
	tap_ok(stock && a.ceiling == 33, "no counter: every decision is stock's, ceiling 33");
}

/* R = 200: the break-even is (200 + 200 * 40) / 100 = 82. */
static void test_convergence(void)
{
	struct cpu c;
	bool k60, k100;

	cpu_init(&c, 200);
	run(&c, 400);
	tap_ok(c.a.r >> 4 >= 198 && c.a.r >> 4 <= 202,
	       "convergence: R = 200 measured as %u", c.a.r >> 4);
	tap_ok(c.a.keep >= 81 && c.a.keep <= 83, "convergence: keeps up to %u (82)", c.a.keep);
	k60 = step(&c, 60);
	k100 = step(&c, 100);
	tap_ok(k60 && !k100, "convergence: 60 kept (%d), 100 widened (%d)", k60, k100);
	tap_ok(c.a.ceiling >= c.a.keep, "convergence: the ceiling (%u) allows what it keeps",
	       c.a.ceiling);
}

/*
 * Refills that go on after the next (small) flush still count to the full
 * flush: one 100-entry flush, then seven 5-entry ones, R = 200 arriving
 * over 4 intervals.  Charged to the first interval only, R would look 50.
 */
static void test_attribution(void)
{
	struct cpu c;
	unsigned int i;

	cpu_init(&c, 200);
	c.spread = 4;
	for (i = 0; i < 800; i++)
		step(&c, i % 8 ? 5 : 100);
	tap_ok(c.a.r >> 4 >= 190 && c.a.r >> 4 <= 210,
	       "attribution: refills over 4 intervals and 3 small flushes: R = %u (200)",
	       c.a.r >> 4);
}

/*
 * Explorations are paid from a budget of 1/32 of the flushes' cost and
 * 1/64 of the walks': what they lost, by the model, is within it plus
 * one full credit.
 */
static void test_exploration_bound(void)
{
	struct cpu c;
	s64 budget;
	u32 r;

	/* Up to reach: a full flush cannot cost more refills than the TLBs hold. */
	for (r = 0; r <= 576; r += 144) {
		cpu_init(&c, r);
		run(&c, 2000);
		budget = (s64)(c.flush_cost >> 5) + (s64)(c.walk_cost >> 6) +
			 costs.full + 576 * costs.refill;
		tap_ok(c.loss <= budget && c.explored > 0,
		       "exploration bound, R = %u: %lu explorations lost %lld <= budget %lld",
		       r, c.explored, (long long)c.loss, (long long)budget);
	}
}

/* A phase change followed within a bounded number of flushes, both ways. */
static void test_phase(void)
{
	struct cpu c;
	unsigned int i;

	cpu_init(&c, 200);
	run(&c, 400);
	c.r = 0;
	for (i = 0; i < 40 && c.a.keep >= 33; i++)
		step(&c, cycle[i % 4]);
	tap_ok(c.a.keep < 33, "phase: R 200 -> 0, keep %u below stock after %u flushes (<= 40)",
	       c.a.keep, i);
	run(&c, 200);
	tap_ok(c.a.keep <= 4, "phase: R = 0 settles at keep %u (break-even 2)", c.a.keep);
	c.r = 200;
	for (i = 0; i < 40 && c.a.keep < 78; i++)
		step(&c, cycle[i % 4]);
	tap_ok(c.a.keep >= 78, "phase: R 0 -> 200, keep %u after %u flushes (<= 40)",
	       c.a.keep, i);
}

/* The counter reads 0: fallback after enough full flushes; back when it moves. */
static void test_zero(void)
{
	enum tlbp_adapt_reason why;
	struct cpu c;
	bool stock = true;
	unsigned long n;

	cpu_init(&c, 200);
	run(&c, 100);
	c.dead = true;
	run(&c, 200);
	tap_ok(c.a.mode == TLBP_ADAPT_FALLBACK && c.a.why == TLBP_ADAPT_ZERO,
	       "zero: a counter stuck at 0 falls back (%s)", tlbp_adapt_why_name(c.a.why));
	for (n = 1; n <= 600; n++)
		stock &= tlbp_adapt_decide(&c.a, n, 0, 0, &why) == (n <= 33);
	tap_ok(stock && c.a.ceiling == 33, "zero: alone, it decides as stock");
	/*
	 * With a peer whose break-even is 60: mean of (0 walks: 2, 60) = 31
	 * (no budget left to explore).
	 */
	c.a.credit = 0;
	tap_ok(tlbp_adapt_decide(&c.a, 31, 60, 1, &why) &&
	       !tlbp_adapt_decide(&c.a, 32, 60, 1, &why),
	       "zero: with a peer, the mean break-even of the CPUs reached (31)");
	c.dead = false;
	c.walks += 1000;
	run(&c, 8);
	tap_ok(c.a.mode == TLBP_ADAPT_ON, "zero: adaptive again once the counter moves");
}

/* The mean of the break-evens of every CPU reached decides. */
static void test_peers(void)
{
	enum tlbp_adapt_reason why;
	struct tlbp_adapt a;

	tlbp_adapt_init(&a, &geo, &costs, TLBP_STOCK_CEILING, TLBP_CAP_DEFAULT, true);
	/* (33 + 1 + 1) / 3 = 11.67: 11 kept, 12 widened. */
	tap_ok(tlbp_adapt_decide(&a, 11, 2, 2, &why) && !tlbp_adapt_decide(&a, 12, 2, 2, &why),
	       "peers: keep 33 here, 1 on two others: the mean, 11, is kept, 12 is not");
	/* (33 + 100) / 2 = 66.5 */
	tap_ok(tlbp_adapt_decide(&a, 66, 100, 1, &why) && !tlbp_adapt_decide(&a, 67, 100, 1, &why),
	       "peers: keep 33 here, 100 on the other: 66 kept, 67 not");
}

/* Whatever the history: it keeps no more than its ceiling and cap, never TLB_FLUSH_ALL. */
static void test_never_narrow(void)
{
	unsigned long i, bad = 0, all = 0, kept = 0;
	struct tlbp_adapt a;
	u64 walks = 0, now = 1;

	srandom(16);
	tlbp_adapt_init(&a, &geo, &costs, TLBP_STOCK_CEILING, TLBP_CAP_DEFAULT, true);
	for (i = 0; i < 200000; i++) {
		enum tlbp_adapt_reason why;
		unsigned long n = random() % 8 ? random() % 300 : random();
		u32 ceiling = a.ceiling, fast = a.fast;
		bool keep;

		keep = tlbp_adapt_decide(&a, n, 0, 0, &why);
		kept += keep;
		if (keep && (n > ceiling || n > TLBP_CAP_DEFAULT))
			bad++;
		if (fast > a.stock || a.keep > a.ceiling || a.ceiling > TLBP_CAP_DEFAULT)
			bad++;
		if (tlbp_adapt_decide(&a, TLBP_FLUSH_ALL, random() % 1000, random() % 4, &why))
			all++;
		walks += random() % 2000;
		now += random() % 5000;
		tlbp_adapt_executed(&a, keep ? n : TLBP_FLUSH_ALL, walks, now,
				    tlbp_adapt_wants_count(&a, keep ? n : TLBP_FLUSH_ALL));
	}
	tap_ok(!bad && kept > 1000, "random: 200000 decisions, none kept above ceiling or cap "
	       "(%lu violations, %lu kept)", bad, kept);
	tap_eq(all, 0, "random: TLB_FLUSH_ALL is never narrowed to a range");
}

/* The geometry bounds the estimate and the break-even. */
static void test_geometry(void)
{
	struct tlbp_geometry none = { 0 };
	struct tlbp_costs probed = costs;
	struct tlbp_adapt a;
	struct cpu c;

	cpu_init(&c, 100000);
	run(&c, 400);
	tap_ok(c.a.r >> 4 <= 576 && c.a.keep == 232,
	       "geometry: 100000 walks after each full flush count as reach (%u), keep %u = limit",
	       c.a.r >> 4, c.a.keep);
	tlbp_adapt_init(&a, &none, &costs, TLBP_STOCK_CEILING, TLBP_CAP_DEFAULT, true);
	tap_eq(a.reach, 4096, "geometry unknown, no probe: reach 4096");
	probed.reach = 300;
	tlbp_adapt_init(&a, &none, &probed, TLBP_STOCK_CEILING, TLBP_CAP_DEFAULT, true);
	tap_eq(a.reach, 300, "geometry unknown: the timing probe's reach (300)");
	tlbp_adapt_init(&a, &geo, &costs, TLBP_STOCK_CEILING, 100, true);
	tap_eq(a.limit, 100, "the cap bounds the limit (100)");
}

int main(void)
{
	tap_plan(6 + 3 + 4 + 1 + 5 + 3 + 4 + 2 + 2 + 4);
	test_start();
	test_fallback();
	test_convergence();
	test_attribution();
	test_exploration_bound();
	test_phase();
	test_zero();
	test_peers();
	test_never_narrow();
	test_geometry();
	return tap_done();
}
