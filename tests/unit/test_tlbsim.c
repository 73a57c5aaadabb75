// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of bench/tlbsim: tiny traces whose cycle totals are worked
 * out by hand in the comments (LRU, set conflicts, a flush between
 * accesses, remote CPUs, huge pages, each policy at its boundary), the
 * CPU models read from the pinned CPUID fixtures, and determinism.
 * Built by `make -C bench/tlbsim test`, run by tests/unit/tlbsim.t.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "tlbsim.h"

#ifndef TLBSIM_FIXTURES
#define TLBSIM_FIXTURES "tests/unit/cpuid"
#endif

/*
 * Costs chosen so that a total spells out its parts: walks in the units
 * (x100), STLB hits (x1), INVLPGs (x10^4), full flushes (x10^6).
 */
static const struct sim_costs K = { .invlpg = 10000, .full = 1000000, .stlb_hit = 1, .walk = 100 };

static struct sim_cpu_model model(const char *spec)
{
	struct sim_cpu_model m;
	char err[256];

	if (sim_model_parse(&m, spec, err, sizeof(err))) {
		printf("# %s\n", err);
		exit(1);
	}
	return m;
}

static struct sim_trace trace(const char *text)
{
	struct sim_trace t;
	char err[256];

	if (sim_trace_from_string(&t, text, err, sizeof(err))) {
		printf("# %s\n", err);
		exit(1);
	}
	return t;
}

static struct sim_result run(const struct sim_trace *t, const struct sim_cpu_model *m,
			     enum sim_policy_kind k, uint32_t thr, const struct sim_costs *c)
{
	struct sim_policy p = { .kind = k, .threshold = thr, .div = 16, .cap = 512 };
	struct sim_result r;

	if (sim_run(t, m, &p, c, &r)) {
		printf("# sim_run failed\n");
		exit(1);
	}
	return r;
}

#define H "# tlbsim trace 1\n"

/* LRU in a 2-entry fully associative L1, no L2. */
static void test_lru(void)
{
	struct sim_cpu_model m = model("geom:l1d_4k=2");
	/*
	 * 0x1000 walk; 0x1008 same page, hit; 0x2000 walk; 0x3000 walk,
	 * evicts 0x1000 (least recently used); 0x2000 hit; 0x1000 walk,
	 * evicts 0x3000.  4 walks, 2 hits.
	 */
	struct sim_trace t = trace(H "r 0 0x1000\nr 0 0x1008\nw 0 2000\nr 0 0x3000\n"
				   "# a comment\n\nr 0 0x2000\nw 0 0x1000\n");
	struct sim_result r = run(&t, &m, POL_STOCK, 0, &K);

	tap_eq(r.accesses, 6, "lru: 6 accesses");
	tap_eq(r.l1_hits, 2, "lru: 2 L1 hits (same page, then the entry LRU kept)");
	tap_eq(r.walks, 4, "lru: 4 walks");
	tap_eq(r.cycles, 400, "lru: 4 walks x 100 = 400 cycles");
	r = run(&t, &m, POL_STOCK, 0, &sim_default_costs);
	tap_eq(r.cycles, 4 * 45, "lru: default costs, 4 walks x 45 = 180 cycles");
	sim_trace_free(&t);
}

/*
 * A set conflict: L1 2 entries fully associative, L2 4 entries as 2 sets
 * x 2 ways (set = page % 2).  Pages 0, 2, 4 all map to set 0.
 */
static void test_set_conflict(void)
{
	struct sim_cpu_model m = model("geom:l1d_4k=2,l2_4k=4/2");
	/*
	 * Pages 0, 2, 4, 0: each a walk.  Page 4 evicts page 0 from L2 set 0
	 * (0 is older than 2) and from L1; the last access to page 0 misses
	 * both: 4 walks = 400.
	 */
	struct sim_trace t = trace(H "r 0 0x0\nr 0 0x2000\nr 0 0x4000\nr 0 0x0\n");
	struct sim_result r = run(&t, &m, POL_STOCK, 0, &K);

	tap_eq(r.walks, 4, "set conflict: pages 0,2,4,0 in one 2-way set: 4 walks");
	tap_eq(r.stlb_hits, 0, "set conflict: no STLB hit");
	tap_eq(r.cycles, 400, "set conflict: 400 cycles");
	sim_trace_free(&t);
	/*
	 * Pages 0, 1, 2, 0: page 1 goes to set 1, so set 0 holds 0 and 2.
	 * Page 2 evicts 0 from L1 (LRU of {0, 1}); the last access misses L1
	 * and hits L2: 3 walks + 1 STLB hit = 301.
	 */
	t = trace(H "r 0 0x0\nr 0 0x1000\nr 0 0x2000\nr 0 0x0\n");
	r = run(&t, &m, POL_STOCK, 0, &K);
	tap_eq(r.walks, 3, "no conflict: pages 0,1,2,0: 3 walks");
	tap_eq(r.stlb_hits, 1, "no conflict: the 4th access hits the STLB");
	tap_eq(r.cycles, 301, "no conflict: 301 cycles");
	sim_trace_free(&t);
	/* Fully associative 4-entry L2 instead: the same 301. */
	m = model("geom:l1d_4k=2,l2_4k=4");
	t = trace(H "r 0 0x0\nr 0 0x2000\nr 0 0x4000\nr 0 0x0\n");
	r = run(&t, &m, POL_STOCK, 0, &K);
	tap_eq(r.cycles, 301, "fully associative L2: pages 0,2,4,0: 3 walks + 1 STLB hit = 301");
	sim_trace_free(&t);
}

/* A one-page flush between accesses, per-page and full. */
static void test_flush_between(void)
{
	struct sim_cpu_model m = model("geom:l1d_4k=4,l2_4k=8/2");
	struct sim_trace t = trace(H "r 0 0x10000\nr 0 0x11000\nf 0 0x10000 1 12\n"
				   "r 0 0x10000\nr 0 0x11000\n");
	struct sim_result r;
	uint32_t lo, hi;

	/*
	 * Per-page (threshold 1): INVLPG drops page 0x10 only; then 0x10
	 * walks again and 0x11 hits L1: 3 walks + 1 INVLPG = 10300.
	 */
	r = run(&t, &m, POL_FIXED, 1, &K);
	tap_eq(r.cycles, 10300, "flush between: per-page: 3 walks + 1 INVLPG = 10300");
	tap_eq(r.l1_hits, 1, "flush between: per-page: the other page still hits");
	tap_eq(r.perpage_calls, 1, "flush between: kept");
	/* Full (threshold 0): everything walks again: 4 walks + 1 flush = 1000400. */
	r = run(&t, &m, POL_FIXED, 0, &K);
	tap_eq(r.cycles, 1000400, "flush between: full: 4 walks + 1 full flush = 1000400");
	tap_eq(r.widened_calls, 1, "flush between: widened");
	r = run(&t, &m, POL_STOCK, 0, &K);
	tap_eq(r.cycles, 10300, "flush between: stock keeps 1 page");
	tap_ok(!sim_best_fixed(&t, &m, &K, &r, &lo, &hi, NULL, NULL) &&
	       r.cycles == 10300 && lo == 1 && hi == UINT32_MAX,
	       "flush between: best fixed threshold 1..inf, 10300 (got %u..%u, %llu)",
	       lo, hi, (unsigned long long)r.cycles);
	sim_trace_free(&t);

	/*
	 * INVLPG drops the entry from L2 too, and nothing else: L1 1 entry,
	 * L2 4.  A walk, B walk (evicts A from L1), flush A per-page, B hits
	 * L1, A walks (evicts B from L1), B hits L2: 3 walks, 1 STLB hit,
	 * 1 INVLPG = 10301.
	 */
	m = model("geom:l1d_4k=1,l2_4k=4");
	t = trace(H "r 0 0xa000\nr 0 0xb000\nf 0 0xa000 1 12\nr 0 0xb000\nr 0 0xa000\nr 0 0xb000\n");
	r = run(&t, &m, POL_FIXED, 1, &K);
	tap_eq(r.cycles, 10301, "INVLPG drops one page from both levels: 10301");
	sim_trace_free(&t);
}

/* A flush reaches every CPU that has run the mm, and only those. */
static void test_remote(void)
{
	struct sim_cpu_model m = model("geom:l1d_4k=4");
	/*
	 * CPU 0 and 1 touch page 1; CPU 0 flushes 2 pages (1, 2); CPU 1
	 * touches 1 and 2 again; CPU 2 first runs after the flush.
	 * Walks: cpu0 1, cpu1 1 + 2 after, cpu2 1 = 5.
	 * Per-page: 2 INVLPGs on each of 2 CPUs = 4: 40500.
	 * Full: 2 full flushes (cpu 0, 1): 2000500.
	 */
	struct sim_trace t = trace(H "r 0 0x1000\nr 1 0x1000\nf 0 0x1000 2 12\n"
				   "r 1 0x1000\nr 1 0x2000\nr 2 0x1000\n");
	struct sim_result r = run(&t, &m, POL_FIXED, 2, &K);

	tap_eq(t.ncpus, 3, "remote: 3 CPUs in the trace");
	tap_eq(r.cycles, 40500, "remote: per-page: 4 INVLPGs (2 pages x 2 CPUs) + 5 walks = 40500");
	r = run(&t, &m, POL_FIXED, 1, &K);
	tap_eq(r.cycles, 2000500, "remote: full: 2 full flushes + 5 walks = 2000500");
	tap_eq(r.full_flushes, 2, "remote: the CPU that ran later is not flushed");
	sim_trace_free(&t);

	/* F (the caller asks for everything): a full flush whatever the policy. */
	t = trace(H "r 0 0x1000\nr 1 0x1000\nF 1\nr 0 0x1000\n");
	r = run(&t, &m, POL_FIXED, 512, &K);
	tap_eq(r.cycles, 2000300, "caller's full flush: 2 flushes + 3 walks = 2000300");
	tap_eq(r.caller_full_calls, 1, "caller's full flush counted apart");
	sim_trace_free(&t);
}

/* Huge pages: a 'p' region maps 2M pages, looked up in the 2M arrays. */
static void test_huge(void)
{
	struct sim_cpu_model m = model("geom:l1d_4k=2,l1d_2m=2");
	/*
	 * 0x40000000 and 0x40001000 share a 2M page: walk, hit; 0x40200000
	 * is the next 2M page: walk; 0x1000 is 4K: walk.  A per-page flush of
	 * one 2M entry (stride 21) drops the first 2M page only: 0x40200000
	 * still hits, 0x40000000 walks.  3 + 1 = 4 walks + 1 INVLPG = 10400.
	 */
	struct sim_trace t = trace(H "p 0x40000000 0x400000 21\nr 0 0x40000000\nr 0 0x40001000\n"
				   "r 0 0x40200000\nr 0 0x1000\nf 0 0x40000000 1 21\n"
				   "r 0 0x40200000\nr 0 0x40000000\n");
	struct sim_result r = run(&t, &m, POL_FIXED, 1, &K);

	tap_eq(r.cycles, 10400, "huge: 2M pages share an entry; a stride-21 INVLPG drops one: 10400");
	/* The 2012 rule never keeps a huge-page range. */
	r = run(&t, &m, POL_2012, 0, &K);
	tap_eq(r.widened_calls, 1, "huge: the 2012 rule flushes hugetlb ranges fully");
	sim_trace_free(&t);
}

static char *flushes(const char *pre, const unsigned int *n, unsigned int count)
{
	static char buf[4096];
	size_t off = snprintf(buf, sizeof(buf), H "%s", pre);
	unsigned int i;

	for (i = 0; i < count; i++)
		off += snprintf(buf + off, sizeof(buf) - off, "f 0 0x100000 %u 12\n", n[i]);
	return buf;
}

/* Each policy at its boundary. */
static void test_policies(void)
{
	static const unsigned int n[] = { 33, 34 };
	struct sim_cpu_model snb = model("geom:l1d_4k=64/4,l2_4k=512/4");
	struct sim_cpu_model zen5 = model("geom:l1d_4k=96,l2_4k=4096/8");
	struct sim_trace t = trace(flushes("r 0 0x100000\n", n, 2));
	struct sim_result r;
	struct sim_trace t2;
	static const unsigned int n2[] = { 32, 33, 49, 50 };

	/* Stock: 33 kept (33 INVLPGs), 34 widened; 1 walk. */
	r = run(&t, &snb, POL_STOCK, 0, &K);
	tap_eq(r.cycles, 33 * 10000 + 1000000 + 100, "stock: 33 pages kept, 34 flushed fully");
	/* tlbpath's default is the stock ceiling, whatever the geometry. */
	r = run(&t, &snb, POL_TLBPATH, 0, &K);
	tap_eq(r.perpage_calls, 1, "tlbpath default on 64 entries: keeps 33");
	tap_eq(r.widened_calls, 1, "tlbpath default on 64 entries: widens 34");
	sim_trace_free(&t);

	t2 = trace(flushes("v 100000 100000\nr 0 0x100000\n", n2, 4));
	/* ... on a 96-entry L1 dTLB too: 32 and 33 kept; 49 and 50 not. */
	r = run(&t2, &zen5, POL_TLBPATH, 0, &K);
	tap_eq(r.perpage_calls, 2, "tlbpath default on 96 entries: keeps up to 33");
	tap_eq(r.invlpg, 32 + 33, "tlbpath default on 96 entries: 65 INVLPGs");
	/* 2012: min(512, total_vm 100000) / 16 = 32: only the 32-page range kept. */
	r = run(&t2, &snb, POL_2012, 0, &K);
	tap_eq(r.perpage_calls, 1, "2012 on a 512-entry STLB: keeps 32 pages, not 33");
	/* Zen 5: 4096 / 16 = 256: all four kept. */
	r = run(&t2, &zen5, POL_2012, 0, &K);
	tap_eq(r.perpage_calls, 4, "2012 on a 4096-entry L2: keeps all (<= 256)");
	sim_trace_free(&t2);

	/* 2012 with a small footprint: min(4096, 160) / 16 = 10. */
	t2 = trace(H "v 160 100\nr 0 0x100000\nf 0 0x100000 10 12\nf 0 0x100000 11 12\n");
	r = run(&t2, &zen5, POL_2012, 0, &K);
	tap_eq(r.perpage_calls, 1, "2012: total_vm 160 pages caps the threshold at 10");
	sim_trace_free(&t2);
	/* Without 'v', the pages touched so far (3) stand for total_vm: 3 / 16 = 0. */
	t2 = trace(H "r 0 0x100000\nr 0 0x101000\nr 0 0x100000\nr 0 0x102000\nf 0 0x100000 1 12\n");
	r = run(&t2, &zen5, POL_2012, 0, &K);
	tap_eq(r.widened_calls, 1, "2012: no 'v': 3 pages touched, threshold 0");
	sim_trace_free(&t2);
}

/* The CPU models of real dumps (the pinned fixtures). */
static void test_models(void)
{
	static const struct {
		const char *dump;
		unsigned int l1, l1w, l2, l2w;
	} want[] = {
		{ "GenuineIntel00206A7_SandyBridge2_CPUID.raw", 64, 4, 512, 4 },
		{ "GenuineIntel00406E3_Skylake_CPUID.raw", 64, 4, 1536, 6 },
		{ "GenuineIntel00806F8_SapphireRapids_06_CPUID.raw", 64, 4, 2048, 16 },
		{ "GenuineIntel00B0671_RaptorLake_01_CPUID.raw@0", 64, 4, 2048, 16 },
		{ "GenuineIntel00B0671_RaptorLake_01_CPUID.raw@16", 48, 48, 2048, 4 },
		{ "AuthenticAMD0870F10_K17_Matisse_CPUID.raw", 64, 64, 2048, 8 },
		{ "AuthenticAMD0A20F10_K19_Vermeer_CPUID1.raw", 64, 64, 2048, 8 },
		{ "AuthenticAMD0A60F12_K19_Raphael_02_CPUID.raw", 72, 72, 3072, 8 },
		{ "AuthenticAMD0B40F40_K20_GraniteRidge_04_CPUID.raw", 96, 96, 4096, 8 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct sim_cpu_model m;
		char spec[512], err[256];
		int bad;

		snprintf(spec, sizeof(spec), "%s/%s", TLBSIM_FIXTURES, want[i].dump);
		bad = sim_model_parse(&m, spec, err, sizeof(err));
		if (!tap_ok(!bad && m.l1[TLBP_4K].entries == want[i].l1 &&
			    m.l1[TLBP_4K].ways == want[i].l1w &&
			    m.l2[TLBP_4K].entries == want[i].l2 && m.l2[TLBP_4K].ways == want[i].l2w,
			    "model %s: 4K L1 %u/%u ways, L2 %u/%u ways", want[i].dump,
			    want[i].l1, want[i].l1w, want[i].l2, want[i].l2w))
			printf("#   got %s: L1 %u/%u L2 %u/%u\n", bad ? err : "",
			       m.l1[TLBP_4K].entries, m.l1[TLBP_4K].ways,
			       m.l2[TLBP_4K].entries, m.l2[TLBP_4K].ways);
	}
}

static void test_parse_errors(void)
{
	static const char *const bad[] = {
		"r 0 0x1000\n",				/* no magic */
		H "r 0\n",
		H "r 0 0x1000 junk\n",
		H "x 0 0x1000\n",
		H "f 0 0x1000 0 12\n",			/* no entries */
		H "f 0 0x1800 1 12\n",			/* unaligned */
		H "f 0 0x1000 1 11\n",			/* stride */
		H "r 999 0x1000\n",			/* CPU number */
		H "p 0 0x1000 13\n",			/* page size */
		H "r -1 0x1000\n",
		H "l maybe\n",
		H "l dependent\n",
	};
	char err[256];
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct sim_trace t;

		tap_ok(sim_trace_from_string(&t, bad[i], err, sizeof(err)) == -1 &&
		       strstr(err, i ? "(string):2:" : "(string):1:"),
		       "bad trace %u refused with its line (%s)", i, err);
	}
}

/* A pseudo-random trace: 4 CPUs, 1500 pages, ranged flushes of 1..200. */
static char *random_trace(unsigned int events)
{
	size_t cap = 64 + (size_t)events * 40, off;
	char *buf = malloc(cap);
	uint64_t x = 12345;
	unsigned int i;

	off = snprintf(buf, cap, H "v 4000 1800\n");
	for (i = 0; i < events; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		if ((x >> 33) % 97 == 0)
			off += snprintf(buf + off, cap - off, "f %u 0x%llx %u 12\n",
					(unsigned int)(x >> 60) & 3,
					0x7f0000000000ull + (((x >> 20) % 1500) << 12),
					1 + (unsigned int)((x >> 40) % 200));
		else
			off += snprintf(buf + off, cap - off, "%c %u 0x%llx\n", (x >> 50) & 1 ? 'w' : 'r',
					(unsigned int)(x >> 60) & 3,
					0x7f0000000000ull + ((x >> 24) % (1500ull << 12)));
	}
	return buf;
}

static void test_determinism(void)
{
	char spec[512];
	struct sim_cpu_model m;
	char *text = random_trace(50000);
	struct sim_trace a = trace(text), b = trace(text);
	struct sim_result r1, r2, best1, best2;
	uint32_t lo1, hi1, lo2, hi2, t;
	uint64_t min = UINT64_MAX;
	uint32_t argmin = 0;
	size_t i;
	int same = 1;

	snprintf(spec, sizeof(spec), "%s/GenuineIntel00406E3_Skylake_CPUID.raw", TLBSIM_FIXTURES);
	m = model(spec);
	for (t = 0; t < 4; t++) {
		enum sim_policy_kind k = t == 0 ? POL_STOCK : t == 1 ? POL_2012 :
					 t == 2 ? POL_TLBPATH : POL_FIXED;

		r1 = run(&a, &m, k, 77, &sim_default_costs);
		r2 = run(&b, &m, k, 77, &sim_default_costs);
		same &= !memcmp(&r1, &r2, sizeof(r1));
		r2 = run(&a, &m, k, 77, &sim_default_costs);
		same &= !memcmp(&r1, &r2, sizeof(r1));
	}
	tap_ok(same, "determinism: 50000 events, 4 policies: the same numbers from the same "
	       "trace run twice and parsed twice");
	/* The sweeps first: the message reads what they found. */
	same = !sim_best_fixed(&a, &m, &sim_default_costs, &best1, &lo1, &hi1, NULL, NULL) &&
	       !sim_best_fixed(&b, &m, &sim_default_costs, &best2, &lo2, &hi2, NULL, NULL) &&
	       !memcmp(&best1, &best2, sizeof(best1)) && lo1 == lo2 && hi1 == hi2;
	tap_ok(same, "determinism: the sweep gives the same best threshold (%u..%u) twice",
	       lo1, hi1);

	/* The sweep's best against every threshold 0..210, one by one. */
	for (t = 0; t <= 210; t++) {
		r1 = run(&a, &m, POL_FIXED, t, &sim_default_costs);
		if (r1.cycles < min) {
			min = r1.cycles;
			argmin = t;
		}
		if (t >= lo1 && t <= hi1 && r1.cycles != best1.cycles)
			same = 0;
	}
	tap_ok(min == best1.cycles && argmin == lo1 && same,
	       "sweep: best fixed %u (%llu cycles) is the brute-force minimum over 0..210 (%u, %llu), "
	       "and every threshold in %u..%u gives it", lo1, (unsigned long long)best1.cycles,
	       argmin, (unsigned long long)min, lo1, hi1);
	for (i = 0, same = 1; i + 1 < a.nsizes; i++)
		same &= a.sizes[i] < a.sizes[i + 1];
	tap_ok(same && a.nsizes > 100 && a.sizes[a.nsizes - 1] <= 200,
	       "sweep: %zu distinct flush sizes, ascending", a.nsizes);
	sim_trace_free(&a);
	sim_trace_free(&b);
	free(text);
}

/* --repeat: the events N times over are the trace written out N times. */
#define REP "r 0 0x10000\nw 1 0x11000\nf 0 0x10000 2 12\nr 1 0x10000\nF 1\n" \
	    "r 0 0x12000\nf 1 0x11000 40 12\n"
static void test_repeat(void)
{
	struct sim_cpu_model m = model("geom:l1d_4k=4,l2_4k=16/4");
	struct sim_trace a = trace(H REP), b = trace(H REP REP REP);
	struct sim_result r1, r2;
	int same = 1, ok;
	uint32_t thr;
	size_t i;

	ok = !sim_trace_repeat(&a, 3) && a.n * a.runs == b.n && a.accesses == b.accesses &&
	     a.flushes == b.flushes && a.full_flushes == b.full_flushes &&
	     a.dep_accesses == b.dep_accesses;
	for (i = 0; ok && i < b.n; i++)
		ok = a.ev[i % a.n].addr == b.ev[i].addr && a.ev[i % a.n].entries == b.ev[i].entries &&
		     a.ev[i % a.n].cpu == b.ev[i].cpu && a.ev[i % a.n].type == b.ev[i].type &&
		     a.ev[i % a.n].shift == b.ev[i].shift && a.ev[i % a.n].dep == b.ev[i].dep;
	tap_ok(ok, "repeat: 3 times over is the trace written out 3 times (%zu events 3 times, "
	       "%llu flushes)", a.n, (unsigned long long)a.flushes);
	for (thr = 0; thr < 3; thr++) {
		r1 = run(&a, &m, thr == 2 ? POL_TLBPATH : POL_FIXED, thr * 40, &K);
		r2 = run(&b, &m, thr == 2 ? POL_TLBPATH : POL_FIXED, thr * 40, &K);
		same &= !memcmp(&r1, &r2, sizeof(r1));
	}
	tap_ok(same, "repeat: the same numbers from both, widened, kept and by the controller");
	sim_trace_free(&a);
	sim_trace_free(&b);
}

/*
 * Overlapping misses.  A 2-entry L1 and no L2: every access to a new page
 * walks.  Walk 100 cycles, 4 walkers, issue 10: an independent walk costs
 * 100 / 4 - 10 = 15, a dependent one 100.
 */
static void test_overlap(void)
{
	struct sim_cpu_model m = model("geom:l1d_4k=2,walkers=4");
	struct sim_costs c = { .invlpg = 1, .full = 1, .stlb_hit = 1, .walk = 100, .issue = 10 };
	const char *text = H "l indep\nr 0 0x1000\nr 0 0x2000\nr 0 0x3000\nl dep\nr 0 0x4000\n";
	struct sim_trace t = trace(text), plain;
	struct sim_result r;

	r = run(&t, &m, POL_STOCK, 0, &c);
	tap_ok(r.walks == 4 && r.dep_walks == 1 && r.cycles == 3 * 15 + 100 && t.has_loads &&
	       t.dep_accesses == 1,
	       "overlap: 3 independent walks at 100/4 - 10 = 15, one dependent at 100 (%llu)",
	       (unsigned long long)r.cycles);
	c.issue = 30;
	r = run(&t, &m, POL_STOCK, 0, &c);
	tap_ok(r.cycles == 100, "overlap: under 30 cycles of issue, the independent walks are hidden (%llu)",
	       (unsigned long long)r.cycles);
	c.issue = 10;
	m.walkers = 1;
	r = run(&t, &m, POL_STOCK, 0, &c);
	tap_ok(r.cycles == 3 * 90 + 100, "overlap: one walker: 100 - 10 each (%llu)",
	       (unsigned long long)r.cycles);
	m.walkers = 3;
	r = run(&t, &m, POL_STOCK, 0, &c);
	tap_ok(r.cycles == (3 * (100 - 30) + 3 * 100) / 3,
	       "overlap: 3 walkers: sums kept in thirds, 3 x 23.3 + 100 = 170 (%llu)",
	       (unsigned long long)r.cycles);

	m.walkers = 4;
	sim_trace_set_loads(&t, SIM_LOADS_DEP);
	r = run(&t, &m, POL_STOCK, 0, &c);
	tap_ok(r.cycles == 400 && t.dep_accesses == 4, "overlap: --loads dep: 4 whole walks (%llu)",
	       (unsigned long long)r.cycles);
	sim_trace_set_loads(&t, SIM_LOADS_INDEP);
	r = run(&t, &m, POL_STOCK, 0, &c);
	tap_ok(r.cycles == 60 && t.dep_accesses == 0, "overlap: --loads indep: 4 x 15 (%llu)",
	       (unsigned long long)r.cycles);
	sim_trace_free(&t);

	/* No 'l' line: dependent, as every trace replayed before. */
	plain = trace(H "r 0 0x1000\nr 0 0x2000\nr 0 0x3000\nr 0 0x4000\n");
	r = run(&plain, &m, POL_STOCK, 0, &c);
	tap_ok(r.cycles == 400 && !plain.has_loads, "overlap: a trace without 'l' lines: whole walks (%llu)",
	       (unsigned long long)r.cycles);
	sim_trace_free(&plain);

	/*
	 * STLB hits overlap the same way: an 8-entry L2 behind a 1-entry
	 * L1, 2 walkers, issue 1: 4 walks, then 4 STLB hits at 7 / 2 - 1.
	 */
	m = model("geom:l1d_4k=1,l2_4k=8,walkers=2");
	c = (struct sim_costs){ .invlpg = 1, .full = 1, .stlb_hit = 7, .walk = 40, .issue = 1 };
	t = trace(H "l indep\nr 0 0x1000\nr 0 0x2000\nr 0 0x3000\nr 0 0x4000\n"
		  "r 0 0x1000\nr 0 0x2000\nr 0 0x3000\nr 0 0x4000\n");
	r = run(&t, &m, POL_STOCK, 0, &c);
	tap_ok(r.stlb_hits == 4 && r.walks == 4 && r.cyc_stlb == 4 * 5 / 2 && r.cyc_walk == 4 * 19,
	       "overlap: independent STLB hits at 7 / 2 - 1 (%llu), walks at 40 / 2 - 1 (%llu)",
	       (unsigned long long)r.cyc_stlb, (unsigned long long)r.cyc_walk);
	sim_trace_free(&t);
}

static int costs_from(const char *text, struct sim_costs *c, char *err, size_t errlen)
{
	char path[] = "/tmp/test_tlbsim_costs_XXXXXX";
	int fd = mkstemp(path), ret;
	FILE *f = fd < 0 ? NULL : fdopen(fd, "w");

	if (!f || fputs(text, f) < 0 || fclose(f)) {
		snprintf(err, errlen, "cannot write %s", path);
		return -2;
	}
	ret = sim_costs_load(c, path, err, errlen);
	unlink(path);
	return ret;
}

static void test_cost_files(void)
{
	static const char *const bad[] = {
		"invlpg 1\nfull 2\nstlb_hit 3\nwalk 4\n",			/* no issue */
		"invlpg 1\nfull 2\nstlb_hit 3\nwalk 4\nissue 5\nwalk 6\n",	/* twice */
		"invlpg 1\nfull 2\nstlb_hit 3\nwalk 4\nissue 5\nwalkers 6\n",	/* unknown */
		"invlpg -1\nfull 2\nstlb_hit 3\nwalk 4\nissue 5\n",		/* negative */
		"invlpg 1 2\nfull 2\nstlb_hit 3\nwalk 4\nissue 5\n",		/* junk after */
		"invlpg x\nfull 2\nstlb_hit 3\nwalk 4\nissue 5\n",
	};
	struct sim_costs c;
	char err[256];
	unsigned int i;
	int ret;

	ret = costs_from("# tlbpath-probe\ninvlpg 316\nfull 540\n\nstlb_hit 6\nwalk 36\nissue 10\n",
			 &c, err, sizeof(err));
	tap_ok(!ret && c.invlpg == 316 && c.full == 540 && c.stlb_hit == 6 && c.walk == 36 &&
	       c.issue == 10, "cost file: every key read");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ret = costs_from(bad[i], &c, err, sizeof(err));
		tap_ok(ret == -1 && strstr(err, "test_tlbsim_costs_"),
		       "bad cost file %u refused, naming it (%s)", i + 1, err);
	}
}

/*
 * The epochs a learner could time (sim.c: epoch_event()): every 16 flush
 * events of a CPU, asked for or executed.  CPU 0 asks for 49 one-page
 * flushes of a page nobody touched, with accesses to a page in its L1
 * between them (1 tick each, no noise): 1, then 3, then 1 a gap.  Its 3
 * epochs take 16 INVLPGs and 16, 48 and 16 accesses: they differ by 32
 * and -32.  CPU 1 executes each flush and does nothing else: 3 epochs of
 * 16 INVLPGs, no difference.  6 epochs, 4 pairs, squares 2048, the
 * median size 32 (of 0, 0, 32, 32: the upper).  Epochs of 8 events
 * (tlbsim --epoch) see the same work twice as often.
 */
static void test_epochs(void)
{
	struct sim_cpu_model m = model("geom:l1d_4k=4");
	struct sim_policy p = { .kind = POL_STOCK };
	static char text[4096];
	struct sim_result r;
	struct sim_trace t;
	size_t len;
	int i, j, ret;

	len = (size_t)snprintf(text, sizeof(text), H "r 1 0x1000\nr 0 0x1000\n");
	for (i = 1; i <= 49; i++) {
		len += (size_t)snprintf(text + len, sizeof(text) - len, "f 0 0x100000 1 12\n");
		for (j = 0; j < (i > 16 && i <= 32 ? 3 : 1); j++)
			len += (size_t)snprintf(text + len, sizeof(text) - len, "r 0 0x1000\n");
	}
	t = trace(text);
	r = run(&t, &m, POL_STOCK, 0, &K);
	tap_ok(r.epochs == 6 && r.epoch_pairs == 4 && r.epoch_d2 == 2048.0,
	       "epochs: 3 a CPU, 4 pairs, their differences' squares 2048 (got %llu, %llu, %.0f)",
	       (unsigned long long)r.epochs, (unsigned long long)r.epoch_pairs, r.epoch_d2);
	tap_ok(fabs(sim_epoch_mad(&r) - 1.4826 * 32) < 1.4826 * 32 * 0.02,
	       "epoch_mad: 1.4826 x the median difference, 32, within 2%% (got %.2f)",
	       sim_epoch_mad(&r));
	/* The decisions move the INVLPGs into full flushes, not the work's variation. */
	r = run(&t, &m, POL_FIXED, 0, &K);
	tap_ok(r.epochs == 6 && r.epoch_d2 == 2048.0,
	       "epochs: full flushes instead, the same differences (got %llu, %.0f)",
	       (unsigned long long)r.epochs, r.epoch_d2);
	/* Of 8 events (--epoch): CPU 0's 8, 8, 24, 24, 8, 8 accesses, 10 pairs in all, 512. */
	p.epoch = 8;
	ret = sim_run(&t, &m, &p, &K, &r);
	tap_ok(!ret && r.epochs == 12 && r.epoch_pairs == 10 && r.epoch_d2 == 512.0,
	       "epochs of 8 events: 12, 10 pairs, squares 512 (got %llu, %llu, %.0f)",
	       (unsigned long long)r.epochs, (unsigned long long)r.epoch_pairs, r.epoch_d2);
	sim_trace_free(&t);
}

int main(void)
{
	tap_plan(83);
	test_overlap();
	test_epochs();
	test_cost_files();
	test_lru();
	test_set_conflict();
	test_flush_between();
	test_remote();
	test_huge();
	test_policies();
	test_models();
	test_parse_errors();
	test_determinism();
	test_repeat();
	return tap_done();
}
