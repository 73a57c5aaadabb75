// SPDX-License-Identifier: GPL-2.0
/*
 * gen: synthetic tlbsim traces (README.md, "Synthetic workloads"), for
 * the access patterns the bench programs do not make.  Deterministic: a
 * fixed-seed xorshift, the same trace on every run and machine.
 *
 *   gen WORKLOAD [SCALE] > TRACE     SCALE: percent of the full length
 *
 * phase     large reuse, then none, then large again: flushes of 8..128
 *           pages between rounds of 512 accesses to a 1536-page working
 *           set (reuse) or to pages never seen again (none)
 * gc-large  a GC nursery of 32..256 pages written through, then released
 *           (one flush of the used part), with a 2048-page old generation
 *           read in between (large reuse)
 * gc-small  the same with a 48-page old generation (small reuse)
 * mtu       map-touch-unmap: 4..96 fresh pages mapped, each touched, then
 *           unmapped (one flush), beside a 32-page working set
 * 2m        2M pages: ranges of 2..48 2M entries flushed (2M stride),
 *           between accesses to 96 huge pages and 256 small ones
 * t2        two threads: CPU 0 flushes 4..96 pages and touches 64; CPU 1
 *           reads a 1024-page working set, so the refills are remote
 *
 * Random re-use is of independent loads ('l indep'): nothing in these
 * programs computes an address from what it loaded.
 *
 * And tlbpath-probe's own experiments (tools/tlbpath-probe.c), to replay
 * them against what the probe measured (tests/unit/tlbsim-real.t):
 *
 *   gen reread N W indep|dep PAIRS   E2/E3: a warm pair, then PAIRS pairs
 *           of calls that flush the region's first N pages (read-only,
 *           read-write), each followed by a re-read of W other pages: in
 *           order, or along the probe's chain (stride (W * 5 / 8) | 1)
 *   gen chain F ACCESSES    the dependent chain over F pages (a power of
 *           two), after one warm lap
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAGE		0x1000ull
#define HUGE		0x200000ull
#define WS_BASE		0x100000000ull	/* working sets */
#define FLUSH_BASE	0x200000000ull	/* ranges that get flushed */
#define STREAM_BASE	0x1000000000ull	/* pages touched once */
#define HUGE_BASE	0x4000000000ull	/* 2M-mapped */

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static unsigned int scale = 100;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static unsigned int below(unsigned int n)
{
	return (unsigned int)(rnd() % n);
}

static unsigned int scaled(unsigned int n)
{
	unsigned int s = n * scale / 100;

	return s ? s : 1;
}

static void rd(unsigned int cpu, uint64_t addr)
{
	printf("r %u %#" PRIx64 "\n", cpu, addr);
}

static void wr(unsigned int cpu, uint64_t addr)
{
	printf("w %u %#" PRIx64 "\n", cpu, addr);
}

static void flush(unsigned int cpu, uint64_t start, unsigned int n, unsigned int shift)
{
	printf("f %u %#" PRIx64 " %u %u\n", cpu, start, n, shift);
}

/* @n random reads of a @pages-page working set at @base. */
static void reuse(unsigned int cpu, uint64_t base, unsigned int pages, unsigned int n)
{
	while (n--)
		rd(cpu, base + below(pages) * PAGE);
}

static uint64_t stream_next = STREAM_BASE;

/* @n reads of pages never touched before. */
static void stream(unsigned int cpu, unsigned int n)
{
	while (n--) {
		rd(cpu, stream_next);
		stream_next += PAGE;
	}
}

/* Touch @n pages of the flush region, then flush them (an mprotect). */
static void touch_flush(unsigned int cpu, uint64_t start, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		wr(cpu, start + i * PAGE);
	flush(cpu, start, n, 12);
}

static void phase(void)
{
	static const unsigned int sizes[] = { 8, 16, 24, 32, 48, 64, 96, 128 };
	unsigned int p, i;

	for (p = 0; p < 3; p++)
		for (i = 0; i < scaled(240); i++) {
			touch_flush(0, FLUSH_BASE, sizes[below(8)]);
			if (p == 1)
				stream(0, 512);
			else
				reuse(0, WS_BASE, 1536, 512);
		}
}

static void gc(unsigned int old)
{
	static const unsigned int sizes[] = { 32, 48, 64, 96, 128, 192, 256 };
	unsigned int i, j;

	for (i = 0; i < scaled(600); i++) {
		unsigned int n = sizes[below(7)];
		uint64_t nursery = FLUSH_BASE + (uint64_t)(i & 1) * 256 * PAGE;

		for (j = 0; j < n; j++) {
			wr(0, nursery + j * PAGE);
			if (!(j & 3))
				reuse(0, WS_BASE, old, 2);
		}
		reuse(0, WS_BASE, old, 256);
		flush(0, nursery, n, 12);
	}
}

static void mtu(void)
{
	unsigned int i, j;

	for (i = 0; i < scaled(1500); i++) {
		unsigned int n = 4 + 4 * below(24);
		uint64_t start = stream_next;

		for (j = 0; j < n; j++)
			wr(0, start + j * PAGE);
		stream_next += (uint64_t)(n + 1) * PAGE;
		reuse(0, WS_BASE, 32, 128);
		flush(0, start, n, 12);
	}
}

static void huge(void)
{
	unsigned int i, j;

	printf("p %#llx %#llx 21\n", HUGE_BASE, 512 * HUGE);
	for (i = 0; i < scaled(1200); i++) {
		unsigned int n = 2 + 2 * below(24);
		uint64_t start = HUGE_BASE + 256 * HUGE;

		for (j = 0; j < n; j++)
			wr(0, start + j * HUGE);
		for (j = 0; j < 128; j++) {
			rd(0, HUGE_BASE + below(96) * HUGE + below(512) * PAGE);
			rd(0, WS_BASE + below(256) * PAGE);
		}
		flush(0, start, n, 21);
	}
}

static void t2(void)
{
	unsigned int i, j;

	for (i = 0; i < scaled(1000); i++) {
		unsigned int n = 4 + 4 * below(24);

		touch_flush(0, FLUSH_BASE, n);
		for (j = 0; j < 256; j++) {
			rd(0, WS_BASE + below(64) * PAGE);
			rd(1, WS_BASE + 0x10000000ull + below(1024) * PAGE);
		}
	}
}

#define REGION_BASE	0x300000000ull	/* the probe's mprotect() target */

static void reread_pages(unsigned long w, bool dep)
{
	unsigned long i, idx = 0, stride = (w * 5 / 8) | 1;

	for (i = 0; i < w; i++) {
		rd(0, WS_BASE + (dep ? idx : i) * PAGE);
		idx = (idx + stride) % w;
	}
}

static void reread(unsigned long n, unsigned long w, bool dep, unsigned long pairs)
{
	unsigned long i;

	printf("l %s\n", dep ? "dep" : "indep");
	for (i = 0; i < n + 1; i++)
		wr(0, REGION_BASE + i * PAGE);
	for (i = 0; i < w; i++)
		wr(0, WS_BASE + i * PAGE);
	for (i = 0; i < 2 * (pairs + 1); i++) {
		flush(0, REGION_BASE, n, 12);
		reread_pages(w, dep);
	}
}

static void chain(unsigned long f, unsigned long accesses)
{
	unsigned long i, idx = 0, stride = (f * 5 / 8) | 1;

	printf("l dep\n");
	for (i = 0; i < f + accesses; i++) {
		rd(0, WS_BASE + idx * PAGE);
		idx = (idx + stride) & (f - 1);
	}
}

static bool arg(const char *s, unsigned long max, unsigned long *v)
{
	char *end;

	*v = strtoul(s, &end, 10);
	return *s && !*end && *v <= max;
}

/* gen reread|chain ARGS: the probe's experiments; 0, or 2 on bad arguments. */
static int probe_workload(int argc, char **argv)
{
	unsigned long a, b, c;

	printf("# tlbsim trace 1\n#");
	for (c = 0; c < (unsigned long)argc; c++)
		printf(" %s", argv[c]);
	printf("\n");
	if (!strcmp(argv[1], "reread") && argc == 6 && arg(argv[2], 1 << 20, &a) && a &&
	    arg(argv[3], 1 << 20, &b) && (!strcmp(argv[4], "dep") || !strcmp(argv[4], "indep")) &&
	    arg(argv[5], 1 << 20, &c)) {
		reread(a, b, !strcmp(argv[4], "dep"), c);
	} else if (!strcmp(argv[1], "chain") && argc == 4 && arg(argv[2], 1 << 20, &a) && a &&
		   !(a & (a - 1)) && arg(argv[3], 1ul << 30, &b)) {
		chain(a, b);
	} else {
		fprintf(stderr, "usage: gen reread N W indep|dep PAIRS | gen chain F ACCESSES\n");
		return 2;
	}
	return fflush(stdout) ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && (!strcmp(argv[1], "reread") || !strcmp(argv[1], "chain")))
		return probe_workload(argc, argv);
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: gen phase|gc-large|gc-small|mtu|2m|t2 [SCALE%%]\n"
			"       gen reread N W indep|dep PAIRS | gen chain F ACCESSES\n");
		return 2;
	}
	if (argc == 3)
		scale = (unsigned int)atoi(argv[2]);
	if (!scale || scale > 1000) {
		fprintf(stderr, "gen: SCALE is 1..1000\n");
		return 2;
	}
	printf("# tlbsim trace 1\n# bench/tlbsim/gen %s %u\nl indep\n", argv[1], scale);
	if (!strcmp(argv[1], "phase")) {
		phase();
	} else if (!strcmp(argv[1], "gc-large")) {
		gc(2048);
	} else if (!strcmp(argv[1], "gc-small")) {
		gc(48);
	} else if (!strcmp(argv[1], "mtu")) {
		mtu();
	} else if (!strcmp(argv[1], "2m")) {
		huge();
	} else if (!strcmp(argv[1], "t2")) {
		t2();
	} else {
		fprintf(stderr, "gen: unknown workload %s\n", argv[1]);
		return 2;
	}
	return fflush(stdout) ? 1 : 0;
}
