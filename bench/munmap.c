// SPDX-License-Identifier: GPL-2.0
/*
 * munmap: the cost of a remote TLB shootdown on unmap.
 *
 * The main thread, pinned to the first CPU, maps -n pages, writes each one
 * (so each has a PTE and, here, a TLB entry) and unmaps them, -l times
 * over.  Meanwhile -t threads, pinned to the other CPUs, keep the same mm
 * live there by touching pages of a separate buffer, so every munmap()
 * must reach them: an IPI to each, and on each either -n INVLPGs or a
 * full flush, whichever the flush policy picks for an -n page range.  The
 * threads' access rate shows what that costs them in TLB refills.
 *
 *   -n N    pages per mapping                               (default 64)
 *   -l N    map/touch/unmap loops                           (default 2000)
 *   -t N    threads keeping the mm live on other CPUs       (default 1)
 *   -p N    pages each thread touches per round             (default 64)
 *   -s MiB  size of the threads' buffer                     (default 16)
 *   -c N    self-check every N loops; 0 turns it off        (default 16)
 *   -T FILE write a trace for bench/tlbsim: the accesses, and the
 *           -n pages each munmap flushes.  The threads then touch -p
 *           pages once per loop, in lockstep with the main thread, so
 *           the trace is the same from run to run.
 *
 * Self-check, every -c loops: after munmap() a load from the first, middle
 * and last page must fault with SEGV_MAPERR (a stale translation left by a
 * skipped invalidation would let it read the freed page), mincore() on
 * them must fail with ENOMEM, and the next mapping, which the kernel
 * usually places at the same address, must read as zeros before it is
 * written.  A wrong result prints
 * "munmap: FAIL ..." on stderr and exits 1.
 *
 * Prints one line of key=value figures; times are CLOCK_MONOTONIC
 * nanoseconds of whatever runs it (emulated time under QEMU TCG).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "benchlib.h"

#define PAGE 4096ul
#define STEP 7919ul	/* prime: the threads walk their pages out of order */

static char *buf;
static size_t buf_pages;
static int touch_pages = 64;


struct worker {
	pthread_t tid;
	int cpu, index;
	unsigned long long accesses;
	char **seen;		/* -T: the pages of its last round */
};

static void fail(const char *what, int loop, int pg)
{
	fprintf(stderr, "munmap: FAIL %s (loop %d, page %d)\n", what, loop, pg);
	exit(1);
}

/*
 * One round: touch_pages writes from page @k on, @STEP apart, each noted
 * in @seen if it is not NULL; the page after the last.  Inlined, so that
 * the untraced loop has no test of @seen.
 */
static inline __attribute__((always_inline)) unsigned long
touch_round(struct worker *w, unsigned long k, char **seen)
{
	int i;

	for (i = 0; i < touch_pages; i++) {
		k = (k + STEP) % buf_pages;
		((volatile char *)buf)[k * PAGE] += 1;
		if (seen)
			seen[i] = buf + k * PAGE;
	}
	w->accesses += touch_pages;
	return k;
}

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	unsigned long k = (unsigned long)w->cpu * 1009;
	int round;

	bench_thread_ready(w->cpu);
	while (atomic_load(&run_state) == 0)
		;
	/* -T: one round per main loop, noted. */
	if (trace_file) {
		for (round = 1; lockstep_wait(round); round++) {
			k = touch_round(w, k, w->seen);
			atomic_fetch_add(&trace_done, 1);
		}
		return NULL;
	}
	/* Spin in user space: the mm stays loaded here, so munmap must IPI us. */
	while (atomic_load(&run_state) == 1)
		k = touch_round(w, k, NULL);
	return NULL;
}

static void *map_anon(size_t len, int populate)
{
	return map_or_die("munmap", len, MAP_PRIVATE | (populate ? MAP_POPULATE : 0));
}

/* A fresh anonymous mapping reads as zeros, wherever it landed. */
static void check_zero(const char *p, int n, int loop)
{
	int k;

	for (k = 0; k < n; k++)
		if (((const volatile long *)(p + k * PAGE))[k % 64])
			fail("fresh mapping shows old contents", loop, k);
}

/* Nothing may remain mapped, or cached as mapped, in [p, p + n pages). */
static void check_gone(char *p, int n, int loop)
{
	int probe[3] = { 0, n / 2, n - 1 };
	unsigned char vec[1];
	int k;

	for (k = 0; k < 3; k++) {
		char *a = p + probe[k] * PAGE;

		if (!try_load(a))
			fail("load from an unmapped page did not fault", loop, probe[k]);
		if (fault_addr != a || fault_code != SEGV_MAPERR)
			fail("fault at the wrong address or of the wrong kind", loop, probe[k]);
		if (mincore(a, PAGE, vec) == 0 || errno != ENOMEM)
			fail("mincore finds a page after munmap", loop, probe[k]);
	}
}

int main(int argc, char **argv)
{
	int n = 64, loops = 2000, threads = 1, every = 16, c, i, l;
	unsigned long long t0, un_ns = 0, done = 0, checks = 0;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct worker *w;
	unsigned long mib = 16;
	const char *trace_path = NULL;
	const struct bench_opt opts[] = {
		{ 'n', OPT_INT, &n }, { 'l', OPT_INT, &loops }, { 't', OPT_INT, &threads },
		{ 'p', OPT_INT, &touch_pages }, { 's', OPT_ULONG, &mib }, { 'c', OPT_INT, &every },
		{ 'T', OPT_STR, &trace_path },
	};

	parse_opts(argc, argv, opts, sizeof(opts) / sizeof(opts[0]),
		   "[-n pages] [-l loops] [-t threads] [-p pages] [-s MiB] [-c every] [-T trace]");
	if (n < 1 || loops < 1 || threads < 0 || touch_pages < 1 || !mib || every < 0) {
		fprintf(stderr, "munmap: bad arguments\n");
		return 2;
	}

	buf_pages = (mib << 20) / PAGE;
	buf = map_anon(buf_pages * PAGE, 0);
	memset(buf, 0, buf_pages * PAGE);
	if (trace_path) {
		trace_open("munmap", trace_path, argc, argv);
		for (i = 0; (size_t)i < buf_pages; i++)
			trace_access(0, buf + i * PAGE, 1);
	}

	install_probe_handler("munmap");
	w = calloc(threads + 1, sizeof(*w));
	if (!w)
		return 1;
	pin(bench_cpu(-1));
	for (i = 0; i < threads; i++) {
		w[i].cpu = bench_cpu(i);
		w[i].index = i;
		if (trace_file && !(w[i].seen = calloc(touch_pages, sizeof(*w[i].seen))))
			return 1;
		if (pthread_create(&w[i].tid, NULL, worker_fn, &w[i])) {
			fprintf(stderr, "munmap: pthread_create failed\n");
			return 1;
		}
	}
	bench_wait_ready(threads);

	atomic_store(&run_state, 1);
	t0 = now_ns();
	for (l = 0; l < loops; l++) {
		int check = every && l % every == 0;
		/*
		 * A checked loop populates its pages up front: reading
		 * them before writing would map the zero page and each
		 * write would then copy it with a flush of its own (a
		 * remote one, with the threads running), which is not
		 * what is measured here.
		 */
		char *p = map_anon(n * PAGE, check);
		unsigned long long a;

		if (check)
			check_zero(p, n, l);
		for (i = 0; i < n; i++)
			((volatile long *)(p + i * PAGE))[i % 64] = l + 1;
		if (trace_file) {
			for (i = 0; i < n; i++)
				trace_access(0, p + i * PAGE + (i % 64) * sizeof(long), 1);
			trace_vm();
		}
		a = now_ns();
		if (munmap(p, n * PAGE)) {
			fprintf(stderr, "munmap: %s\n", strerror(errno));
			return 1;
		}
		un_ns += now_ns() - a;
		if (trace_file) {
			/* Every page was written: the whole range has PTEs to flush. */
			fprintf(trace_file, "f 0 %p %d 12\n", (void *)p, n);
			lockstep_round(threads, l + 1);
			for (i = 0; i < threads; i++)
				for (c = 0; c < touch_pages; c++)
					trace_access(i + 1, w[i].seen[c], 1);
		}
		if (check) {
			check_gone(p, n, l);
			checks++;
		}
	}
	atomic_store(&run_state, 2);
	t0 = now_ns() - t0;
	for (i = 0; i < threads; i++) {
		pthread_join(w[i].tid, NULL);
		done += w[i].accesses;
	}

	printf("munmap n=%d loops=%d threads=%d cpus=%ld ns_per_munmap=%llu ns_per_loop=%llu",
	       n, loops, threads, ncpu, un_ns / loops, t0 / loops);
	if (threads)
		print_thread_rate(done, t0, threads);
	printf(" checks=%llu\n", checks);
	if (trace_file)
		trace_close("munmap");
	return 0;
}
