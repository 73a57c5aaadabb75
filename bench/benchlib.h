/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the benchmarks share: a clock, option parsing, probes that try a
 * load or a store and report whether it faulted, where, and why, the -T
 * trace that bench/tlbsim replays and the lockstep that keeps the
 * threads' part of it the same from run to run, and where the threads run.
 * Header-only: each benchmark is one static binary built from one .c file.
 */
#ifndef _TLBPATH_BENCHLIB_H
#define _TLBPATH_BENCHLIB_H

#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static inline unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* One command-line option: -@opt sets *@var (of the @kind's type). */
struct bench_opt {
	char opt;
	enum { OPT_FLAG, OPT_INT, OPT_ULONG, OPT_STR } kind;	/* int = 1, int, unsigned long, char * */
	void *var;
};

/*
 * getopt() over @opts (@n of them); an unknown option prints "usage: PROG
 * @usage" and exits 2.  What the values must be is each program's check.
 */
static inline void parse_opts(int argc, char **argv, const struct bench_opt *opts, int n,
			      const char *usage)
{
	char spec[64];
	int c, i, len = 0;

	for (i = 0; i < n && len < (int)sizeof(spec) - 2; i++) {
		spec[len++] = opts[i].opt;
		if (opts[i].kind != OPT_FLAG)
			spec[len++] = ':';
	}
	spec[len] = 0;
	while ((c = getopt(argc, argv, spec)) != -1) {
		for (i = 0; i < n && opts[i].opt != c; i++)
			;
		if (i == n) {
			fprintf(stderr, "usage: %s %s\n", argv[0], usage);
			exit(2);
		}
		switch (opts[i].kind) {
		case OPT_FLAG:
			*(int *)opts[i].var = 1;
			break;
		case OPT_INT:
			*(int *)opts[i].var = atoi(optarg);
			break;
		case OPT_ULONG:
			*(unsigned long *)opts[i].var = strtoul(optarg, NULL, 0);
			break;
		case OPT_STR:
			*(const char **)opts[i].var = optarg;
			break;
		}
	}
}

/* Anonymous read-write memory with extra mmap @flags, or die saying so. */
static inline void *map_or_die(const char *prog, size_t len, int flags)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_ANONYMOUS | flags, -1, 0);

	if (p == MAP_FAILED) {
		fprintf(stderr, "%s: mmap of %zu bytes: %s\n", prog, len, strerror(errno));
		exit(1);
	}
	return p;
}

static sigjmp_buf probe_env;
static volatile sig_atomic_t probing;
static void *volatile fault_addr;	/* of the last probe that faulted */
static volatile int fault_code;		/* its si_code: SEGV_MAPERR, SEGV_ACCERR */

/* A fault outside a probe is a bug in the program: die of it as usual. */
static void probe_segv(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (!probing) {
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	fault_addr = si->si_addr;
	fault_code = si->si_code;
	siglongjmp(probe_env, 1);
}

static inline void install_probe_handler(const char *prog)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = probe_segv;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, NULL)) {
		fprintf(stderr, "%s: sigaction: %m\n", prog);
		exit(1);
	}
}

/* Store @v at @p: 0 if the store landed, 1 if it faulted. */
static inline int try_store(volatile unsigned char *p, unsigned char v)
{
	probing = 1;
	if (sigsetjmp(probe_env, 1)) {
		probing = 0;
		return 1;
	}
	*p = v;
	probing = 0;
	return 0;
}

/* Load from @p: 0 if the load completed, 1 if it faulted. */
static inline int try_load(const volatile char *p)
{
	probing = 1;
	if (sigsetjmp(probe_env, 1)) {
		probing = 0;
		return 1;
	}
	(void)*p;
	probing = 0;
	return 0;
}

/*
 * -T FILE: a trace of the benchmark for bench/tlbsim (format in
 * bench/tlbsim/README.md): its own accesses ("r CPU ADDR", "w CPU ADDR",
 * independent of each other: "l indep"),
 * the ranges its calls make the kernel flush ("f CPU START ENTRIES SHIFT"),
 * each preceded by the mm's size and resident pages ("v TOTAL_VM RSS",
 * from /proc/self/statm).  CPU numbers are the simulator's: 0 for the
 * main thread, i + 1 for thread i.  Untimed self-check probes are not
 * logged.  With no -T nothing here runs.
 */
static FILE *trace_file;

static inline void trace_open(const char *prog, const char *path, int argc, char **argv)
{
	int i;

	trace_file = fopen(path, "w");
	if (!trace_file) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		exit(1);
	}
	setvbuf(trace_file, NULL, _IOFBF, 1 << 20);
	fprintf(trace_file, "# tlbsim trace 1\n#");
	for (i = 0; i < argc; i++)
		fprintf(trace_file, " %s", argv[i]);
	/* No benchmark computes an address from what it loaded. */
	fprintf(trace_file, "\nl indep\n");
}

static inline void trace_access(unsigned int cpu, const volatile void *p, int write)
{
	fprintf(trace_file, "%c %u %p\n", write ? 'w' : 'r', cpu, (const void *)p);
}

/* The mm's total_vm and rss, in pages, as the flush policies see them. */
static inline void trace_vm(void)
{
	unsigned long size, resident;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f && fscanf(f, "%lu %lu", &size, &resident) == 2)
		fprintf(trace_file, "v %lu %lu\n", size, resident);
	if (f)
		fclose(f);
}

/* flush_tlb_mm_range(mm, start, start + (entries << shift), shift) */
static inline void trace_flush(unsigned int cpu, const void *start, unsigned long entries,
			       unsigned int shift)
{
	trace_vm();
	fprintf(trace_file, "f %u %p %lu %u\n", cpu, start, entries, shift);
}

/* [start, start + len) is mapped with pages of 2^shift bytes. */
static inline void trace_pages(const void *start, size_t len, unsigned int shift)
{
	fprintf(trace_file, "p %p 0x%zx %u\n", start, len, shift);
}

static inline void trace_close(const char *prog)
{
	if (fclose(trace_file)) {
		fprintf(stderr, "%s: writing the trace: %s\n", prog, strerror(errno));
		exit(1);
	}
	trace_file = NULL;
}

/*
 * -T with threads: the main thread releases one round of accesses per
 * call it logs, and logs them after every thread has made its round, so
 * the trace is the same from run to run.
 */
static atomic_int run_state;	/* 0: wait, 1: run, 2: stop */
static atomic_int trace_round, trace_done;

/* A thread: wait for round @round; 0 if the run stopped instead. */
static inline int lockstep_wait(int round)
{
	while (atomic_load(&trace_round) < round) {
		if (atomic_load(&run_state) == 2)
			return 0;
		sched_yield();
	}
	return 1;
}

/* The main thread: release round @round and wait for @threads to make it. */
static inline void lockstep_round(int threads, int round)
{
	atomic_store(&trace_done, 0);
	atomic_store(&trace_round, round);
	while (atomic_load(&trace_done) < threads)
		sched_yield();
}

/*
 * Threads that keep the mm live elsewhere: the main thread runs on CPU 0,
 * thread i on CPU 1 + i % (ncpu - 1), so that every flush the main thread
 * makes must reach them; with one CPU nothing is pinned.  Each thread
 * counts itself in bench_ready once it runs where it belongs, and the main
 * thread flushes nothing before all have (bench_wait_ready()).
 */
static atomic_int bench_ready;

static inline int bench_cpu(int thread)	/* -1: the main thread */
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	if (ncpu < 2)
		return -1;
	return thread < 0 ? 0 : 1 + thread % (ncpu - 1);
}

/* Best effort: with fewer CPUs than threads some share. */
static inline void pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* A thread: run on @cpu from now on, and count itself as ready. */
static inline void bench_thread_ready(int cpu)
{
	pin(cpu);
	atomic_fetch_add(&bench_ready, 1);
}

static inline void bench_wait_ready(int threads)
{
	while (atomic_load(&bench_ready) < threads)
		sched_yield();
}

/* The threads' line in the results: accesses and ns per access in @ns. */
static inline void print_thread_rate(unsigned long long done, unsigned long long ns, int threads)
{
	printf(" thread_accesses=%llu ns_per_thread_access=%llu",
	       done, done ? ns * threads / done : 0);
}

#endif /* _TLBPATH_BENCHLIB_H */
