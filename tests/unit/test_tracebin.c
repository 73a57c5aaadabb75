// SPDX-License-Identifier: GPL-2.0
/*
 * tlbsim's binary traces (bench/tlbsim/tracebin.c): text -> binary ->
 * text gives the same trace, tlbsim reads the binary as the same struct
 * sim_trace, and corrupt input is refused with a message saying what and
 * where.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "tap.h"
#include "tlbsim.h"
#include "tracebin.h"

static char dir[] = "/tmp/test_tracebin.XXXXXX";

static char *path(const char *name)
{
	static char p[4][256];
	static int i;

	i = (i + 1) % 4;
	snprintf(p[i], sizeof(p[i]), "%s/%s", dir, name);
	return p[i];
}

static void write_file(const char *name, const void *data, size_t n)
{
	FILE *f = fopen(path(name), "w");

	if (!f || fwrite(data, 1, n, f) != n || fclose(f)) {
		perror(name);
		exit(1);
	}
}

static char *read_file(const char *p, size_t *n)
{
	FILE *f = fopen(p, "r");
	char *buf = NULL;
	size_t cap = 0;

	*n = 0;
	if (!f)
		return NULL;
	for (;;) {
		if (*n + 4096 > cap) {
			cap = 2 * cap + 4096;
			buf = realloc(buf, cap + 1);
		}
		size_t k = fread(buf + *n, 1, 4096, f);

		*n += k;
		if (!k)
			break;
	}
	fclose(f);
	buf[*n] = 0;
	return buf;
}

/* Text @name.txt to binary @name.tbt; 0 or -1 with @err. */
static int encode(const char *name, const char *text, int level, char *err, size_t errlen)
{
	char txt[64], bin[64], cerr[256];
	struct tb_writer *w;
	FILE *in;
	int ret;

	snprintf(txt, sizeof(txt), "%s.txt", name);
	snprintf(bin, sizeof(bin), "%s.tbt", name);
	write_file(txt, text, strlen(text));
	in = fopen(path(txt), "r");
	w = tb_open_write(path(bin), level, err, errlen);
	if (!in || !w)
		return -1;
	ret = tb_from_text(in, txt, w, err, errlen);
	fclose(in);
	if (tb_close(w, cerr, sizeof(cerr)) && !ret) {
		snprintf(err, errlen, "%s", cerr);
		ret = -1;
	}
	return ret;
}

/* The text a binary trace reads as. */
static char *decode(const char *p, size_t *n, char *err, size_t errlen)
{
	struct tb_reader *r;
	FILE *f = tb_fopen(p, &r, err, errlen);
	char *buf = NULL;
	size_t cap = 0;

	*n = 0;
	if (!f)
		return NULL;
	for (;;) {
		if (*n + 4096 > cap) {
			cap = 2 * cap + 4096;
			buf = realloc(buf, cap + 1);
		}
		size_t k = fread(buf + *n, 1, 4096, f);

		*n += k;
		if (!k)
			break;
	}
	buf[*n] = 0;
	if (ferror(f)) {
		snprintf(err, errlen, "%s", r ? tb_error(r) : "read error");
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

static bool same_trace(const struct sim_trace *a, const struct sim_trace *b)
{
	size_t i;

	if (a->n != b->n || a->ncpus != b->ncpus || a->accesses != b->accesses ||
	    a->flushes != b->flushes || a->full_flushes != b->full_flushes ||
	    a->has_vm != b->has_vm || a->nsizes != b->nsizes)
		return false;
	for (i = 0; i < a->n; i++) {
		const struct sim_event *x = &a->ev[i], *y = &b->ev[i];

		if (x->addr != y->addr || x->entries != y->entries || x->total_vm != y->total_vm ||
		    x->rss != y->rss || x->cpu != y->cpu || x->type != y->type ||
		    x->shift != y->shift)
			return false;
	}
	return !memcmp(a->sizes, b->sizes, a->nsizes * sizeof(*a->sizes));
}

/* A trace with every kind of line, CPUs in and beyond the tag, deltas both ways. */
static char *sample(bool loads)
{
	static const unsigned int cpus[] = { 0, 1, 29, 30, 31, 200, 255 };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	unsigned int i, x = 12345;

	fprintf(f, "# tlbsim trace 1\n# a comment, kept\np 0x40000000 0x400000 21\n");
	fprintf(f, "p 7fff00000000 40000000 30\nv 1000 500\n");
	for (i = 0; i < 3000; i++) {
		unsigned int cpu = cpus[i % 7];
		unsigned long long page;

		x = x * 1103515245 + 12345;
		page = (i & 1 ? 0x7fff00000ull : 0x40000ull) + (x >> 16) % 4096;
		if (i % 97 == 0)
			fprintf(f, "f %u 0x%llx %u %u\n", cpu, page << 12, 1 + x % 200, 12);
		else if (i % 211 == 0)
			fprintf(f, "f %u 0x%llx %u 21\n", cpu, 0x40000000ull, 2);
		else if (i % 499 == 0)
			fprintf(f, "F %u\nv %u %u\n", cpu, 1000 + i, 500 + i);
		else if (loads && i % 333 == 0)
			fprintf(f, "l %s\n", i & 1 ? "indep" : "dep");
		else
			fprintf(f, "%c %u 0x%llx\n", x & 4 ? 'w' : 'r', cpu,
				page << 12 | (i % 5 ? 0 : x % 4096));
	}
	fprintf(f, "r 0 0xfffffffffffff000\nr 0 0x0\nw 255 0xfffffffffffffff8\n");
	fclose(f);
	return text;
}

/* Load @p with tlbsim's loader; the message on failure in @err. */
static int load(struct sim_trace *t, const char *p, char *err, size_t errlen)
{
	err[0] = 0;
	return sim_trace_load(t, p, err, errlen);
}

static void expect_refused(const char *name, const void *data, size_t n, const char *what)
{
	struct sim_trace t;
	char err[512];
	int ret;

	write_file(name, data, n);
	ret = load(&t, path(name), err, sizeof(err));
	if (!ret)
		sim_trace_free(&t);
	tap_ok(ret && strstr(err, path(name)) && strstr(err, what), "refused: %s (%s)", name, err);
}

/* The uncompressed content of a binary trace. */
static size_t content(const char *p, unsigned char *buf, size_t cap)
{
	gzFile gz = gzopen(p, "rb");
	int n = gzread(gz, buf, cap);

	gzclose(gz);
	return n < 0 ? 0 : n;
}

static void write_gz(const char *name, const unsigned char *buf, size_t n)
{
	gzFile gz = gzopen(path(name), "wb6");

	gzwrite(gz, buf, n);
	gzclose(gz);
}

int main(void)
{
	struct sim_trace a, b;
	char err[512], *text, *back, *back2;
	unsigned char buf[1 << 16];
	size_t n, n2, len;
	bool has_loads;

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	tap_plan(20);

	/* Does this tlbsim read 'l' lines (the loads' dependencies)? */
	has_loads = !sim_trace_from_string(&a, "# tlbsim trace 1\nl dep\nr 0 0x1000\n",
					   err, sizeof(err));
	if (has_loads)
		sim_trace_free(&a);
	err[0] = 0;

	text = sample(true);
	tap_ok(!encode("all", text, 9, err, sizeof(err)), "a trace with every kind of line encodes (%s)",
	       err);
	back = decode(path("all.tbt"), &n, err, sizeof(err));
	tap_ok(back != NULL, "and decodes (%s)", back ? "" : err);
	tap_ok(!encode("again", back ? back : "", 6, err, sizeof(err)), "the decoded text encodes");
	back2 = decode(path("again.tbt"), &n2, err, sizeof(err));
	tap_ok(back && back2 && n == n2 && !memcmp(back, back2, n),
	       "text -> binary -> text -> binary -> text: the same text twice");
	tap_ok(back && strstr(back, "# a comment, kept\n") && strstr(back, "l indep\n") &&
	       strstr(back, "l dep\n") && strstr(back, "w 255 0xfffffffffffffff8\n") &&
	       strstr(back, "p 0x7fff00000000 0x40000000 30\n") && strstr(back, "F 200\n"),
	       "comments, l lines, CPU 255, the top of the address space and regions survive");
	free(back2);
	free(back);
	free(text);

	/* tlbsim: the same struct sim_trace from the text and from the binary. */
	text = sample(has_loads);
	encode("sim", text, 9, err, sizeof(err));
	tap_ok(!load(&a, path("sim.txt"), err, sizeof(err)), "tlbsim reads the text (%s)", err);
	tap_ok(!load(&b, path("sim.tbt"), err, sizeof(err)), "tlbsim reads the binary (%s)", err);
	tap_ok(same_trace(&a, &b), "the same events, counts and flush sizes%s",
	       has_loads ? "" : " (this tlbsim has no 'l' lines: tested without)");
	tap_ok(a.accesses > 2500 && a.flushes > 30 && a.full_flushes >= 5 && a.ncpus == 256,
	       "the sample has accesses, flushes, full flushes and 256 CPUs");
	sim_trace_free(&b);
	encode("sim0", text, 0, err, sizeof(err));
	tap_ok(!load(&b, path("sim0.tbt"), err, sizeof(err)) && same_trace(&a, &b),
	       "uncompressed (gzip level 0): the same");
	sim_trace_free(&b);
	{
		gzFile gz = gzopen(path("text.gz"), "wb");

		gzwrite(gz, text, strlen(text));
		gzclose(gz);
	}
	tap_ok(!load(&b, path("text.gz"), err, sizeof(err)) && same_trace(&a, &b),
	       "a gzip'ed text trace reads as the text (%s)", err);
	sim_trace_free(&b);
	sim_trace_free(&a);
	free(text);

	/* Corrupt input: refused, saying which file and what. */
	text = read_file(path("sim.tbt"), &len);
	expect_refused("truncated.tbt", text, len / 2, "truncated");
	text[len / 2] ^= 0x55;
	expect_refused("flipped.tbt", text, len, "corrupt binary trace");
	free(text);
	n = content(path("sim0.tbt"), buf, sizeof(buf));
	write_gz("cut.tbt", buf, n / 3);
	{
		struct sim_trace t;

		tap_ok(load(&t, path("cut.tbt"), err, sizeof(err)) &&
		       strstr(err, "truncated (no end record)"),
		       "a well-formed gzip of a cut trace: \"truncated (no end record)\" (%s)", err);
	}
	buf[TB_MAGIC_LEN] = 2;
	write_gz("version.tbt", buf, n);
	tap_ok(load(&a, path("version.tbt"), err, sizeof(err)) &&
	       strstr(err, "binary trace version 2"), "another version: refused (%s)", err);
	buf[TB_MAGIC_LEN] = TB_VERSION;
	memcpy(buf + n, "junk", 4);
	write_gz("after.tbt", buf, n + 4);
	tap_ok(load(&a, path("after.tbt"), err, sizeof(err)) &&
	       strstr(err, "data after the end record"), "bytes after the end: refused (%s)", err);
	{
		static const unsigned char cpu[] = "TLBTRACE\001\xf8\x80\x02\x00";
		static const unsigned char tag[] = "TLBTRACE\001\x0d\x01\x01\x0c";
		static const unsigned char ext[] = "TLBTRACE\001\x07\x09";
		static const unsigned char big[] = "TLBTRACE\001\x00\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f";

		write_gz("cpu.tbt", cpu, sizeof(cpu) - 1);
		tap_ok(load(&a, path("cpu.tbt"), err, sizeof(err)) &&
		       strstr(err, "record 1 (byte 12): cpu 256: at most 256 CPUs"),
		       "CPU 256: refused (%s)", err);
		write_gz("tag.tbt", tag, sizeof(tag) - 1);
		tap_ok(load(&a, path("tag.tbt"), err, sizeof(err)) &&
		       strstr(err, "this operation has no CPU"), "a region with a CPU: refused (%s)",
		       err);
		write_gz("ext.tbt", ext, sizeof(ext) - 1);
		tap_ok(load(&a, path("ext.tbt"), err, sizeof(err)) &&
		       strstr(err, "unknown extended operation 9"), "an unknown operation: refused (%s)",
		       err);
		write_gz("big.tbt", big, sizeof(big) - 1);
		tap_ok(load(&a, path("big.tbt"), err, sizeof(err)) &&
		       strstr(err, "does not fit in 64 bits"), "a varint past 64 bits: refused (%s)",
		       err);
	}
	if (fork() == 0)
		execlp("rm", "rm", "-rf", dir, (char *)NULL);
	return tap_done();
}
