// SPDX-License-Identifier: GPL-2.0
/*
 * tlbpath-geometry: the module's TLB geometry parser, in user space.
 *
 *   tlbpath-geometry FILE    read a `cpuid -r` dump (FILE "-": stdin)
 *   tlbpath-geometry         run CPUID on every CPU of this machine
 *
 * One line per logical CPU:
 *   cpu=N source=S l1d_4k=E l1i_4k=E l2_4k=E l1d_2m=E l1i_2m=E l2_2m=E l1d_1g=E l2_1g=E
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tlbpath/geometry.h"

static void print_cpu(int cpu, const struct tlbp_cpuid *c)
{
	struct tlbp_geometry g;

	tlbp_parse_geometry(c, &g);
	printf("cpu=%d source=%s l1d_4k=%u l1i_4k=%u l2_4k=%u", cpu,
	       tlbp_geo_source_name(g.source),
	       g.l1d[TLBP_4K], g.l1i[TLBP_4K], g.l2[TLBP_4K]);
	printf(" l1d_2m=%u l1i_2m=%u l2_2m=%u l1d_1g=%u l2_1g=%u\n",
	       g.l1d[TLBP_2M], g.l1i[TLBP_2M], g.l2[TLBP_2M],
	       g.l1d[TLBP_1G], g.l2[TLBP_1G]);
}

/* One CPU's worth of "0xLEAF 0xSUB: eax=... ebx=... ecx=... edx=..." lines. */
struct dump_cpu {
	size_t n, size;
	struct entry {
		u32 leaf, sub;
		struct tlbp_regs r;
	} *e;
};

static void dump_lookup(void *ctx, u32 leaf, u32 sub, struct tlbp_regs *out)
{
	const struct dump_cpu *d = ctx;
	size_t i;

	for (i = 0; i < d->n; i++) {
		if (d->e[i].leaf == leaf && d->e[i].sub == sub) {
			*out = d->e[i].r;
			return;
		}
	}
	memset(out, 0, sizeof(*out));
}

static void flush_cpu(int cpu, struct dump_cpu *d)
{
	struct tlbp_cpuid c;

	if (cpu < 0)
		return;
	tlbp_cpuid_fill(&c, dump_lookup, d);
	print_cpu(cpu, &c);
	d->n = 0;
}

static int read_dump(const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	struct dump_cpu d = { 0 };
	char line[512];
	int cpu = -1, lineno = 0, cpus = 0, next;

	if (!f) {
		fprintf(stderr, "tlbpath-geometry: %s: %s\n", path, strerror(errno));
		return 1;
	}
	while (fgets(line, sizeof(line), f)) {
		struct entry e;

		lineno++;
		/* "CPU N:" per CPU; `cpuid -1 -r` prints a bare "CPU:". */
		if (!strncmp(line + strspn(line, " "), "CPU:", 4))
			next = cpus;
		else if (sscanf(line, " CPU %d:", &next) != 1)
			next = -1;
		if (next >= 0) {
			flush_cpu(cpu, &d);
			cpu = next;
			cpus++;
			continue;
		}
		if (sscanf(line, " 0x%x 0x%x: eax=0x%x ebx=0x%x ecx=0x%x edx=0x%x",
			   &e.leaf, &e.sub, &e.r.eax, &e.r.ebx, &e.r.ecx, &e.r.edx) != 6) {
			if (strspn(line, " \t\r\n") == strlen(line))
				continue;
			fprintf(stderr, "tlbpath-geometry: %s:%d: not a `cpuid -r` line\n",
				path, lineno);
			return 1;
		}
		if (cpu < 0) {
			fprintf(stderr, "tlbpath-geometry: %s:%d: %s\n", path,
				lineno, "register line before any \"CPU N:\"");
			return 1;
		}
		if (d.n == d.size) {
			d.size = d.size ? 2 * d.size : 256;
			d.e = realloc(d.e, d.size * sizeof(*d.e));
			if (!d.e) {
				perror("tlbpath-geometry");
				return 1;
			}
		}
		d.e[d.n++] = e;
	}
	flush_cpu(cpu, &d);
	free(d.e);
	if (f != stdin)
		fclose(f);
	if (!cpus) {
		fprintf(stderr, "tlbpath-geometry: %s: no \"CPU N:\" sections\n", path);
		return 1;
	}
	return 0;
}

static void cpuid_insn(void *ctx, u32 leaf, u32 sub, struct tlbp_regs *r)
{
	(void)ctx;
	__cpuid_count(leaf, sub, r->eax, r->ebx, r->ecx, r->edx);
}

static int read_live(void)
{
	cpu_set_t allowed, one;
	int cpu;

	if (sched_getaffinity(0, sizeof(allowed), &allowed)) {
		perror("tlbpath-geometry: sched_getaffinity");
		return 1;
	}
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		struct tlbp_cpuid c;

		if (!CPU_ISSET(cpu, &allowed))
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one)) {
			fprintf(stderr, "tlbpath-geometry: cannot run on cpu %d: %s\n",
				cpu, strerror(errno));
			return 1;
		}
		tlbp_cpuid_fill(&c, cpuid_insn, NULL);
		print_cpu(cpu, &c);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 2 || (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")))) {
		fprintf(stderr, "usage: %s [FILE|-]\n"
			"  FILE: a `cpuid -r` dump; no argument: this machine's CPUs\n", argv[0]);
		return argc == 2 ? 0 : 2;
	}
	return argc == 2 ? read_dump(argv[1]) : read_live();
}
