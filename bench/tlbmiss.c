// SPDX-License-Identifier: GPL-2.0
/*
 * tlbmiss: what a TLB refill costs, as the footprint in pages grows.
 *
 * After Zoltan Menyhart's ia64 VHPT-miss test (one access per page, the
 * data always in cache, so only translation misses), written afresh for
 * x86-64.  To keep every access a cache hit however many pages it spans,
 * all F virtual pages map the *same* physical page (one memfd page mapped
 * F times): caches are physically tagged, so the data is at most 64 lines,
 * 4 KiB, while the TLB needs one entry per virtual page.  Page j is read
 * at line j % 64, which spreads the accesses over every L1 set instead of
 * piling them into one.
 *
 * Each access's address depends on the value the previous one loaded, so
 * accesses cannot overlap and the time per access is a latency: cache hit
 * plus, once F outgrows the TLB, a page walk.  Pages are visited in a
 * fixed odd stride modulo F (a full cycle, out of order) to keep next-page
 * prefetchers out of it.  A refill after a full flush costs about this
 * much per page touched again, which is what a flush threshold weighs
 * against the INVLPGs it saves.
 *
 *   -m N    smallest footprint in pages, a power of two     (default 8)
 *   -f N    largest footprint in pages, a power of two, at most
 *           32768 (vm.max_map_count allows 65530 mappings) (default 4096)
 *   -a N    timed accesses per footprint                    (default 1048576)
 *
 * Self-check: every mapping must show the page's contents (sampled before
 * timing), and each timed run must end on the page the arithmetic says it
 * must: a wrong value loaded anywhere derails the walk.  A wrong result
 * prints "tlbmiss: FAIL ..." on stderr and exits 1.
 *
 * Prints one key=value line per footprint; times are CLOCK_MONOTONIC
 * nanoseconds of whatever runs it (emulated time under QEMU TCG).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "benchlib.h"

#define PAGE 4096ul
#define LINE 64ul
#define LINES (PAGE / LINE)

static void die(const char *what)
{
	fprintf(stderr, "tlbmiss: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void fail(const char *what, unsigned long pages)
{
	fprintf(stderr, "tlbmiss: FAIL %s (footprint %lu pages)\n", what, pages);
	exit(1);
}

static int is_pow2(unsigned long x)
{
	return x && !(x & (x - 1));
}

static unsigned int *line_at(const char *base, unsigned long idx)
{
	return (unsigned int *)(base + idx * PAGE + (idx % LINES) * LINE);
}

/*
 * The walk: line j of the shared page holds j, so (v - line) is 0 and the
 * next index is idx + stride, but the CPU cannot know that before the load
 * completes.
 */
static unsigned long walk(const char *base, unsigned long mask,
			  unsigned long stride, unsigned long n, unsigned long idx)
{
	while (n--) {
		unsigned long line = idx % LINES;
		unsigned int v = *(const volatile unsigned int *)line_at(base, idx);

		idx = (idx + stride + v - line) & mask;
	}
	return idx;
}

/* Map one physical page at @pages consecutive virtual pages. */
static char *map_aliases(unsigned long pages)
{
	int fd = syscall(SYS_memfd_create, "tlbmiss", 0);
	unsigned int *data;
	unsigned long j;
	char *base;

	if (fd < 0)
		die("memfd_create");
	if (ftruncate(fd, PAGE))
		die("ftruncate");
	data = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (data == MAP_FAILED)
		die("mmap");
	for (j = 0; j < LINES; j++)
		data[j * LINE / sizeof(*data)] = j;

	/* Reserve the range, then put a one-page mapping on each page. */
	base = mmap(NULL, pages * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED)
		die("mmap reserve");
	for (j = 0; j < pages; j++)
		if (mmap(base + j * PAGE, PAGE, PROT_READ, MAP_SHARED | MAP_FIXED | MAP_POPULATE,
			 fd, 0) == MAP_FAILED)
			die("mmap alias");
	for (j = 0; j < pages; j++)
		if (*line_at(base, j) != j % LINES)
			fail("an alias does not show the shared page", pages);
	close(fd);
	return base;
}

int main(int argc, char **argv)
{
	unsigned long lo = 8, hi = 4096, accesses = 1ul << 20, f;
	char *base;
	const struct bench_opt opts[] = {
		{ 'm', OPT_ULONG, &lo }, { 'f', OPT_ULONG, &hi }, { 'a', OPT_ULONG, &accesses },
	};

	parse_opts(argc, argv, opts, sizeof(opts) / sizeof(opts[0]),
		   "[-m pages] [-f pages] [-a accesses]");
	if (!is_pow2(lo) || !is_pow2(hi) || lo > hi || hi > (1ul << 15) || !accesses) {
		fprintf(stderr, "tlbmiss: bad arguments (footprints must be powers of two)\n");
		return 2;
	}

	base = map_aliases(hi);
	for (f = lo; f <= hi; f *= 2) {
		/* Odd, so the walk cycles through all f pages; about 0.62 f apart. */
		unsigned long stride = (f * 5 / 8) | 1, mask = f - 1, idx;
		unsigned long long t;

		idx = walk(base, mask, stride, f, 0);	/* load the TLB, untimed */
		t = now_ns();
		idx = walk(base, mask, stride, accesses, idx);
		t = now_ns() - t;
		if (idx != ((f + accesses) * stride & mask))
			fail("the walk ended on the wrong page", f);
		printf("tlbmiss pages=%lu accesses=%lu ns_per_access=%.2f\n",
		       f, accesses, (double)t / accesses);
		fflush(stdout);
	}
	return 0;
}
