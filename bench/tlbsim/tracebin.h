/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tlbsim's binary traces (tracebin.c; the format: README.md beside this
 * file, "Binary traces").  The same events as the text format, each
 * address a zigzag varint delta from the CPU's previous one, in a gzip
 * stream; tlbsim reads them wherever it reads a text trace.
 */
#ifndef _TLBSIM_TRACEBIN_H
#define _TLBSIM_TRACEBIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TB_MAGIC	"TLBTRACE"	/* the first 8 bytes (of the gzip content) */
#define TB_MAGIC_LEN	8
#define TB_VERSION	1

/* Record operations: the low 3 bits of a record's tag byte. */
enum tb_op {
	TB_READ,	/* r CPU ADDR, ADDR page-aligned */
	TB_WRITE,	/* w CPU ADDR, ADDR page-aligned */
	TB_ACCESS_OFF,	/* r/w CPU ADDR with an offset in the page */
	TB_FLUSH,	/* f CPU START ENTRIES SHIFT */
	TB_FULL,	/* F CPU */
	TB_REGION,	/* p START LEN SHIFT */
	TB_VM,		/* v TOTAL_VM RSS */
	TB_EXT,		/* a sub-operation byte follows (enum tb_ext) */
};

enum tb_ext {
	TB_END,		/* the last record: the record count, then CRC-32 */
	TB_LOADS_DEP,	/* l dep */
	TB_LOADS_INDEP,	/* l indep */
	TB_COMMENT,	/* # TEXT (varint length, bytes) */
};

#define TB_MAX_CPUS	256	/* tlbsim's SIM_MAX_CPUS */

/* ---- Writing ----------------------------------------------------------- */

struct tb_writer;

/*
 * Open @path ("-": stdout) for a binary trace, gzip level @level (0: the
 * gzip container without compression).  NULL with @err on failure.
 */
struct tb_writer *tb_open_write(const char *path, int level, char *err, size_t errlen);
/* Each returns 0, or -1 once anything failed (tb_close says what). */
int tb_access(struct tb_writer *w, unsigned int cpu, uint64_t addr, bool write);
int tb_flush(struct tb_writer *w, unsigned int cpu, uint64_t start, uint64_t entries,
	     unsigned int shift);
int tb_full(struct tb_writer *w, unsigned int cpu);
int tb_region(struct tb_writer *w, uint64_t start, uint64_t len, unsigned int shift);
int tb_vm(struct tb_writer *w, uint64_t total_vm, uint64_t rss);
int tb_loads(struct tb_writer *w, bool dep);
int tb_comment(struct tb_writer *w, const char *text);
/* Write the end record and close: 0, or -1 with @err. */
int tb_close(struct tb_writer *w, char *err, size_t errlen);

/*
 * A text trace (the text format) from @in to a binary one: 0, or -1 with
 * "NAME:LINE: what" in @err.  Only the syntax is checked here; tlbsim's
 * parser checks the rest when it reads the result.
 */
int tb_from_text(FILE *in, const char *name, struct tb_writer *w, char *err, size_t errlen);

/* ---- Reading ----------------------------------------------------------- */

/* Whether the first bytes of a file, @n of them, start a binary trace (gzip or plain). */
bool tb_is_binary(const unsigned char *head, size_t n);

struct tb_reader;

/*
 * A binary trace as a stream of the equivalent text trace, which
 * sim_trace_read() parses.  @fd is read from its current position and
 * closed by fclose() on the stream.  NULL with @err on failure.  Reading
 * stops at the first corrupt or missing byte: the stream then reports an
 * error, and tb_error() says what.
 */
FILE *tb_open_text(int fd, const char *name, struct tb_reader **r, char *err, size_t errlen);
/*
 * Open @path for sim_trace_read(): a binary or gzip'ed trace through
 * tb_open_text() (@r its reader), anything else as it is (@r NULL).
 */
FILE *tb_fopen(const char *path, struct tb_reader **r, char *err, size_t errlen);
/* The reader's error, "" if none; valid until the stream is closed. */
const char *tb_error(const struct tb_reader *r);

#endif /* _TLBSIM_TRACEBIN_H */
