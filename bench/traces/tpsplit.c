// SPDX-License-Identifier: GPL-2.0
/*
 * tpsplit: one program's tlbsim trace from tlbtrace-plugin's log.
 *
 *   tpsplit RAW                       the mms in the log: name, accesses,
 *                                     flushes, vCPUs, tasks
 *   tpsplit -c NAME [-C TEXT] -o OUT RAW
 *                                     the mm named NAME with the most
 *                                     accesses, as a binary tlbsim trace
 *                                     (TEXT: a comment line in it)
 *   tpsplit -m ID ...                 the mm numbered ID instead
 *
 * The trace: the mm's accesses on each vCPU (CPU = vCPU index) and its
 * flush_tlb_mm_range() calls, in the order the vCPUs executed them; a
 * call for all of the mm (end TLB_FLUSH_ALL) is "F", any other "f CPU
 * START ENTRIES SHIFT" with ENTRIES = the stride steps from START to END,
 * rounded up, as the kernel loops; a region found mapped with 2M or 1G
 * pages is a "p" line from then on, until a walk finds it otherwise.  No
 * "v" lines: tlbsim then counts the pages touched so far.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tlbpath/types.h"
#include "tracebin.h"

enum {
	TPR_READ, TPR_WRITE, TPR_FLUSH, TPR_SWITCH, TPR_PSIZE, TPR_COMM, TPR_DROP, TPR_MARK,
	TPR_TASK,
};

#define MAX_VCPUS	15
#define NAME_LEN	16

struct mmstat {
	char name[NAME_LEN + 1];
	u64 accesses, flushes, full, tasks;
	unsigned int vcpus;	/* bit mask */
};

static struct mmstat *mm;
static size_t nmm;
static const char *raw_path;

static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "tpsplit: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(1);
}

static struct mmstat *stat_of(u64 id)
{
	if (id >= nmm) {
		size_t n = id + 1024;

		mm = realloc(mm, n * sizeof(*mm));
		if (!mm)
			die("out of memory");
		memset(mm + nmm, 0, (n - nmm) * sizeof(*mm));
		nmm = n;
	}
	return &mm[id];
}

struct in {
	FILE *f;
	u64 off;
};

static int get(struct in *in)
{
	int c = getc_unlocked(in->f);

	if (c == EOF)
		die("%s: truncated at byte %llu", raw_path, in->off);
	in->off++;
	return c;
}

static u64 varint(struct in *in)
{
	u64 v = 0;
	unsigned int shift = 0;
	int c;

	do {
		c = get(in);
		if (shift > 63)
			die("%s: bad number at byte %llu", raw_path, in->off);
		v |= (u64)(c & 0x7f) << shift;
		shift += 7;
	} while (c & 0x80);
	return v;
}

/* One pass over the log; with @w, the events of mm @want go to it. */
static void pass(struct tb_writer *w, u64 want)
{
	u64 page[MAX_VCPUS] = { 0 }, cur[MAX_VCPUS] = { 0 };
	struct in in = { .f = fopen(raw_path, "r") };
	char magic[8];
	int tag;

	if (!in.f)
		die("%s: %m", raw_path);
	if (fread(magic, 1, 8, in.f) != 8 || memcmp(magic, "TPRAW001", 8))
		die("%s: not a tlbtrace-plugin log", raw_path);
	in.off = 8;
	while ((tag = getc_unlocked(in.f)) != EOF) {
		unsigned int op = tag & 15, vcpu = tag >> 4, i;
		u64 id, a, b, d;
		char name[NAME_LEN];
		struct mmstat *s;

		in.off++;
		if (vcpu >= MAX_VCPUS)
			die("%s: vCPU %u at byte %llu", raw_path, vcpu, in.off);
		switch (op) {
		case TPR_READ:
		case TPR_WRITE:
			d = varint(&in);
			page[vcpu] += (s64)(d >> 1) ^ -(s64)(d & 1);
			if (!cur[vcpu])
				break;
			s = stat_of(cur[vcpu]);
			s->accesses++;
			s->vcpus |= 1u << vcpu;
			if (w && cur[vcpu] == want &&
			    tb_access(w, vcpu, page[vcpu] << 12, op == TPR_WRITE))
				return;
			break;
		case TPR_FLUSH:
			id = varint(&in);
			a = varint(&in);
			b = varint(&in);
			i = get(&in);
			s = stat_of(id);
			if (b == ~0ull) {
				s->full++;
				if (w && id == want && tb_full(w, vcpu))
					return;
			} else if (b > a) {
				u64 start = a & ~0xfffull, entries;

				if (i < 12 || i > 30)
					die("%s: flush stride shift %u at byte %llu", raw_path, i,
					    in.off);
				start &= ~((1ull << i) - 1);
				entries = (b - start + (1ull << i) - 1) >> i;
				s->flushes++;
				if (w && id == want && tb_flush(w, vcpu, start, entries, i))
					return;
			}
			break;
		case TPR_SWITCH:
			cur[vcpu] = varint(&in);
			break;
		case TPR_PSIZE:
			id = varint(&in);
			a = varint(&in);
			i = get(&in);
			if (w && id == want) {
				u64 size = i == 30 ? 1ull << 30 : 1ull << 21;
				u64 start = (a << 21) & ~(size - 1);

				if (tb_region(w, start, size, i))
					return;
			}
			break;
		case TPR_COMM:
			id = varint(&in);
			for (i = 0; i < NAME_LEN; i++)
				name[i] = get(&in);
			s = stat_of(id);
			memcpy(s->name, name, NAME_LEN);
			s->name[NAME_LEN] = 0;
			break;
		case TPR_DROP:
			varint(&in);
			break;
		case TPR_MARK:
			varint(&in);
			break;
		case TPR_TASK:
			id = varint(&in);
			varint(&in);
			stat_of(id)->tasks++;
			break;
		default:
			die("%s: unknown record %u at byte %llu", raw_path, op, in.off);
		}
	}
	fclose(in.f);
}

int main(int argc, char **argv)
{
	const char *name = NULL, *out = NULL, *comment = NULL;
	u64 want = 0, best = 0;
	struct tb_writer *w;
	char err[400];
	size_t i;
	int c;

	while ((c = getopt(argc, argv, "c:m:o:C:")) != -1) {
		switch (c) {
		case 'c':
			name = optarg;
			break;
		case 'm':
			want = strtoull(optarg, NULL, 0);
			break;
		case 'o':
			out = optarg;
			break;
		case 'C':
			comment = optarg;
			break;
		default:
			die("usage: tpsplit [-c NAME | -m ID] [-C TEXT] [-o OUT] RAW");
		}
	}
	if (argc - optind != 1 || (out && !name && !want))
		die("usage: tpsplit [-c NAME | -m ID] [-C TEXT] [-o OUT] RAW");
	raw_path = argv[optind];
	pass(NULL, 0);
	if (!out) {
		printf("mm\tname\taccesses\tflushes\tfull\tvcpus\ttasks\n");
		for (i = 1; i < nmm; i++)
			if (mm[i].accesses || mm[i].flushes || mm[i].full)
				printf("%zu\t%s\t%llu\t%llu\t%llu\t%d\t%llu\n",
				       i, mm[i].name[0] ? mm[i].name : "?", mm[i].accesses,
				       mm[i].flushes, mm[i].full, __builtin_popcount(mm[i].vcpus),
				       mm[i].tasks);
		return 0;
	}
	if (name) {
		for (i = 1; i < nmm; i++)
			if (!strcmp(mm[i].name, name) && mm[i].accesses > best) {
				best = mm[i].accesses;
				want = i;
			}
		if (!want)
			die("%s: no mm named %s made an access", raw_path, name);
	}
	if (want >= nmm || !mm[want].accesses)
		die("%s: mm %llu made no access", raw_path, want);
	w = tb_open_write(out, 9, err, sizeof(err));
	if (!w)
		die("%s", err);
	if (comment)
		tb_comment(w, comment);
	snprintf(err, sizeof(err),
		 " tpsplit: mm %llu (%s) of %s: %llu accesses, %llu ranged and %llu full flushes, %d vCPUs, %llu tasks",
		 want, mm[want].name, raw_path, mm[want].accesses,
		 mm[want].flushes, mm[want].full, __builtin_popcount(mm[want].vcpus),
		 mm[want].tasks);
	tb_comment(w, err);
	pass(w, want);
	if (tb_close(w, err, sizeof(err)))
		die("%s", err);
	printf("%llu\t%s\t%llu\t%llu\t%llu\t%d\t%llu\n", want,
	       mm[want].name, mm[want].accesses, mm[want].flushes, mm[want].full,
	       __builtin_popcount(mm[want].vcpus), mm[want].tasks);
	return 0;
}
