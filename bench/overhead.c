// SPDX-License-Identifier: GPL-2.0
/*
 * overhead: what one small flushing system call costs, in guest
 * instructions, for the hook-cost benchmark (make bench-overhead).
 *
 * Under QEMU with -icount shift=0 the guest's clock advances one
 * nanosecond per instruction executed, and the TSC with it, so a TSC
 * delta around a call counts the instructions the call executed.  RDTSC
 * is one instruction; the ticks per instruction are measured on a loop of
 * known length first.  Three calls, each on a page that is present, so
 * that the kernel has something to flush:
 *
 *   mprotect1   mprotect() of one touched page, PROT_READ then back to
 *               PROT_READ|PROT_WRITE (the two calls averaged)
 *   munmap1     munmap() of one touched page
 *   madvise16   madvise(MADV_DONTNEED) of 16 touched pages
 *
 * Each is run LOOPS times and the median call is printed, so a timer
 * interrupt that lands in a few calls moves nothing.  On real hardware the
 * numbers are TSC cycles, not instructions: use it under icount only.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE	4096UL

/* The time-stamp counter: one instruction, which icount counts as one. */
static inline uint64_t rdtsc(void)
{
#if defined(__aarch64__)
	uint64_t t;

	__asm__ volatile("isb; mrs %0, cntvct_el0" : "=r"(t));
	return t;
#else
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
#endif
}

/* TSC ticks per 1000 instructions, on a loop of 2 instructions a turn. */
static uint64_t ticks_per_kinstr(void)
{
	uint64_t n = 20000000, t0, t1;

	t0 = rdtsc();
#if defined(__aarch64__)
	__asm__ volatile("1: subs %0, %0, #1\n\tb.ne 1b" : "+r"(n) : : "cc");
#else
	__asm__ volatile("1: dec %0\n\tjnz 1b" : "+r"(n) : : "cc");
#endif
	t1 = rdtsc();
	return (t1 - t0) * 1000 / (2 * 20000000);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return v[n / 2];
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static char *map(unsigned long pages)
{
	char *p = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("mmap");
	return p;
}

static void touch(char *p, unsigned long pages)
{
	unsigned long i;

	for (i = 0; i < pages; i++)
		((volatile char *)p)[i * PAGE] = 1;
}

/*
 * The calls measured: each dies if the call fails.  mprotect_rw makes two
 * calls (read-only, then back), so its time is halved.
 */
static inline void mprotect_rw(char *p)
{
	if (mprotect(p, PAGE, PROT_READ))
		die("mprotect");
	if (mprotect(p, PAGE, PROT_READ | PROT_WRITE))
		die("mprotect");
}

static inline void munmap_1(char *p)
{
	if (munmap(p, PAGE))
		die("munmap");
}

static inline void madvise_16(char *p)
{
	if (madvise(p, 16 * PAGE, MADV_DONTNEED))
		die("madvise");
}

/*
 * The median of @loops timings of @call on @pages touched pages, mapped
 * once or, if @fresh, for each call (@call unmaps them), divided by @per.
 * always_inline with constant arguments, so each use compiles to the loop
 * it replaced: @call inlined between the two RDTSCs, no indirect call.
 */
static inline __attribute__((always_inline)) uint64_t
time_call(uint64_t *v, int loops, void (*call)(char *p), unsigned long pages, int fresh,
	  unsigned int per)
{
	char *p = fresh ? NULL : map(pages);
	uint64_t t0;
	int i;

	for (i = 0; i < loops; i++) {
		if (fresh)
			p = map(pages);
		touch(p, pages);
		t0 = rdtsc();
		call(p);
		v[i] = (rdtsc() - t0) / per;
	}
	if (!fresh)
		munmap(p, pages * PAGE);
	return median(v, loops);
}

static uint64_t mprotect1(uint64_t *v, int loops)
{
	return time_call(v, loops, mprotect_rw, 1, 0, 2);
}

static uint64_t munmap1(uint64_t *v, int loops)
{
	return time_call(v, loops, munmap_1, 1, 1, 1);
}

static uint64_t madvise16(uint64_t *v, int loops)
{
	return time_call(v, loops, madvise_16, 16, 0, 1);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		uint64_t (*run)(uint64_t *v, int loops);
	} calls[] = {
		{ "mprotect1", mprotect1 },
		{ "munmap1", munmap1 },
		{ "madvise16", madvise16 },
	};
	int loops = argc > 1 ? atoi(argv[1]) : 2000;
	const char *label = argc > 2 ? argv[2] : "run";
	uint64_t tpk, *v;
	unsigned int i;

	if (loops < 1) {
		fprintf(stderr, "usage: overhead [LOOPS] [LABEL]\n");
		return 2;
	}
	v = calloc(loops, sizeof(*v));
	if (!v)
		die("calloc");
	tpk = ticks_per_kinstr();
	if (!tpk) {
		fprintf(stderr, "overhead: the TSC does not advance\n");
		return 1;
	}
	for (i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		uint64_t ticks = calls[i].run(v, loops);

		printf("overhead %s call=%s instr=%llu ticks=%llu\n", label,
		       calls[i].name, (unsigned long long)(ticks * 1000 / tpk),
		       (unsigned long long)ticks);
	}
	return 0;
}
