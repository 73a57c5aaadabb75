// SPDX-License-Identifier: GPL-2.0
/*
 * staletlb: catch a TLB flush that was lost.
 *
 * A reader thread on one CPU keeps the translations of a region hot by
 * reading every page in a loop.  A revoker thread on another CPU takes
 * them away: mprotect(PROT_NONE), munmap, a MAP_FIXED mapping of a memfd
 * with new contents over them, or mremap elsewhere.  When the syscall returns, the
 * kernel has finished its shootdown, so the revoker then publishes the
 * round number.  Once the reader sees it, every read of the old region
 * must fault (or, after MAP_FIXED, see the new contents).  A read that
 * succeeds with the old contents went through a stale TLB entry.
 *
 *   staletlb [-m mprotect|munmap|mapfixed|mremap|all] [-n pages[,pages...]]
 *            [-r rounds] [-a reader_cpu] [-b revoker_cpu]
 *
 * Prints one line per (mode, size) and a total; exits 1 on any stale read.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#define PAGE	4096ul

enum mode { M_MPROTECT, M_MUNMAP, M_MAPFIXED, M_MREMAP, NR_MODES };
static const char *const mode_name[] = { "mprotect", "munmap", "mapfixed", "mremap" };

enum phase { IDLE, HOT, REVOKING, PUBLISHED, CHECKED, QUIT };

static struct {
	_Atomic int phase;
	_Atomic int hot_passes;		/* full passes since HOT */
	volatile char *region;
	size_t pages;
	long old_marker, new_marker;	/* what a page holds before / after */
	int expect_fault;
	long stale, reads;
	int reader_cpu, revoker_cpu;
} s;

static __thread sigjmp_buf fault_jmp;
static __thread volatile int guarded;

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	(void)sig; (void)si; (void)uc;
	if (!guarded)
		abort();
	siglongjmp(fault_jmp, 1);
}

/* Read a page's marker; returns 0 and sets *v, or -1 on a fault. */
static int guarded_read(volatile char *p, long *v)
{
	/* No signal mask to save: SA_NODEFER keeps SIGSEGV unblocked. */
	if (sigsetjmp(fault_jmp, 0)) {
		guarded = 0;
		return -1;
	}
	guarded = 1;
	*v = *(volatile long *)p;
	guarded = 0;
	return 0;
}

/*
 * Every wait sleeps a little.  A task that spins in user space never
 * passes through a voluntary context switch, and an RCU-tasks grace
 * period (which unregistering an ftrace hook waits for) cannot end until
 * it does: a spinning detector would stall every rmmod of tlbpath.
 */
static void relax(void)
{
	usleep(20);
}

/*
 * The life-cycle tests take CPUs offline while the detector runs: a CPU
 * that is offline for a moment (EINVAL) is waited for, up to 60 s, not
 * taken for a failure.
 */
static void pin(int cpu)
{
	cpu_set_t set;
	int tries = 0;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	while (sched_setaffinity(0, sizeof(set), &set)) {
		if (errno != EINVAL || ++tries > 6000) {
			perror("staletlb: sched_setaffinity");
			exit(2);
		}
		usleep(10000);
	}
}

static void *reader(void *arg)
{
	(void)arg;
	pin(s.reader_cpu);
	for (;;) {
		int ph = atomic_load(&s.phase);
		size_t i;
		long v;

		if (ph == QUIT)
			return NULL;
		/*
		 * Sleep only between rounds and between hot passes: from
		 * REVOKING to the check the reader must stay on its CPU with
		 * the mm loaded, or the kernel would see it idle (lazy) and
		 * flush it fully when it wakes, which proves nothing.
		 */
		if (ph == IDLE)
			relax();
		if (ph == HOT) {
			/* Keep every translation hot. */
			for (i = 0; i < s.pages; i++)
				guarded_read(s.region + i * PAGE, &v);
			atomic_fetch_add(&s.hot_passes, 1);
			relax();
		} else if (ph == REVOKING && atomic_load(&s.hot_passes) != -1) {
			atomic_store(&s.hot_passes, -1);
		} else if (ph == PUBLISHED) {
			/*
			 * Last page first: a fault is a kernel entry, and on
			 * some CPUs and emulators that alone can drop other
			 * TLB entries and hide a missed flush.
			 */
			for (i = s.pages; i-- > 0;) {
				int faulted = guarded_read(s.region + i * PAGE, &v);

				s.reads++;
				if (s.expect_fault ? !faulted : (faulted || v != s.new_marker)) {
					if (!s.stale)
						fprintf(stderr, "staletlb: page %zu of %zu: %s (marker %ld, old %ld)\n",
							i, s.pages, faulted ? "fault" : "read succeeded",
							faulted ? 0 : v, s.old_marker);
					s.stale++;
				}
			}
			atomic_store(&s.phase, CHECKED);
		}
	}
}

static char *map_at(void *at, size_t len, int prot, int flags)
{
	char *p = mmap(at, len, prot, MAP_PRIVATE | MAP_ANONYMOUS | flags, -1, 0);

	if (p == MAP_FAILED) {
		perror("staletlb: mmap");
		exit(2);
	}
	return p;
}

/*
 * Where the region lies decides which flush the kernel sends, so rounds
 * alternate.  Anchored: a mapped page right below keeps the region's page
 * table alive, and the flush covers the region alone.  Alone: the region
 * starts 1M into a 2M page-table span it has to itself, so revoking it
 * frees the table and the flush widens down to the span's start
 * (freed_tables).  Returns the region, followed by a hole of its size
 * for mremap to move it into.
 */
static char *map_region(size_t pages, long marker, int alone)
{
	size_t len = pages * PAGE, span = 2ul << 20, i;
	char *p;

	if (alone) {
		p = map_at(NULL, 2 * len + 2 * span, PROT_NONE, 0);
		munmap(p, 2 * len + 2 * span);
		p = (char *)(((unsigned long)p + span - 1) & ~(span - 1)) + span / 2;
		p = map_at(p, len, PROT_READ | PROT_WRITE, MAP_FIXED_NOREPLACE);
	} else {
		p = map_at(NULL, PAGE + 2 * len, PROT_READ | PROT_WRITE, 0) + PAGE;
		munmap(p + len, len);
	}
	for (i = 0; i < pages; i++)
		*(long *)(p + i * PAGE) = marker;
	return p;
}

/* A memfd whose pages already hold @marker (in the page cache). */
static int marked_memfd(size_t pages, long marker)
{
	int fd = memfd_create("staletlb", 0);
	size_t i;

	if (fd < 0 || ftruncate(fd, pages * PAGE)) {
		perror("staletlb: memfd");
		exit(2);
	}
	for (i = 0; i < pages; i++)
		if (pwrite(fd, &marker, sizeof(marker), i * PAGE) != sizeof(marker)) {
			perror("staletlb: pwrite");
			exit(2);
		}
	return fd;
}

static void one_round(enum mode m, size_t pages, long round)
{
	size_t len = pages * PAGE;
	char *r;
	int fd = -1;

	r = map_region(pages, round, !(round & 1));
	if (m == M_MAPFIXED)
		fd = marked_memfd(pages, -round);

	s.region = r;
	s.pages = pages;
	s.old_marker = round;
	s.new_marker = -round;
	s.expect_fault = m != M_MAPFIXED;
	atomic_store(&s.hot_passes, 0);
	atomic_store(&s.phase, HOT);
	while (atomic_load(&s.hot_passes) < 2)
		relax();
	/*
	 * Stop the reader touching the region before revoking: its reads
	 * would fault on pages already revoked, and a fault (a kernel entry)
	 * can drop other TLB entries in an emulator, hiding a missed flush.
	 */
	atomic_store(&s.phase, REVOKING);
	while (atomic_load(&s.hot_passes) != -1)
		relax();

	switch (m) {
	case M_MPROTECT:
		if (mprotect(r, len, PROT_NONE))
			perror("staletlb: mprotect");
		break;
	case M_MUNMAP:
		munmap(r, len);
		break;
	case M_MAPFIXED:
		/* Other pages, other contents, same addresses. */
		if (mmap(r, len, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED)
			perror("staletlb: mmap MAP_FIXED");
		break;
	case M_MREMAP:
		if (mremap(r, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, r + len) == MAP_FAILED)
			perror("staletlb: mremap");
		break;
	default:
		break;
	}

	atomic_store(&s.phase, PUBLISHED);
	while (atomic_load(&s.phase) != CHECKED)
		relax();
	atomic_store(&s.phase, IDLE);
	munmap(r - PAGE, 2 * len + PAGE);
	if (fd >= 0)
		close(fd);
}

int main(int argc, char **argv)
{
	size_t sizes[64] = { 1, 8, 33, 34, 64 };
	int nsizes = 5, rounds = 20, c, mi, si, first = M_MPROTECT, last = NR_MODES - 1;
	long total_reads = 0, total_stale = 0;
	struct sigaction sa;
	pthread_t t;

	s.reader_cpu = 0;
	s.revoker_cpu = 1;
	while ((c = getopt(argc, argv, "m:n:r:a:b:")) != -1) {
		switch (c) {
		case 'm':
			if (!strcmp(optarg, "all"))
				break;
			for (mi = 0; mi < NR_MODES && strcmp(optarg, mode_name[mi]); mi++)
				;
			if (mi == NR_MODES) {
				fprintf(stderr, "staletlb: unknown mode %s\n", optarg);
				return 2;
			}
			first = last = mi;
			break;
		case 'n': {
			char *tok = strtok(optarg, ",");

			for (nsizes = 0; tok && nsizes < 64; tok = strtok(NULL, ","))
				sizes[nsizes++] = strtoul(tok, NULL, 0);
			break;
		}
		case 'r': rounds = atoi(optarg); break;
		case 'a': s.reader_cpu = atoi(optarg); break;
		case 'b': s.revoker_cpu = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: %s [-m mode|all] [-n pages,...] [-r rounds] [-a cpu] [-b cpu]\n",
				argv[0]);
			return 2;
		}
	}

	/*
	 * No transparent huge pages: a 2M mapping makes QEMU's softmmu drop
	 * every user TLB entry on any INVLPG in the range it tracks, which
	 * would hide a missed flush from the detector.
	 */
	prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);

	pin(s.revoker_cpu);
	if (pthread_create(&t, NULL, reader, NULL)) {
		fprintf(stderr, "staletlb: pthread_create failed\n");
		return 2;
	}
	for (mi = first; mi <= last; mi++) {
		for (si = 0; si < nsizes; si++) {
			long reads0 = s.reads, stale0 = s.stale, round;

			for (round = 1; round <= rounds; round++)
				one_round(mi, sizes[si], round);
			printf("staletlb mode=%s pages=%zu rounds=%d reads=%ld stale=%ld\n",
			       mode_name[mi], sizes[si], rounds, s.reads - reads0, s.stale - stale0);
		}
	}
	atomic_store(&s.phase, QUIT);
	pthread_join(t, NULL);
	total_reads = s.reads;
	total_stale = s.stale;
	printf("staletlb total reads=%ld stale=%ld cpus=%d,%d\n", total_reads, total_stale,
	       s.reader_cpu, s.revoker_cpu);
	return total_stale ? 1 : 0;
}
