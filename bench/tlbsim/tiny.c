// SPDX-License-Identifier: GPL-2.0
/*
 * tiny: a program not written for tlbsim, small enough to check
 * vg2trace's output by hand (tests/unit/tlbsim-trace.t).  Maps 16
 * pages, touches them all, then:
 *   mprotect(p, 8 pages, PROT_READ)          flushes pages 0..7
 *   madvise(p + 8 pages, 8, MADV_DONTNEED)   flushes pages 8..15
 *   touches pages 8 and 9 again, then
 *   munmap(p, 16 pages)                      flushes pages 0..9
 */
#include <stdio.h>
#include <sys/mman.h>

#define PAGE 4096

int main(void)
{
	volatile char *p = mmap(NULL, 16 * PAGE, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int i, sum = 0;

	if (p == MAP_FAILED)
		return 1;
	for (i = 0; i < 16; i++)
		p[i * PAGE] = i;
	if (mprotect((void *)p, 8 * PAGE, PROT_READ))
		return 1;
	for (i = 0; i < 8; i++)
		sum += p[i * PAGE];
	if (madvise((void *)(p + 8 * PAGE), 8 * PAGE, MADV_DONTNEED))
		return 1;
	p[8 * PAGE] = 1;
	p[9 * PAGE] = 1;
	if (munmap((void *)p, 16 * PAGE))
		return 1;
	return sum == 28 ? 0 : 1;
}
