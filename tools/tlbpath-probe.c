// SPDX-License-Identifier: GPL-2.0
/*
 * tlbpath-probe: what the running kernel's two TLB flush branches cost on
 * this machine, measured from user space, and which flush ceiling would
 * be best here for each kind of re-use (man tlbpath-probe).  No root, no
 * module.
 *
 * A region is flipped read-only and read-write by mprotect() of its first
 * n pages: each call changes n PTEs, and the kernel flushes them one by
 * one up to its ceiling, everything above it.  Per call (half a pair),
 * in ticks of the TSC (arm64: CNTVCT), the median of many:
 *
 *   E1     n = 1..N, nothing else touched.  Below the ceiling a call costs
 *          base + (pte + invlpg) * n, above it base + full + pte * n: the
 *          slopes differ by an INVLPG, the intercepts by a full flush,
 *          and the ceiling is where one line gives way to the other.
 *          Alone, and with a thread live in the mm on another CPU (IPIs).
 *   E2     n = ceiling and ceiling + 1, each call followed by a re-read of
 *          W other pages, one independent load per page.
 *   E3     the same, the re-read a chain of dependent loads.
 *   chain  a dependent chain over F pages that all map one physical page
 *          (bench/tlbmiss.c's method): an STLB hit's and a walk's latency
 *          with the data always in the cache.
 *
 * With re-use of W pages the best ceiling is ceiling - (diff + pte) /
 * invlpg, diff being E2's (or E3's) ceiling minus ceiling + 1 per call:
 * where keeping pages costs what a full flush and its refills cost.
 *
 * The measurements are printed as lines of their own ("E1 n ticks ..."),
 * which --from reads back, so that a cost set can be derived again from a
 * saved run (bench/tlbsim/real.sh does, for ../shared/real as well, whose
 * lines are the same).  -o writes the cost set bench/tlbsim reads.
 *
 * Self-checks, as the bench programs do: a store into a page just made
 * read-only must fault there, every re-read must load what was written,
 * and every chain must end where the arithmetic says.  A failure prints
 * "tlbpath-probe: FAIL ..." and exits 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <cpuid.h>
#include <x86intrin.h>
#include "tlbpath/geometry.h"

#define PAGE		4096UL
#define LINE		64UL
#define N_MAX		4096	/* E1's largest range */
#define W_MAX		16	/* re-read sizes */
#define E1_TRIES	3	/* E1 measured at most this often (e1_doubt()) */
#define F_MAX		16	/* chain footprints */
#define TOUCHER_PAGES	512	/* the remote thread's own pages */

enum { LOCAL, REMOTE, NR_MODES };
enum { INDEP, DEP, NR_KINDS };	/* E2, E3 */
enum { SRC_NONE, SRC_CLIFF, SRC_DEBUGFS, SRC_TLBPATH };

static const char *const src_name[] = { "none", "cliff", "debugfs", "tlbpath" };
static const char *const mode_name[] = { "local", "remote" };
static const char *const kind_name[] = { "independent", "dependent" };
static const char *const ceiling_files[] = {
	[SRC_DEBUGFS] = "/sys/kernel/debug/x86/tlb_single_page_flush_ceiling",
	[SRC_TLBPATH] = "/sys/kernel/tlbpath/kernel_ceiling",
};

/* What was measured, or read back with --from; 0: not measured. */
struct meas {
	unsigned long tsc_khz;
	unsigned int n_max;
	double e1[NR_MODES][N_MAX + 1];
	unsigned long ceiling;		/* E2/E3 compare ceiling and ceiling + 1 */
	int ceiling_src;
	unsigned int nw;
	unsigned long w[W_MAX];
	double e2[NR_KINDS][W_MAX][2];
	unsigned int nf;
	unsigned long f[F_MAX];
	double chain[F_MAX];		/* ticks per access */
	double remote_rate;		/* the remote thread's passes a ms, in E1 */
	struct tlbp_geometry geo;
};

/* A line a + b * n through E1's medians. */
struct line {
	double a, b;
};

/* What the measurements say. */
struct costs {
	struct line below[NR_MODES], above[NR_MODES];
	double invlpg, full, pte;
	double stlb_hit, walk, issue;
	double diff[NR_KINDS][W_MAX];	/* ceiling minus ceiling + 1, per call */
	double best[NR_KINDS][W_MAX];
};

static struct {
	int cpu, remote;
	unsigned int reps;
	bool quick;
	const char *out, *from;
	unsigned long n_max, khz;
} opt = { .cpu = -1, .remote = -1 };

static void fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "tlbpath-probe: FAIL ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void die(const char *what)
{
	fprintf(stderr, "tlbpath-probe: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* ---- the clock ----------------------------------------------------------- */

/* The TSC, with nothing before or after it let through out of order. */
static inline uint64_t ticks(void)
{
	uint64_t t;

	_mm_lfence();
	t = __rdtsc();
	_mm_lfence();
	return t;
}

/* A load or store the compiler must make, as the kernel's READ_ONCE(). */
#define LOAD(p)		__atomic_load_n(p, __ATOMIC_RELAXED)
#define STORE(p, v)	__atomic_store_n(p, v, __ATOMIC_RELAXED)

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Ticks per millisecond, against CLOCK_MONOTONIC over 20 ms. */
static unsigned long measure_khz(void)
{
	uint64_t t0 = ticks(), n0 = now_ns(), n1;

	do
		n1 = now_ns();
	while (n1 - n0 < 20000000);
	return (unsigned long)((ticks() - t0) * 1000000.0 / (n1 - n0) + 0.5);
}

/* ---- where it runs ---------------------------------------------------------- */

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
}

/* The CPUs: the one asked for or the last allowed, and another for the remote thread. */
static void choose_cpus(void)
{
	cpu_set_t set;
	int c;

	if (sched_getaffinity(0, sizeof(set), &set))
		die("sched_getaffinity");
	if (opt.cpu < 0)
		for (c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &set))
				opt.cpu = c;
	if (opt.remote < 0)
		for (c = 0; c < CPU_SETSIZE && opt.remote < 0; c++)
			if (CPU_ISSET(c, &set) && c != opt.cpu)
				opt.remote = c;
}

static void cpuid_insn(void *ctx, u32 leaf, u32 sub, struct tlbp_regs *r)
{
	(void)ctx;
	__cpuid_count(leaf, sub, r->eax, r->ebx, r->ecx, r->edx);
}

static void read_geometry(struct tlbp_geometry *g)
{
	struct tlbp_cpuid c;

	tlbp_cpuid_fill(&c, cpuid_insn, NULL);
	tlbp_parse_geometry(&c, g);
}

/* The kernel's ceiling where a file says it (root, or tlbpath loaded). */
static int read_ceiling(unsigned long *c)
{
	int src;

	for (src = SRC_DEBUGFS; src <= SRC_TLBPATH; src++) {
		FILE *f = fopen(ceiling_files[src], "r");
		int ok = f && fscanf(f, "%lu", c) == 1;

		if (f)
			fclose(f);
		if (ok)
			return src;
	}
	return SRC_NONE;
}

/* ---- memory -------------------------------------------------------------------- */

static void *map_pages(unsigned long pages)
{
	void *p = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		die("mmap");
	/* One 4K translation per page, as the kernel's ceiling counts them. */
	madvise(p, pages * PAGE, MADV_NOHUGEPAGE);
	return p;
}

/* Page i's word: on line i % 64, so the loads spread over the cache's sets. */
static inline uint32_t *word(char *base, unsigned long i)
{
	return (uint32_t *)(base + i * PAGE + (i % (PAGE / LINE)) * LINE);
}

static char *region;		/* E1-E3's mprotect() target */
static char *reuse;		/* E2/E3's re-read pages */
static unsigned long reuse_pages;
static int prot_now = PROT_READ | PROT_WRITE;

static sigjmp_buf probe_env;
static atomic_int probing;
static atomic_uintptr_t fault_addr;
static atomic_int fault_code;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (!probing) {
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	atomic_store(&fault_addr, (uintptr_t)si->si_addr);
	atomic_store(&fault_code, si->si_code);
	siglongjmp(probe_env, 1);
}

/* Store what @p holds back into it: 0, or 1 if that faulted. */
static int try_store(char *p)
{
	probing = 1;
	if (sigsetjmp(probe_env, 1)) {
		probing = 0;
		return 1;
	}
	STORE(p, LOAD(p));
	probing = 0;
	return 0;
}

/* mprotect() the region's first @n pages to the other protection. */
static inline void flip(unsigned long n)
{
	prot_now ^= PROT_WRITE;
	if (mprotect(region, n * PAGE, prot_now))
		die("mprotect");
}

/*
 * Untimed: the region writable, every page written (present, dirty), then
 * read-only: a store must fault there with SEGV_ACCERR, which only a flush
 * that reached the CPU makes sure of.
 */
static void check_flush(unsigned long n)
{
	unsigned long i;

	if (!(prot_now & PROT_WRITE))
		flip(n);
	for (i = 0; i < n; i++)
		region[i * PAGE] = (char)i;
	flip(n);
	for (i = 0; i < n; i += n > 2 ? n / 2 : 1)
		if (!try_store(region + i * PAGE) ||
		    atomic_load(&fault_addr) != (uintptr_t)(region + i * PAGE) ||
		    atomic_load(&fault_code) != SEGV_ACCERR)
			fail("a store to page %lu of %lu just made read-only did not fault there",
			     i, n);
	flip(n);
}

/* ---- the remote thread ---------------------------------------------------------- */

static atomic_int toucher_run;
static atomic_ulong toucher_passes;

static void *toucher(void *arg)
{
	char *own = map_pages(TOUCHER_PAGES);
	unsigned long i;

	(void)arg;
	pin(opt.remote);
	for (i = 0; i < TOUCHER_PAGES; i++)
		*word(own, i) = 1;
	atomic_store(&toucher_run, 2);
	while (atomic_load(&toucher_run) == 2) {
		uint32_t sum = 0;

		for (i = 0; i < TOUCHER_PAGES; i++)
			sum += LOAD(word(own, i));
		if (sum != TOUCHER_PAGES)
			fail("the remote thread read %u, not %d", sum, TOUCHER_PAGES);
		atomic_fetch_add(&toucher_passes, 1);
	}
	munmap(own, TOUCHER_PAGES * PAGE);
	return NULL;
}

static pthread_t toucher_tid;

static bool toucher_start(void)
{
	if (opt.remote < 0)
		return false;
	atomic_store(&toucher_run, 1);
	if (pthread_create(&toucher_tid, NULL, toucher, NULL))
		die("pthread_create");
	while (atomic_load(&toucher_run) != 2)
		sched_yield();
	return true;
}

static void toucher_stop(void)
{
	atomic_store(&toucher_run, 0);
	pthread_join(toucher_tid, NULL);
}

/* ---- measuring -------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * E1 for every n in lo..hi, @reps times in rounds over all of them (so a
 * slow spell of the machine spreads over every n), each time a read-only
 * and a read-write call.
 */
static void measure_e1(struct meas *m, int mode, unsigned long lo, unsigned long hi)
{
	unsigned int r, reps = opt.reps;
	double *s = calloc((size_t)(hi + 1) * reps, sizeof(*s));
	unsigned long n;

	if (!s)
		die("calloc");
	for (n = lo; n <= hi; n++) {	/* warm: every PTE present, the code too */
		flip(n);
		flip(n);
	}
	for (r = 0; r < reps; r++)
		for (n = lo; n <= hi; n++) {
			uint64_t t = ticks();

			flip(n);
			flip(n);
			s[n * reps + r] = (ticks() - t) / 2.0;
		}
	for (n = lo; n <= hi; n++)
		m->e1[mode][n] = median(s + n * reps, reps);
	free(s);
}

static uint32_t read_indep(unsigned long w)
{
	uint32_t sum = 0;
	unsigned long i;

	for (i = 0; i < w; i++)
		sum += LOAD(word(reuse, i));
	return sum;
}

/* Page i's word holds the next page of the chain; from page 0, @w steps end at page 0. */
static void make_chain(unsigned long w)
{
	unsigned long i, stride = (w * 5 / 8) | 1;

	for (i = 0; i < w; i++)
		*word(reuse, i) = (uint32_t)((i + stride) % w);
}

static uint32_t read_dep(unsigned long w)
{
	uint32_t idx = 0;
	unsigned long i;

	for (i = 0; i < w; i++)
		idx = LOAD(word(reuse, idx));
	return idx;
}

static void check_reread(unsigned long w, int kind, uint32_t v)
{
	if (kind == INDEP && v != w)
		fail("re-reading %lu pages loaded %u, not %lu", w, v, w);
	if (kind == DEP && v != 0)
		fail("a chain of %lu pages ended on page %u, not 0", w, v);
}

/*
 * Two calls of @n pages, read-only then read-write, each followed by the
 * re-read: ticks per call.  A pair, so that each call changes all n PTEs
 * (a call that finds some already as it wants flushes fewer).
 */
static double pair_reread(unsigned long n, unsigned long w, int kind)
{
	uint64_t t = ticks();
	uint32_t v1, v2;

	flip(n);
	v1 = kind == DEP ? read_dep(w) : read_indep(w);
	flip(n);
	v2 = kind == DEP ? read_dep(w) : read_indep(w);
	t = ticks() - t;
	check_reread(w, kind, v1);
	check_reread(w, kind, v2);
	return t / 2.0;
}

/* E2/E3: ceiling against ceiling + 1, each re-read size, in alternating rounds. */
static void measure_reread(struct meas *m, int kind)
{
	unsigned int reps = opt.reps, r, i, k;
	double *s = calloc(2 * reps, sizeof(*s));

	if (!s)
		die("calloc");
	for (i = 0; i < m->nw; i++) {
		unsigned long w = m->w[i];

		if (kind == DEP)
			make_chain(w ? w : 1);
		else
			for (k = 0; k < w; k++)
				*word(reuse, k) = 1;
		for (k = 0; k < 4; k++)		/* warm */
			pair_reread(m->ceiling + (k & 1), w, kind);
		for (r = 0; r < reps; r++)
			for (k = 0; k < 2; k++)
				s[k * reps + r] = pair_reread(m->ceiling + k, w, kind);
		for (k = 0; k < 2; k++)
			m->e2[kind][i][k] = median(s + k * reps, reps);
	}
	free(s);
}

/*
 * The chain over @f pages that map one physical page (a memfd page
 * mapped f times): line j of it holds j, so the next page is idx + stride,
 * known only once the load completes; bench/tlbmiss.c's walk.
 */
static double chain_walk(char *base, unsigned long f, unsigned long accesses)
{
	unsigned long stride = (f * 5 / 8) | 1, idx = 0, n;
	uint64_t t;

	for (n = 0; n < f; n++)		/* warm */
		idx = (idx + stride + LOAD(word(base, idx)) - idx % (PAGE / LINE)) & (f - 1);
	t = ticks();
	for (n = 0; n < accesses; n++)
		idx = (idx + stride + LOAD(word(base, idx)) - idx % (PAGE / LINE)) & (f - 1);
	t = ticks() - t;
	if (idx != ((f + accesses) * stride & (f - 1)))
		fail("the chain over %lu pages ended on page %lu", f, idx);
	return (double)t / accesses;
}

static void measure_chain(struct meas *m)
{
	unsigned long fmax = m->f[m->nf - 1], j, accesses = opt.quick ? 1ul << 15 : 1ul << 20;
	int fd = syscall(SYS_memfd_create, "tlbpath-probe", 0);
	uint32_t *data;
	char *base;
	unsigned int i, r;

	if (fd < 0 || ftruncate(fd, PAGE))
		die("memfd_create");
	data = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (data == MAP_FAILED)
		die("mmap");
	for (j = 0; j < PAGE / LINE; j++)
		data[j * LINE / sizeof(*data)] = j;
	base = mmap(NULL, fmax * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED)
		die("mmap");
	for (j = 0; j < fmax; j++)
		if (mmap(base + j * PAGE, PAGE, PROT_READ, MAP_SHARED | MAP_FIXED | MAP_POPULATE,
			 fd, 0) == MAP_FAILED)
			die("mmap alias");
	for (i = 0; i < m->nf; i++) {
		double s[5];

		for (r = 0; r < 5; r++)
			s[r] = chain_walk(base, m->f[i], accesses);
		m->chain[i] = median(s, 5);
	}
	munmap(base, fmax * PAGE);
	munmap(data, PAGE);
	close(fd);
}

/* ---- what it says ----------------------------------------------------------- */

/* Least squares through y[lo..hi] (0: not measured), leaving out n where @skip[n]. */
static void fit_ls(const double *y, const bool *skip, unsigned long lo, unsigned long hi,
		   struct line *l)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0, k = 0, d;
	unsigned long n;

	for (n = lo; n <= hi; n++) {
		if (!y[n] || (skip && skip[n]))
			continue;
		k++;
		sx += n;
		sy += y[n];
		sxx += (double)n * n;
		sxy += n * y[n];
	}
	d = k * sxx - sx * sx;
	l->b = d ? (k * sxy - sx * sy) / d : 0;
	l->a = k ? (sy - l->b * sx) / k : 0;
}

/*
 * A line through y[lo..hi] that single slow calls (an interrupt, the
 * other tenant of a VM) do not bend: least squares, then again without
 * the points more than four median deviations off.  Returns the sum of
 * absolute deviations of all points, and their median in @mad.
 */
static double fit(const double *y, unsigned long lo, unsigned long hi, struct line *l,
		  double *mad)
{
	static bool skip[N_MAX + 1];
	double dev[N_MAX + 1], sum = 0, med;
	unsigned long n;
	unsigned int k = 0;

	fit_ls(y, NULL, lo, hi, l);
	for (n = lo; n <= hi; n++)
		if (y[n])
			dev[k++] = fabs(y[n] - l->a - l->b * n);
	med = k ? median(dev, k) : 0;
	for (n = lo; n <= hi; n++)
		skip[n] = y[n] && fabs(y[n] - l->a - l->b * n) > 4 * med + 1;
	fit_ls(y, skip, lo, hi, l);
	for (n = lo, k = 0; n <= hi; n++) {
		if (!y[n])
			continue;
		dev[k] = fabs(y[n] - l->a - l->b * n);
		sum += dev[k++];
	}
	if (mad)
		*mad = k ? median(dev, k) : 0;
	return sum;
}

/*
 * The ceiling from E1's cliff: the split of 1..n_max into two lines that
 * fits best, the one up to the split steeper (it carries the INVLPGs),
 * and a step between them at the split that stands well out of the
 * noise.  0 when there is no such split.
 */
static unsigned long find_cliff(const struct meas *m)
{
	const double *y = m->e1[LOCAL];
	double best = -1, mad1, mad2, step = 0, noise = 0;
	unsigned long c, at = 0;
	struct line l1, l2;

	for (c = 3; c + 3 <= m->n_max; c++) {
		double sum;

		if (!y[c] || !y[c + 1])
			continue;
		sum = fit(y, 1, c, &l1, &mad1) + fit(y, c + 1, m->n_max, &l2, &mad2);
		if (l1.b <= l2.b || (best >= 0 && sum >= best))
			continue;
		best = sum;
		at = c;
		step = fabs(l1.a + l1.b * (c + 0.5) - l2.a - l2.b * (c + 0.5));
		noise = mad1 > mad2 ? mad1 : mad2;
	}
	return at && step > 8 * noise ? at : 0;
}

/*
 * The cliff, measured again around it until it stays where it is: one
 * range whose median caught a slow spell can move it by one.
 */
static unsigned long settle_cliff(struct meas *m)
{
	unsigned long c = find_cliff(m), was;
	int tries;

	for (tries = 0; c && tries < 4; tries++) {
		measure_e1(m, LOCAL, c > 2 ? c - 1 : 1, c + 2 < m->n_max ? c + 2 : m->n_max);
		was = c;
		c = find_cliff(m);
		if (c == was)
			break;
	}
	return c;
}

/*
 * What makes E1 unusable, or NULL; sets the ceiling.  A host that takes
 * the CPU away from the probe for long (a shared VM, an emulator beside
 * other work) can bend whole rounds past what the medians and the fit's
 * outlier cut absorb: a cliff away from the ceiling the kernel states,
 * or a line on which an INVLPG or a full flush costs nothing, is
 * measured again (E1_TRIES in all) before the probe gives up.
 */
static const char *e1_doubt(struct meas *m, int src, unsigned long read_c)
{
	static char why[160];
	struct line below, above;

	m->ceiling = settle_cliff(m);
	m->ceiling_src = SRC_CLIFF;
	if (src != SRC_NONE) {
		if (m->ceiling && (m->ceiling + 1 < read_c || m->ceiling > read_c + 1)) {
			snprintf(why, sizeof(why), "the cliff is at %lu pages, but %s says %lu",
				 m->ceiling, ceiling_files[src], read_c);
			return why;
		}
		m->ceiling = read_c;
		m->ceiling_src = src;
	}
	if (!m->ceiling) {
		snprintf(why, sizeof(why),
			 "no cliff in 1..%u pages and no ceiling to read: -n larger?", m->n_max);
		return why;
	}
	if (m->ceiling + 1 > m->n_max)	/* -n too small: again would not help */
		fail("the ceiling %lu is beyond E1's range 1..%u", m->ceiling, m->n_max);
	fit(m->e1[LOCAL], 1, m->ceiling, &below, NULL);
	fit(m->e1[LOCAL], m->ceiling + 1, m->n_max, &above, NULL);
	if (below.b - above.b <= 0 || above.a - below.a <= 0) {
		snprintf(why, sizeof(why),
			 "E1 gives invlpg %.0f and full %.0f ticks: no two branches to tell apart",
			 below.b - above.b, above.a - below.a);
		return why;
	}
	return NULL;
}

/*
 * The chain's latency over footprints in [@lo, @hi], above its fastest
 * (the L1 hit): the median of them.  [0, 0]: the fastest itself.
 */
static double chain_level(const struct meas *m, unsigned long lo, unsigned long hi)
{
	double v[F_MAX], fastest = m->chain[0];
	unsigned int i, n = 0;

	for (i = 0; i < m->nf; i++) {
		if (m->chain[i] < fastest)
			fastest = m->chain[i];
		if (m->f[i] >= lo && m->f[i] <= hi)
			v[n++] = m->chain[i];
	}
	if (!lo && !hi)
		return fastest;
	return n ? median(v, n) - fastest : 0;
}

static void derive(const struct meas *m, struct costs *k)
{
	const struct tlbp_geometry *g = &m->geo;
	unsigned long l1 = g->l1d[TLBP_4K], l2 = g->l2[TLBP_4K];
	double sx = 0, sy = 0, sxx = 0, sxy = 0, cnt = 0;
	unsigned int i, md, kind;

	memset(k, 0, sizeof(*k));
	for (md = 0; md < NR_MODES; md++) {
		fit(m->e1[md], 1, m->ceiling, &k->below[md], NULL);
		fit(m->e1[md], m->ceiling + 1, m->n_max, &k->above[md], NULL);
	}
	k->invlpg = k->below[LOCAL].b - k->above[LOCAL].b;
	k->full = k->above[LOCAL].a - k->below[LOCAL].a;
	k->pte = k->above[LOCAL].b;
	for (kind = 0; kind < NR_KINDS; kind++)
		for (i = 0; i < m->nw; i++) {
			k->diff[kind][i] = m->e2[kind][i][0] - m->e2[kind][i][1];
			k->best[kind][i] = m->ceiling - (k->diff[kind][i] + k->pte) / k->invlpg;
		}
	/*
	 * issue: what one more independent re-read page costs at the ceiling
	 * (the TLB keeps them all), the slope over the sizes that fit the
	 * second level but not the first.  Without a geometry, 64..2048.
	 */
	if (!l1)
		l1 = 32;
	if (!l2)
		l2 = 2048;
	for (i = 0; i < m->nw; i++) {
		double x = m->w[i], y = m->e2[INDEP][i][0];

		if (!y || x < l1 || x > l2)
			continue;
		cnt++;
		sx += x;
		sy += y;
		sxx += x * x;
		sxy += x * y;
	}
	if (cnt >= 2 && cnt * sxx - sx * sx > 0)
		k->issue = (cnt * sxy - sx * sy) / (cnt * sxx - sx * sx);
	/* The chain: its smallest footprint hits L1; the STLB, then walks. */
	if (!m->nf)
		return;
	k->stlb_hit = chain_level(m, 2 * l1 + 1, l2 / 2);
	k->walk = chain_level(m, 2 * l2, ~0UL);
	if (!k->walk)
		k->walk = m->chain[m->nf - 1] - chain_level(m, 0, 0);
}

/* The lines of each experiment, as soon as it is measured (read_meas() reads them). */
static void print_e1(const struct meas *m, int md)
{
	unsigned long n;

	printf("== %s: E1 n ticks_per_call\n", mode_name[md]);
	for (n = 1; n <= m->n_max; n++)
		printf("E1 %lu %.0f\n", n, m->e1[md][n]);
	fflush(stdout);
}

static void print_reread(const struct meas *m, int kind)
{
	const char *e = kind == INDEP ? "E2" : "E3";
	unsigned int i;

	printf("== %s: %s W ticks_at_%lu ticks_at_%lu\n", e, kind_name[kind], m->ceiling,
	       m->ceiling + 1);
	for (i = 0; i < m->nw; i++)
		printf("%s %lu %.0f %.0f\n", e, m->w[i], m->e2[kind][i][0], m->e2[kind][i][1]);
	fflush(stdout);
}

static void print_chain(const struct meas *m)
{
	unsigned int i;

	for (i = 0; i < m->nf; i++)
		printf("chain pages=%lu ticks_per_access=%.2f\n", m->f[i], m->chain[i]);
	fflush(stdout);
}

static void print_costs(const struct meas *m, const struct costs *k)
{
	unsigned int i, kind;

	printf("== what it says (ticks)\n");
	printf("ceiling=%lu source=%s\n", m->ceiling, src_name[m->ceiling_src]);
	printf("local: perpage %.0f + %.1f n, full %.0f + %.1f n\n", k->below[LOCAL].a,
	       k->below[LOCAL].b, k->above[LOCAL].a, k->above[LOCAL].b);
	if (m->e1[REMOTE][1]) {
		/* Few passes: the other CPU ran something else, and took no IPIs. */
		printf("remote: perpage %.0f + %.1f n, full %.0f + %.1f n (invlpg %.0f, step %.0f)",
		       k->below[REMOTE].a, k->below[REMOTE].b, k->above[REMOTE].a,
		       k->above[REMOTE].b, k->below[REMOTE].b - k->above[REMOTE].b,
		       k->above[REMOTE].a - k->below[REMOTE].a);
		if (m->remote_rate)
			printf(", the other CPU's thread %.0f passes a ms", m->remote_rate);
		printf("\n");
	}
	printf("invlpg=%.0f full=%.0f pte=%.0f stlb_hit=%.1f walk=%.1f issue=%.1f\n", k->invlpg,
	       k->full, k->pte, k->stlb_hit, k->walk, k->issue);
	printf("at the ceiling, nothing re-read: keeping %lu pages costs %.1fx a full flush\n",
	       m->ceiling, k->full > 0 ? m->ceiling * k->invlpg / k->full : 0);
	for (kind = 0; kind < NR_KINDS; kind++) {
		if (!m->nw || !m->e2[kind][0][0])
			continue;
		printf("%s re-use: W %lu..%lu pages:", kind_name[kind], m->w[0], m->w[m->nw - 1]);
		for (i = 0; i < m->nw; i++)
			printf(" %lu:%.0f", m->w[i], k->best[kind][i] < 0 ? 0 : k->best[kind][i]);
		printf(" (best ceiling per W)\n");
	}
}

/* ---- the cost set ----------------------------------------------------------- */

static void write_costs(const char *path, const struct meas *m, const struct costs *k)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;
	char host[64] = "?";

	if (!f)
		die(path);
	gethostname(host, sizeof(host) - 1);
	fprintf(f, "# tlbpath-probe " TLBPATH_VERSION ": a cost set for bench/tlbsim (--costs)\n");
	fprintf(f, "# %s%s; tsc_khz %lu; ceiling %lu (%s); geometry %s l1d_4k %u l2_4k %u\n",
		opt.from ? "derived from a saved run" : "measured on ", opt.from ? "" : host,
		m->tsc_khz, m->ceiling, src_name[m->ceiling_src],
		tlbp_geo_source_name(m->geo.source), m->geo.l1d[TLBP_4K], m->geo.l2[TLBP_4K]);
	fprintf(f, "# pte %.0f per page; remote perpage %.0f + %.1f n, full %.0f + %.1f n\n",
		k->pte, k->below[REMOTE].a, k->below[REMOTE].b, k->above[REMOTE].a,
		k->above[REMOTE].b);
	fprintf(f, "invlpg %.0f\nfull %.0f\nstlb_hit %.0f\nwalk %.0f\nissue %.0f\n",
		k->invlpg, k->full, k->stlb_hit > 0 ? k->stlb_hit : 0,
		k->walk > 0 ? k->walk : 0, k->issue > 0 ? k->issue : 0);
	if (f != stdout && fclose(f))
		die(path);
}

/* ---- reading a saved run ---------------------------------------------------- */

/*
 * The lines print_meas() writes, and those of ../shared/real/ (E1 with
 * more columns, a "remote" section header, E2 "W cyc33 cyc34 ...",
 * tlbmiss's ns_per_access, which --tsc-khz turns into ticks).
 */
static void read_meas(const char *path, struct meas *m)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	int md = LOCAL, lineno = 0, e;
	unsigned int l1, l2;
	char line[512], *g;

	if (!f)
		die(path);
	while (fgets(line, sizeof(line), f)) {
		unsigned long a;
		double x, y;
		int got;

		lineno++;
		if (!strncmp(line, "==", 2)) {
			md = strstr(line, "remote") ? REMOTE : LOCAL;
			continue;
		}
		g = strstr(line, "l1d_4k=");
		if (g && m->geo.source == TLBP_SRC_NONE &&
		    sscanf(g, "l1d_4k=%u l1i_4k=%*u l2_4k=%u", &l1, &l2) == 2) {
			m->geo.l1d[TLBP_4K] = l1;
			m->geo.l2[TLBP_4K] = l2;
			m->geo.source = l1 || l2 ? TLBP_SRC_LEAF18 : TLBP_SRC_NONE;
			continue;
		}
		if (sscanf(line, "tsc_khz=%lu", &a) == 1) {
			if (!m->tsc_khz)
				m->tsc_khz = a;
			continue;
		}
		if (sscanf(line, "tlbmiss pages=%lu accesses=%*u ns_per_access=%lf", &a, &x) == 2) {
			if (!m->tsc_khz)
				fail("%s:%d: tlbmiss's nanoseconds and no tsc_khz: say --tsc-khz",
				     path, lineno);
			x = x * m->tsc_khz / 1e6;
			got = -1;
		} else if (sscanf(line, "chain pages=%lu ticks_per_access=%lf", &a, &x) == 2) {
			got = -1;
		} else {
			got = sscanf(line, "E%d %lu %lf %lf", &e, &a, &x, &y);
		}
		if (got == -1) {
			if (m->nf == F_MAX)
				fail("%s:%d: more than %d chain footprints", path, lineno, F_MAX);
			m->f[m->nf] = a;
			m->chain[m->nf++] = x;
		} else if (got >= 3 && e == 1) {
			if (!a || a >= N_MAX)
				fail("%s:%d: E1 range %lu out of 1..%d", path, lineno, a,
				     N_MAX - 1);
			m->e1[md][a] = x;
			if (a > m->n_max)
				m->n_max = a;
		} else if (got == 4 && (e == 2 || e == 3) && md == LOCAL) {
			int kind = e == 2 ? INDEP : DEP;
			unsigned int i;

			for (i = 0; i < m->nw && m->w[i] != a; i++)
				;
			if (i == W_MAX)
				fail("%s:%d: more than %d re-read sizes", path, lineno, W_MAX);
			m->w[i] = a;
			if (i == m->nw)
				m->nw++;
			m->e2[kind][i][0] = x;
			m->e2[kind][i][1] = y;
		}
	}
	if (f != stdin)
		fclose(f);
	if (!m->n_max || !m->nw)
		fail("%s: no E1 or no E2 lines: not a probe's output", path);
}

/* ---- main ------------------------------------------------------------------ */

static const char usage[] =
"usage: tlbpath-probe [-q] [-o COSTS] [-c CPU] [-r CPU] [-n N] [-R REPS]\n"
"       tlbpath-probe --from SAVED [--tsc-khz K] [-o COSTS]\n"
"  -q, --quick       fewer repetitions and sizes (seconds; for emulators)\n"
"  -o, --out FILE    write the cost set bench/tlbsim reads (--costs FILE)\n"
"  -c, --cpu N       measure on CPU N (default: the last one allowed)\n"
"  -r, --remote N    the second CPU live in the mm (default: the first other one)\n"
"  -n, --max N       E1's largest range (default 64, or twice a ceiling it can read)\n"
"  -R, --reps N      repetitions of each measurement (default 501; -q: 15)\n"
"      --from FILE   no measuring: read a saved run's lines and derive from them\n"
"      --tsc-khz K   ticks per ms, for --from (tlbmiss lines are in ns)\n";

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "quick", no_argument, NULL, 'q' }, { "out", required_argument, NULL, 'o' },
		{ "cpu", required_argument, NULL, 'c' }, { "remote", required_argument, NULL, 'r' },
		{ "max", required_argument, NULL, 'n' }, { "reps", required_argument, NULL, 'R' },
		{ "from", required_argument, NULL, 1 }, { "tsc-khz", required_argument, NULL, 2 },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	static const unsigned long ws[] = { 0, 16, 64, 128, 256, 512, 1024, 2048, 4096, 8192 };
	static const unsigned long ws_quick[] = { 0, 64, 512, 2048 };
	static struct meas m;
	struct sigaction sa = { .sa_sigaction = on_segv, .sa_flags = SA_SIGINFO };
	unsigned long read_c = 0, n, f;
	struct costs k;
	unsigned int round;
	const char *why;
	int c, src, tries;

	while ((c = getopt_long(argc, argv, "qo:c:r:n:R:h", lo, NULL)) != -1) {
		switch (c) {
		case 'q':
			opt.quick = true;
			break;
		case 'o':
			opt.out = optarg;
			break;
		case 'c':
			opt.cpu = atoi(optarg);
			break;
		case 'r':
			opt.remote = atoi(optarg);
			break;
		case 'n':
			opt.n_max = strtoul(optarg, NULL, 10);
			break;
		case 'R':
			opt.reps = strtoul(optarg, NULL, 10);
			break;
		case 1:
			opt.from = optarg;
			break;
		case 2:
			opt.khz = strtoul(optarg, NULL, 10);
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (optind != argc || (opt.n_max && (opt.n_max < 8 || opt.n_max > N_MAX - 1)) ||
	    (opt.reps && opt.reps > 100001)) {
		fputs(usage, stderr);
		return 2;
	}

	if (opt.from) {
		m.tsc_khz = opt.khz;
		m.geo.source = TLBP_SRC_NONE;
		read_meas(opt.from, &m);
		m.ceiling = find_cliff(&m);
		m.ceiling_src = SRC_CLIFF;
		if (!m.ceiling)
			fail("%s: E1 shows no cliff", opt.from);
		derive(&m, &k);
		print_costs(&m, &k);
		if (opt.out)
			write_costs(opt.out, &m, &k);
		return 0;
	}

	if (!opt.reps)
		opt.reps = opt.quick ? 15 : 501;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, NULL))
		die("sigaction");
	choose_cpus();
	pin(opt.cpu);
	read_geometry(&m.geo);
	m.tsc_khz = measure_khz();
	src = read_ceiling(&read_c);
	m.n_max = opt.n_max ? opt.n_max : src != SRC_NONE && read_c >= 32 ? 2 * read_c + 2 : 64;
	if (m.n_max > N_MAX - 1)
		m.n_max = N_MAX - 1;
	m.nw = opt.quick ? 4 : 10;
	memcpy(m.w, opt.quick ? ws_quick : ws, m.nw * sizeof(*m.w));
	for (f = 8; f <= (opt.quick ? 4096ul : 16384ul); f *= 2)
		m.f[m.nf++] = f;

	printf("tlbpath-probe %s cpu=%d remote_cpu=%d geometry=%s l1d_4k=%u l2_4k=%u\n",
	       TLBPATH_VERSION, opt.cpu, opt.remote, tlbp_geo_source_name(m.geo.source),
	       m.geo.l1d[TLBP_4K], m.geo.l2[TLBP_4K]);
	printf("tsc_khz=%lu\n", m.tsc_khz);

	region = map_pages(m.n_max + 1);
	for (n = 0; n <= m.n_max; n++)
		region[n * PAGE] = 1;
	measure_e1(&m, LOCAL, 1, m.n_max);
	/*
	 * The flush check, after E1's first round and before it can fail,
	 * three times over: an entry the TLB evicts before the store hides a
	 * narrowed flush (in a guest it once missed the dropflush mutant's),
	 * and any one store that succeeds fails.
	 */
	for (round = 0; round < 3; round++)
		for (n = 1; n <= m.n_max; n += n < 40 ? 1 : 7)
			check_flush(n);
	for (tries = 1; (why = e1_doubt(&m, src, read_c)) && tries < E1_TRIES; tries++) {
		fprintf(stderr, "tlbpath-probe: measuring E1 again: %s\n", why);
		measure_e1(&m, LOCAL, 1, m.n_max);
	}
	print_e1(&m, LOCAL);
	if (why)
		fail("%s", why);

	reuse_pages = m.w[m.nw - 1] ? m.w[m.nw - 1] : 1;
	reuse = map_pages(reuse_pages);
	measure_reread(&m, INDEP);
	print_reread(&m, INDEP);
	measure_reread(&m, DEP);
	print_reread(&m, DEP);
	measure_chain(&m);
	print_chain(&m);
	if (toucher_start()) {
		uint64_t t = ticks();
		unsigned long passes = atomic_load(&toucher_passes);

		measure_e1(&m, REMOTE, 1, m.n_max);
		m.remote_rate = (atomic_load(&toucher_passes) - passes) * (double)m.tsc_khz /
				(ticks() - t);
		toucher_stop();
		print_e1(&m, REMOTE);
	}

	derive(&m, &k);
	print_costs(&m, &k);
	if (opt.out)
		write_costs(opt.out, &m, &k);
	return 0;
}
