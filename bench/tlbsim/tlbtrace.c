// SPDX-License-Identifier: GPL-2.0
/*
 * tlbtrace: tlbsim's traces between text and binary, and their statistics.
 *
 *   tlbtrace bin [-l LEVEL] IN OUT     any trace tlbsim reads -> binary (gzip LEVEL, 9)
 *   tlbtrace text IN [OUT]             any trace tlbsim reads -> text
 *   tlbtrace stats [-t NAME] IN        what the trace holds (-t: one TSV row named NAME)
 *   tlbtrace stats -T                  the TSV header
 *
 * IN "-" is standard input (text only), OUT "-" standard output.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tlbsim.h"
#include "tracebin.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static void help(void)
{
	fprintf(stderr,
		"usage: tlbtrace bin [-l LEVEL] IN OUT   IN (text, binary or gzip'ed) to binary\n"
		"       tlbtrace text IN [OUT]           IN to text\n"
		"       tlbtrace stats [-t NAME] IN      accesses, flushes by size, CPUs, pages\n"
		"       tlbtrace stats -T                the header of stats -t's row\n");
	exit(2);
}

/* IN as the text sim_trace_read() reads; @r its binary reader, if any. */
static FILE *open_in(const char *path, struct tb_reader **r)
{
	char err[400];
	FILE *f;

	*r = NULL;
	if (!strcmp(path, "-"))
		return stdin;
	f = tb_fopen(path, r, err, sizeof(err));
	if (!f) {
		fprintf(stderr, "tlbtrace: %s\n", err);
		exit(1);
	}
	return f;
}

static int cmd_bin(int argc, char **argv)
{
	struct tb_reader *r;
	struct tb_writer *w;
	char err[400];
	int level = 9, c, ret;
	FILE *in;

	while ((c = getopt(argc, argv, "l:")) != -1) {
		if (c != 'l')
			help();
		level = atoi(optarg);
	}
	if (argc - optind != 2)
		help();
	in = open_in(argv[optind], &r);
	w = tb_open_write(argv[optind + 1], level, err, sizeof(err));
	if (!w) {
		fprintf(stderr, "tlbtrace: %s\n", err);
		return 1;
	}
	ret = tb_from_text(in, argv[optind], w, err, sizeof(err));
	if (ret && r && tb_error(r)[0])
		snprintf(err, sizeof(err), "%s", tb_error(r));
	if (in != stdin)
		fclose(in);
	if (ret) {
		char dummy[8];

		tb_close(w, dummy, sizeof(dummy));
		if (strcmp(argv[optind + 1], "-"))
			unlink(argv[optind + 1]);
		fprintf(stderr, "tlbtrace: %s\n", err);
		return 1;
	}
	if (tb_close(w, err, sizeof(err))) {
		fprintf(stderr, "tlbtrace: %s\n", err);
		return 1;
	}
	return 0;
}

static int cmd_text(int argc, char **argv)
{
	struct tb_reader *r;
	FILE *in, *out = stdout;
	char buf[1 << 16];
	size_t n;
	int ret = 0;

	if (argc < 2 || argc > 3)
		help();
	in = open_in(argv[1], &r);
	if (argc == 3 && strcmp(argv[2], "-")) {
		out = fopen(argv[2], "w");
		if (!out) {
			perror(argv[2]);
			return 1;
		}
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			break;
	if (ferror(in)) {
		fprintf(stderr, "tlbtrace: %s\n",
			r && tb_error(r)[0] ? tb_error(r) : "read error");
		ret = 1;
	}
	if (in != stdin)
		fclose(in);
	if (fclose(out)) {
		perror("tlbtrace: write");
		ret = 1;
	}
	return ret;
}

/* Flush sizes (entries) by the ranges that matter to the stock ceiling, 33. */
static const struct {
	uint64_t hi;
	const char *name;
} buckets[] = {
	{ 1, "1" }, { 4, "2-4" }, { 16, "5-16" }, { 33, "17-33" }, { 64, "34-64" },
	{ 256, "65-256" }, { 1024, "257-1024" }, { UINT64_MAX, ">1024" },
};

#define NBUCKETS	ARRAY_SIZE(buckets)

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

/* Distinct 4K pages touched. */
static uint64_t distinct_pages(const struct sim_trace *t)
{
	size_t size = 1024, i, j, used = 0;
	uint64_t *set = calloc(size, sizeof(*set));

	for (i = 0; set && i < t->n; i++) {
		uint64_t p;

		if (t->ev[i].type != EV_READ && t->ev[i].type != EV_WRITE)
			continue;
		p = (t->ev[i].addr >> 12) + 1;
		if (2 * (used + 1) > size) {
			uint64_t *n = calloc(2 * size, sizeof(*n));

			if (!n) {
				free(set);
				set = NULL;
				break;
			}
			for (j = 0; j < size; j++) {
				size_t k;

				if (!set[j])
					continue;
				for (k = mix(set[j]) & (2 * size - 1); n[k]; k = (k + 1) & (2 * size - 1))
					;
				n[k] = set[j];
			}
			free(set);
			set = n;
			size *= 2;
		}
		for (j = mix(p) & (size - 1); set[j] && set[j] != p; j = (j + 1) & (size - 1))
			;
		if (!set[j]) {
			set[j] = p;
			used++;
		}
	}
	free(set);
	return set || !t->n ? used : 0;
}

static void tsv_header(void)
{
	size_t b;

	printf("trace\taccesses\twrites\tcpus\tpages_4k\tflushes\tfull");
	for (b = 0; b < NBUCKETS; b++)
		printf("\tf_%s", buckets[b].name);
	printf("\tf_2m_stride\tmax_entries\tdistinct_sizes\n");
}

static int cmd_stats(int argc, char **argv)
{
	uint64_t count[NBUCKETS] = { 0 }, writes = 0, stride2m = 0, max = 0;
	const char *tsv = NULL;
	struct sim_trace t;
	char err[400];
	size_t i, b;
	int c;

	while ((c = getopt(argc, argv, "t:T")) != -1) {
		if (c == 'T') {
			tsv_header();
			return 0;
		}
		if (c != 't')
			help();
		tsv = optarg;
	}
	if (argc - optind != 1)
		help();
	if (sim_trace_load(&t, argv[optind], err, sizeof(err))) {
		fprintf(stderr, "tlbtrace: %s\n", err);
		return 1;
	}
	for (i = 0; i < t.n; i++) {
		const struct sim_event *e = &t.ev[i];

		if (e->type == EV_WRITE)
			writes++;
		if (e->type != EV_FLUSH)
			continue;
		for (b = 0; e->entries > buckets[b].hi; b++)
			;
		count[b]++;
		if (e->shift == 21)
			stride2m++;
		if (e->entries > max)
			max = e->entries;
	}
	if (tsv) {
		printf("%s\t%" PRIu64 "\t%" PRIu64 "\t%u\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64, tsv,
		       t.accesses, writes, t.ncpus, distinct_pages(&t), t.flushes, t.full_flushes);
		for (b = 0; b < NBUCKETS; b++)
			printf("\t%" PRIu64, count[b]);
		printf("\t%" PRIu64 "\t%" PRIu64 "\t%zu\n", stride2m, max, t.nsizes);
	} else {
		printf("accesses %" PRIu64 " (writes %" PRIu64 "), CPUs %u, distinct 4K pages %" PRIu64
		       "\n", t.accesses, writes, t.ncpus, distinct_pages(&t));
		printf("ranged flushes %" PRIu64 " (%" PRIu64 " at a 2M stride), full flushes asked %"
		       PRIu64 ", largest %" PRIu64 " entries, %zu distinct sizes\n",
		       t.flushes, stride2m, t.full_flushes, max, t.nsizes);
		printf("entries:");
		for (b = 0; b < NBUCKETS; b++)
			printf(" %s:%" PRIu64, buckets[b].name, count[b]);
		printf("\n");
	}
	sim_trace_free(&t);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		help();
	if (!strcmp(argv[1], "bin"))
		return cmd_bin(argc - 1, argv + 1);
	if (!strcmp(argv[1], "text"))
		return cmd_text(argc - 1, argv + 1);
	if (!strcmp(argv[1], "stats"))
		return cmd_stats(argc - 1, argv + 1);
	help();
	return 2;
}
