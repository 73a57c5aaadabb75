/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the benchmarks share: a clock, and probes that try a load or a
 * store and report whether it faulted, where, and why.  Header-only: each
 * benchmark is one static binary built from one .c file.
 */
#ifndef _TLBPATH_BENCHLIB_H
#define _TLBPATH_BENCHLIB_H

#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static inline unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
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

#endif /* _TLBPATH_BENCHLIB_H */
