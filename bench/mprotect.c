// SPDX-License-Identifier: GPL-2.0
/*
 * mprotect: the TLB flush-range macrobenchmark, after Alex Shi's 2012
 * mprotect.c (same knobs, same figures), written afresh.
 *
 * A region of -n pages is populated once; then, -l times over, for
 * i = 1..n, mprotect() flips the first i pages between read-only and
 * read-write (each call that changes present PTEs flushes i pages), and
 * -p random pages of a large buffer are touched after each call, so the
 * cost of refilling the TLB after a full flush shows up in the access
 * time.  With -t N, N threads touch the buffer instead, pinned to the
 * other CPUs (the main thread to the first), which turns every flush into
 * a remote shootdown.
 *
 *   -n N    flush entries: ranges of 1..N pages          (default 32)
 *   -l N    loops over 1..N                               (default 1024)
 *   -p N    pages touched after each mprotect             (default 512)
 *   -w      write instead of read
 *   -t N    N threads touch memory concurrently           (default 0)
 *   -h      use 2M huge pages (MAP_HUGETLB)
 *   -s MiB  size of the touched buffer                    (default 64)
 *   -f N    fixed range: every mprotect covers N pages (no 1..N sweep)
 *   -c N    self-check two calls (one read-only, one read-write) out of
 *           every N; 0 turns the check off                (default 32)
 *   -T FILE write a trace for bench/tlbsim: the accesses, and the range
 *           each mprotect makes the kernel flush (the pages whose
 *           protection changed, first to last, as its mmu_gather
 *           collects them; hugetlb: the whole call).  With -t, each
 *           thread then touches -p pages once per mprotect call, in
 *           lockstep with it, so the trace is the same from run to run.
 *
 * The self-check is what makes a fast result worth anything: a flush
 * that skipped an invalidation would leave a writable translation behind
 * a read-only PTE.  So the check first writes every page of the range
 * while it is writable (loading writable TLB entries), and after the next
 * call has made the range read-only a store to it must fault with
 * SEGV_ACCERR at that address; after a read-write call stores must land;
 * and every page of the region must still hold what was last written.
 * The check runs outside the timed sections.  A wrong result prints
 * "mprotect: FAIL ..." on stderr and exits 1.
 *
 * Prints one line of key=value figures (ns_per_call: an mprotect and the
 * accesses after it, without -t); times are CLOCK_MONOTONIC
 * nanoseconds of whatever runs it (emulated time under QEMU TCG).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <sched.h>
#include <unistd.h>

#include "benchlib.h"

#ifndef MAP_HUGETLB
#define MAP_HUGETLB 0x40000
#endif

#define NRAND 4096

static unsigned long page = 4096;
static char *buf;
static size_t buf_size;
static unsigned int rnd[NRAND];
static int write_mode;
static int touch_pages = 512;
static void *thread_counts;	/* the threads' counters: thread i has the i-th */

static char *region;
static unsigned char *shadow;	/* what each region page should hold */
static int region_pages;

/* -T: the protection of each region page (1: writable), the threads' pages. */
static unsigned char *writable;
static char ***trace_seen;	/* per thread: the pages of its last round */


/*
 * Touch @n random pages of the buffer, noting each in @seen if it is not
 * NULL.  Inlined into each caller, so that the timed touch() has no test
 * of @seen in its loop.
 */
static inline __attribute__((always_inline)) void touch(int n, char **seen)
{
	int k;

	for (k = 0; k < n; k++) {
		volatile char *a = buf + (rnd[k % NRAND] % (buf_size / page)) * page;

		if (write_mode)
			*a = 1;
		else
			(void)*a;
		if (seen)
			seen[k] = (char *)a;
	}
}

/* -T with threads: one round of touch() per mprotect call. */
static void toucher_lockstep(int me, unsigned long long *count)
{
	int round;

	for (round = 1; lockstep_wait(round); round++) {
		touch(touch_pages, trace_seen[me]);
		(*count)++;
		atomic_fetch_add(&trace_done, 1);
	}
}

static void *toucher(void *arg)
{
	unsigned long long *count = arg;
	int me = count - (unsigned long long *)thread_counts;

	bench_thread_ready(bench_cpu(me));
	while (atomic_load(&run_state) == 0)
		;
	if (trace_file) {
		toucher_lockstep(me, count);
		return NULL;
	}
	while (atomic_load(&run_state) == 1) {
		touch(touch_pages, NULL);
		(*count)++;
	}
	return NULL;
}

static void fail(const char *what, int pg, int range)
{
	fprintf(stderr, "mprotect: FAIL %s (page %d of a %d-page range)\n",
		what, pg, range);
	exit(1);
}

/* Pages 0..range-1 were just made read-only: stores must fault there. */
static void check_readonly(int range)
{
	int probe[3] = { 0, range / 2, range - 1 };
	int k;

	for (k = 0; k < 3; k++) {
		unsigned char *p = (unsigned char *)region + (size_t)probe[k] * page;

		/* Same value as before, so a wrong success changes nothing. */
		if (!try_store(p, shadow[probe[k]]))
			fail("store to a read-only page did not fault", probe[k], range);
		if (fault_addr != p || fault_code != SEGV_ACCERR)
			fail("fault at the wrong address or of the wrong kind", probe[k], range);
	}
}

/* Pages 0..range-1 were just made read-write: every store must land. */
static void check_readwrite(int range)
{
	int k;

	for (k = 0; k < range; k++) {
		unsigned char *p = (unsigned char *)region + (size_t)k * page;

		if (try_store(p, shadow[k] + 1))
			fail("store to a read-write page faulted", k, range);
		shadow[k]++;
	}
}

/* Whatever the protections, every page must read back what was stored. */
static void check_contents(int range)
{
	int k;

	for (k = 0; k < region_pages; k++)
		if (((volatile unsigned char *)region)[(size_t)k * page] != shadow[k])
			fail("page lost its contents", k, range);
}

static void *map(size_t len, int huge)
{
	return map_or_die("mprotect", len, MAP_SHARED | (huge ? MAP_HUGETLB : 0));
}

/*
 * -T: log the flush of mprotect(region, @range pages, @prot).  Only PTEs
 * whose protection changes are flushed, and the kernel's mmu_gather
 * flushes from the first to the last of them (none: no flush); hugetlb
 * flushes the whole range.
 */
static void trace_mprotect(int range, int prot, int huge)
{
	int w = !!(prot & PROT_WRITE), first = -1, last = -1, k;

	for (k = 0; k < range; k++) {
		if (writable[k] != w) {
			if (first < 0)
				first = k;
			last = k;
		}
		writable[k] = w;
	}
	if (huge)
		trace_flush(0, region, range, 21);
	else if (first >= 0)
		trace_flush(0, region + (size_t)first * page, last - first + 1, 12);
}

/* -T with threads: release one round of accesses and log it. */
static void trace_round_of_threads(int threads, int round)
{
	int i, k;

	lockstep_round(threads, round);
	for (i = 0; i < threads; i++)
		for (k = 0; k < touch_pages; k++)
			trace_access(i + 1, trace_seen[i][k], write_mode);
}

int main(int argc, char **argv)
{
	int n = 32, loops = 1024, threads = 0, huge = 0, fixed = 0, every = 32;
	unsigned long long t0, mp_ns = 0, ac_ns = 0, calls = 0, done = 0, checks = 0;
	unsigned long long *counts;
	pthread_t *tid;
	int i, j, k;
	unsigned long mib = 64;
	const char *trace_path = NULL;
	char **seen = NULL;
	const struct bench_opt opts[] = {
		{ 'n', OPT_INT, &n }, { 'l', OPT_INT, &loops }, { 'p', OPT_INT, &touch_pages },
		{ 'w', OPT_FLAG, &write_mode }, { 't', OPT_INT, &threads }, { 'h', OPT_FLAG, &huge },
		{ 's', OPT_ULONG, &mib }, { 'f', OPT_INT, &fixed }, { 'c', OPT_INT, &every },
		{ 'T', OPT_STR, &trace_path },
	};

	parse_opts(argc, argv, opts, sizeof(opts) / sizeof(opts[0]),
		   "[-n pages] [-l loops] [-p pages] [-w] [-t threads] [-h] [-s MiB] [-f pages]"
		   " [-c every] [-T trace]");
	if (n < 1 || loops < 1 || touch_pages < 0 || threads < 0 || fixed < 0 || !mib ||
	    every < 0 || every == 1) {
		fprintf(stderr, "mprotect: bad arguments\n");
		return 2;
	}
	if (fixed)
		n = fixed;
	if (huge)
		page = 2ul << 20;

	srand(1);
	for (i = 0; i < NRAND; i++)
		rnd[i] = rand();
	buf_size = mib << 20;
	if (buf_size < page)
		buf_size = page;
	buf = map(buf_size, huge);
	if (trace_path) {
		trace_open("mprotect", trace_path, argc, argv);
		if (huge)
			trace_pages(buf, buf_size, 21);
	}
	for (i = 0; (size_t)i < buf_size / page; i++) {
		buf[(size_t)i * page] = 0;
		if (trace_file)
			trace_access(0, buf + (size_t)i * page, 1);
	}

	region = map((size_t)n * page, huge);
	region_pages = n;
	shadow = malloc(n);
	writable = malloc(n);
	if (!shadow || !writable)
		return 1;
	if (trace_file && huge)
		trace_pages(region, (size_t)n * page, 21);
	for (i = 0; i < n; i++) {
		shadow[i] = i * 7 + 1;
		region[(size_t)i * page] = shadow[i];	/* present PTEs, or nothing flushes */
		writable[i] = 1;
		if (trace_file)
			trace_access(0, region + (size_t)i * page, 1);
	}
	if (trace_file) {
		seen = malloc((touch_pages + 1) * sizeof(*seen));
		trace_seen = calloc(threads + 1, sizeof(*trace_seen));
		if (!seen || !trace_seen)
			return 1;
		for (i = 0; i < threads; i++) {
			trace_seen[i] = malloc((touch_pages + 1) * sizeof(**trace_seen));
			if (!trace_seen[i])
				return 1;
		}
	}
	install_probe_handler("mprotect");

	counts = calloc(threads + 1, sizeof(*counts));
	tid = calloc(threads + 1, sizeof(*tid));
	thread_counts = counts;
	if (threads)
		pin(bench_cpu(-1));
	for (i = 0; i < threads; i++)
		if (pthread_create(&tid[i], NULL, toucher, &counts[i])) {
			fprintf(stderr, "mprotect: pthread_create failed\n");
			return 1;
		}
	bench_wait_ready(threads);

	atomic_store(&run_state, 1);
	t0 = now_ns();
	for (j = 0; j < loops; j++) {
		for (i = fixed ? fixed : 1; i <= n; i++) {
			int prot = (calls & 1) ? PROT_READ | PROT_WRITE : PROT_READ;
			unsigned long long a = now_ns(), b;

			if (mprotect(region, (size_t)i * page, prot)) {
				fprintf(stderr, "mprotect: %s\n", strerror(errno));
				return 1;
			}
			b = now_ns();
			mp_ns += b - a;
			calls++;
			if (trace_file)
				trace_mprotect(i, prot, huge);
			if (trace_file && threads)
				trace_round_of_threads(threads, calls);
			if (!threads && trace_file) {
				touch(touch_pages, seen);
				ac_ns += now_ns() - b;
				for (k = 0; k < touch_pages; k++)
					trace_access(0, seen[k], write_mode);
			} else if (!threads) {
				touch(touch_pages, NULL);
				ac_ns += now_ns() - b;
			}
			/*
			 * Untimed.  Checks a read-write call and the
			 * read-only call after it, so the stores of the
			 * first have loaded writable TLB entries that the
			 * second's flush must remove.
			 */
			if (every && calls % every < 2) {
				if (prot == PROT_READ)
					check_readonly(i);
				else
					check_readwrite(i);
				check_contents(i);
				checks++;
			}
		}
	}
	atomic_store(&run_state, 2);
	t0 = now_ns() - t0;
	for (i = 0; i < threads; i++) {
		pthread_join(tid[i], NULL);
		done += counts[i] * touch_pages;
	}

	printf("mprotect n=%d loops=%d pages_touched=%d threads=%d huge=%d calls=%llu ns_per_mprotect=%llu",
	       n, loops, touch_pages, threads, huge, calls, mp_ns / calls);
	if (threads)
		print_thread_rate(done, t0, threads);
	else
		printf(" ns_per_access=%llu ns_per_call=%llu",
		       touch_pages ? ac_ns / (calls * touch_pages) : 0,
		       (mp_ns + ac_ns) / calls);
	printf(" checks=%llu\n", checks);
	if (trace_file)
		trace_close("mprotect");
	return 0;
}
