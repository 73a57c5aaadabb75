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
 * time.  With -t N, N threads touch the buffer instead, on other CPUs,
 * which turns every flush into a remote shootdown.
 *
 *   -n N    flush entries: ranges of 1..N pages          (default 32)
 *   -l N    loops over 1..N                               (default 1024)
 *   -p N    pages touched after each mprotect             (default 512)
 *   -w      write instead of read
 *   -t N    N threads touch memory concurrently           (default 0)
 *   -h      use 2M huge pages (MAP_HUGETLB)
 *   -s MiB  size of the touched buffer                    (default 64)
 *   -f N    fixed range: every mprotect covers N pages (no 1..N sweep)
 *
 * Prints one line of key=value figures; times are CLOCK_MONOTONIC
 * nanoseconds of whatever runs it (emulated time under QEMU TCG).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

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
static atomic_int run_state;	/* 0: wait, 1: run, 2: stop */

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void touch(int n)
{
	int k;

	for (k = 0; k < n; k++) {
		volatile char *a = buf + (rnd[k % NRAND] % (buf_size / page)) * page;

		if (write_mode)
			*a = 1;
		else
			(void)*a;
	}
}

static void *toucher(void *arg)
{
	unsigned long long *count = arg;

	while (atomic_load(&run_state) == 0)
		;
	while (atomic_load(&run_state) == 1) {
		touch(touch_pages);
		(*count)++;
	}
	return NULL;
}

static void *map(size_t len, int huge)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_ANONYMOUS | MAP_SHARED | (huge ? MAP_HUGETLB : 0), -1, 0);

	if (p == MAP_FAILED) {
		fprintf(stderr, "mprotect: mmap of %zu bytes: %s\n", len, strerror(errno));
		exit(1);
	}
	return p;
}

int main(int argc, char **argv)
{
	int n = 32, loops = 1024, threads = 0, huge = 0, fixed = 0;
	unsigned long long t0, mp_ns = 0, ac_ns = 0, calls = 0, done = 0;
	unsigned long long *counts;
	pthread_t *tid;
	char *region;
	int c, i, j;
	size_t mib = 64;

	while ((c = getopt(argc, argv, "n:l:p:wt:hs:f:")) != -1) {
		switch (c) {
		case 'n': n = atoi(optarg); break;
		case 'l': loops = atoi(optarg); break;
		case 'p': touch_pages = atoi(optarg); break;
		case 'w': write_mode = 1; break;
		case 't': threads = atoi(optarg); break;
		case 'h': huge = 1; break;
		case 's': mib = strtoul(optarg, NULL, 0); break;
		case 'f': fixed = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: %s [-n pages] [-l loops] [-p pages] [-w] [-t threads] [-h] [-s MiB] [-f pages]\n",
				argv[0]);
			return 2;
		}
	}
	if (n < 1 || loops < 1 || touch_pages < 0 || threads < 0 || fixed < 0 || !mib) {
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
	for (i = 0; (size_t)i < buf_size / page; i++)
		buf[(size_t)i * page] = 0;

	region = map((size_t)n * page, huge);
	for (i = 0; i < n; i++)
		region[(size_t)i * page] = 1;	/* present PTEs, or nothing flushes */

	counts = calloc(threads + 1, sizeof(*counts));
	tid = calloc(threads + 1, sizeof(*tid));
	for (i = 0; i < threads; i++)
		if (pthread_create(&tid[i], NULL, toucher, &counts[i])) {
			fprintf(stderr, "mprotect: pthread_create failed\n");
			return 1;
		}

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
			if (!threads) {
				touch(touch_pages);
				ac_ns += now_ns() - b;
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
		printf(" thread_accesses=%llu ns_per_thread_access=%llu\n",
		       done, done ? t0 * threads / done : 0);
	else
		printf(" ns_per_access=%llu\n",
		       touch_pages ? ac_ns / (calls * touch_pages) : 0);
	return 0;
}
