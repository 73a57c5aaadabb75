// SPDX-License-Identifier: GPL-2.0
/*
 * tlbsim's binary traces: the text format's events, delta-encoded, in a
 * gzip stream (README.md, "Binary traces").
 *
 * Content: the 8 bytes "TLBTRACE", a version byte (1), then records.  A
 * record is a tag byte, op = tag & 7 (enum tb_op), CPU field = tag >> 3:
 * 0 the previous record's CPU (0 at first), 1..30 CPU 0..29, 31 a varint
 * CPU follows; records without a CPU have field 0.  Numbers are LEB128
 * varints; an access's page is a zigzag delta from its CPU's previous
 * access, a flush's start page one from the same.  The last record is
 * TB_EXT TB_END with the number of records before it; nothing may follow.
 *
 * The reader does not build events itself: it turns the records back
 * into the text format, which sim_trace_read() parses, so a binary trace
 * gives exactly the struct sim_trace its text gives.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "tlbsim.h"
#include "tracebin.h"

#define TEXT_MAGIC	"# tlbsim trace 1"
#define CPU_INLINE	30	/* CPUs 0..29 fit in the tag */
#define MAX_COMMENT	4096
#define WBUF		(1 << 16)

static uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static int64_t unzigzag(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* The text format's fields, shared with trace.c's reader. */
bool sim_field(char **p, int base, uint64_t *v)
{
	char *s = *p, *end;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s || *s == '\n' || *s == '-')
		return false;
	errno = 0;
	*v = strtoull(s, &end, base);
	if (end == s || errno || (*end && *end != ' ' && *end != '\t' && *end != '\n' &&
				  *end != '\r'))
		return false;
	*p = end;
	return true;
}

bool sim_at_end(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
		p++;
	return !*p;
}

/* ---- Writing ----------------------------------------------------------- */

struct tb_writer {
	gzFile gz;
	char path[256];
	unsigned char buf[WBUF];
	size_t len;
	uint64_t records;
	unsigned int cpu;		/* the previous record's CPU */
	uint64_t page[TB_MAX_CPUS];	/* each CPU's previous access page */
	char err[256];
};

static int wfail(struct tb_writer *w, const char *fmt, ...)
{
	va_list ap;

	if (!w->err[0]) {
		va_start(ap, fmt);
		vsnprintf(w->err, sizeof(w->err), fmt, ap);
		va_end(ap);
	}
	return -1;
}

static int wdrain(struct tb_writer *w)
{
	int errnum;

	if (w->len && gzwrite(w->gz, w->buf, w->len) != (int)w->len)
		return wfail(w, "%s: write failed: %s", w->path, gzerror(w->gz, &errnum));
	w->len = 0;
	return 0;
}

/* Room for one record (at most a tag, 4 varints and a byte). */
static int wroom(struct tb_writer *w, size_t n)
{
	if (w->err[0])
		return -1;
	return w->len + n > WBUF ? wdrain(w) : 0;
}

static void wbyte(struct tb_writer *w, unsigned int b)
{
	w->buf[w->len++] = b;
}

static void wvarint(struct tb_writer *w, uint64_t v)
{
	while (v >= 0x80) {
		w->buf[w->len++] = (v & 0x7f) | 0x80;
		v >>= 7;
	}
	w->buf[w->len++] = v;
}

/* The tag of a record of @op on @cpu (its varint, if any, follows). */
static int wtag(struct tb_writer *w, enum tb_op op, unsigned int cpu)
{
	if (cpu >= TB_MAX_CPUS)
		return wfail(w, "cpu %u: at most %d CPUs", cpu, TB_MAX_CPUS);
	if (wroom(w, 64))
		return -1;
	if (cpu == w->cpu) {
		wbyte(w, op);
	} else if (cpu < CPU_INLINE) {
		wbyte(w, op | (cpu + 1) << 3);
	} else {
		wbyte(w, op | 31 << 3);
		wvarint(w, cpu);
	}
	w->cpu = cpu;
	w->records++;
	return 0;
}

struct tb_writer *tb_open_write(const char *path, int level, char *err, size_t errlen)
{
	struct tb_writer *w = calloc(1, sizeof(*w));
	char mode[8];
	int fd;

	if (!w) {
		snprintf(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	snprintf(w->path, sizeof(w->path), "%s", path);
	snprintf(mode, sizeof(mode), "wb%d", level < 0 ? 0 : level > 9 ? 9 : level);
	fd = strcmp(path, "-") ? open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644) : dup(1);
	w->gz = fd < 0 ? NULL : gzdopen(fd, mode);
	if (!w->gz) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno ? errno : ENOMEM));
		if (fd >= 0)
			close(fd);
		free(w);
		return NULL;
	}
	memcpy(w->buf, TB_MAGIC, TB_MAGIC_LEN);
	w->buf[TB_MAGIC_LEN] = TB_VERSION;
	w->len = TB_MAGIC_LEN + 1;
	return w;
}

int tb_access(struct tb_writer *w, unsigned int cpu, uint64_t addr, bool write)
{
	uint64_t page = addr >> 12, off = addr & 0xfff;

	if (cpu >= TB_MAX_CPUS)
		return wfail(w, "cpu %u: at most %d CPUs", cpu, TB_MAX_CPUS);
	if (wtag(w, off ? TB_ACCESS_OFF : write ? TB_WRITE : TB_READ, cpu))
		return -1;
	wvarint(w, zigzag(page - w->page[cpu]));
	if (off)
		wvarint(w, off << 1 | write);
	w->page[cpu] = page;
	return 0;
}

int tb_flush(struct tb_writer *w, unsigned int cpu, uint64_t start, uint64_t entries,
	     unsigned int shift)
{
	if (start & 0xfff)
		return wfail(w, "flush start 0x%llx: not page-aligned", (unsigned long long)start);
	if (shift > 255)
		return wfail(w, "flush shift %u: too large", shift);
	if (wtag(w, TB_FLUSH, cpu))
		return -1;
	wvarint(w, zigzag((start >> 12) - w->page[cpu]));
	wvarint(w, entries);
	wbyte(w, shift);
	return 0;
}

int tb_full(struct tb_writer *w, unsigned int cpu)
{
	return wtag(w, TB_FULL, cpu);
}

/* Records without a CPU: the tag's CPU field is 0, the CPU stays. */
static int wplain(struct tb_writer *w, unsigned int tag)
{
	if (wroom(w, 64))
		return -1;
	wbyte(w, tag);
	w->records++;
	return 0;
}

int tb_region(struct tb_writer *w, uint64_t start, uint64_t len, unsigned int shift)
{
	if (shift > 255)
		return wfail(w, "region shift %u: too large", shift);
	if (wplain(w, TB_REGION))
		return -1;
	wvarint(w, start);
	wvarint(w, len);
	wbyte(w, shift);
	return 0;
}

int tb_vm(struct tb_writer *w, uint64_t total_vm, uint64_t rss)
{
	if (wplain(w, TB_VM))
		return -1;
	wvarint(w, total_vm);
	wvarint(w, rss);
	return 0;
}

int tb_loads(struct tb_writer *w, bool dep)
{
	if (wplain(w, TB_EXT))
		return -1;
	wbyte(w, dep ? TB_LOADS_DEP : TB_LOADS_INDEP);
	return 0;
}

int tb_comment(struct tb_writer *w, const char *text)
{
	size_t n = strcspn(text, "\r\n");

	if (n > MAX_COMMENT)
		n = MAX_COMMENT;
	if (wplain(w, TB_EXT) || wroom(w, n + 16))
		return -1;
	wbyte(w, TB_COMMENT);
	wvarint(w, n);
	memcpy(w->buf + w->len, text, n);
	w->len += n;
	return 0;
}

int tb_close(struct tb_writer *w, char *err, size_t errlen)
{
	int ret = 0, errnum;

	if (!wroom(w, 16)) {
		wbyte(w, TB_EXT);
		wbyte(w, TB_END);
		wvarint(w, w->records);
		wdrain(w);
	}
	errnum = gzclose(w->gz);
	if (errnum != Z_OK)
		wfail(w, "%s: closing failed (zlib error %d)", w->path, errnum);
	if (w->err[0]) {
		snprintf(err, errlen, "%s", w->err);
		ret = -1;
	}
	free(w);
	return ret;
}

int tb_from_text(FILE *in, const char *name, struct tb_writer *w, char *err, size_t errlen)
{
	unsigned long lineno = 0;
	size_t cap = 0;
	char *line = NULL;
	int ret = -1;

	while (getline(&line, &cap, in) > 0) {
		uint64_t cpu, a, b, c;
		char *p = line + 1;
		int r = 0;

		lineno++;
		if (lineno == 1) {
			if (strncmp(line, TEXT_MAGIC, strlen(TEXT_MAGIC))) {
				snprintf(err, errlen, "%s:1: not a tlbsim trace (no \"%s\")",
					 name, TEXT_MAGIC);
				goto out;
			}
			continue;
		}
		if (line[0] == '#') {
			r = tb_comment(w, line + 1);
			goto next;
		}
		if (sim_at_end(line))
			continue;
		if (line[1] != ' ' && line[1] != '\t')
			goto bad;
		switch (line[0]) {
		case 'r':
		case 'w':
			if (!sim_field(&p, 10, &cpu) || !sim_field(&p, 16, &a) || !sim_at_end(p) ||
			    cpu >= TB_MAX_CPUS)
				goto bad;
			r = tb_access(w, cpu, a, line[0] == 'w');
			break;
		case 'f':
			if (!sim_field(&p, 10, &cpu) || !sim_field(&p, 16, &a) ||
			    !sim_field(&p, 10, &b) || !sim_field(&p, 10, &c) || !sim_at_end(p) ||
			    cpu >= TB_MAX_CPUS || (a & 0xfff) || c > 255)
				goto bad;
			r = tb_flush(w, cpu, a, b, c);
			break;
		case 'F':
			if (!sim_field(&p, 10, &cpu) || !sim_at_end(p) || cpu >= TB_MAX_CPUS)
				goto bad;
			r = tb_full(w, cpu);
			break;
		case 'p':
			if (!sim_field(&p, 16, &a) || !sim_field(&p, 16, &b) ||
			    !sim_field(&p, 10, &c) || !sim_at_end(p) || c > 255)
				goto bad;
			r = tb_region(w, a, b, c);
			break;
		case 'v':
			if (!sim_field(&p, 10, &a) || !sim_field(&p, 10, &b) || !sim_at_end(p))
				goto bad;
			r = tb_vm(w, a, b);
			break;
		case 'l':
			p += strspn(p, " \t");
			if (!strncmp(p, "dep", 3) && sim_at_end(p + 3))
				r = tb_loads(w, true);
			else if (!strncmp(p, "indep", 5) && sim_at_end(p + 5))
				r = tb_loads(w, false);
			else
				goto bad;
			break;
		default:
			goto bad;
		}
next:
		if (r) {
			snprintf(err, errlen, "%s:%lu: %s", name, lineno, w->err);
			goto out;
		}
		continue;
bad:
		line[strcspn(line, "\r\n")] = 0;
		snprintf(err, errlen, "%s:%lu: bad line \"%.60s\"", name, lineno, line);
		goto out;
	}
	if (ferror(in)) {
		snprintf(err, errlen, "%s: read error", name);
		goto out;
	}
	if (!lineno) {
		snprintf(err, errlen, "%s: empty (no \"%s\")", name, TEXT_MAGIC);
		goto out;
	}
	ret = 0;
out:
	free(line);
	return ret;
}

/* ---- Reading ----------------------------------------------------------- */

bool tb_is_binary(const unsigned char *head, size_t n)
{
	if (n >= 2 && head[0] == 0x1f && head[1] == 0x8b)
		return true;		/* gzip: binary, or a compressed text trace */
	return n >= TB_MAGIC_LEN && !memcmp(head, TB_MAGIC, TB_MAGIC_LEN);
}

struct tb_reader {
	gzFile gz;
	bool text;			/* gzip'ed text: passed through */
	bool done;			/* the end record was read */
	uint64_t records, offset;	/* records read; bytes of content read */
	unsigned int cpu;
	uint64_t page[TB_MAX_CPUS];
	char out[MAX_COMMENT + 256];	/* decoded text not yet returned */
	size_t opos, olen;
	char name[200];
	char err[480];
};

static int rfail(struct tb_reader *r, const char *fmt, ...)
{
	char what[160];
	va_list ap;

	if (r->err[0])
		return -1;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(r->err, sizeof(r->err), "%s: corrupt binary trace: record %llu (byte %llu): %s",
		 r->name, (unsigned long long)r->records + 1, (unsigned long long)r->offset, what);
	return -1;
}

/* Whether zlib has seen an error (a bad CRC, a truncated gzip stream). */
static bool rzerror(struct tb_reader *r)
{
	int errnum;

	gzerror(r->gz, &errnum);
	return errnum != Z_OK && errnum != Z_BUF_ERROR;
}

/* The reason the stream ended early: zlib's error or a plain end of file. */
static int rshort(struct tb_reader *r)
{
	int errnum;
	const char *msg = gzerror(r->gz, &errnum);

	if (errnum != Z_OK && errnum != Z_BUF_ERROR) {
		/* zlib names the file "<fd:N>": the message has its name already. */
		if (!strncmp(msg, "<fd:", 4) && strstr(msg, ": "))
			msg = strstr(msg, ": ") + 2;
		return rfail(r, "gzip: %s", msg);
	}
	return rfail(r, "truncated (no end record)");
}

static int rbyte(struct tb_reader *r, unsigned int *b)
{
	int c = gzgetc(r->gz);

	if (c < 0)
		return rshort(r);
	r->offset++;
	*b = c;
	return 0;
}

static int rvarint(struct tb_reader *r, uint64_t *v)
{
	unsigned int b = 0, shift = 0;

	*v = 0;
	do {
		if (rbyte(r, &b))
			return -1;
		if (shift == 63 && (b & 0x7e))
			return rfail(r, "number does not fit in 64 bits");
		if (shift > 63)
			return rfail(r, "number longer than 10 bytes");
		*v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	return 0;
}

static void emit(struct tb_reader *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	r->olen = vsnprintf(r->out, sizeof(r->out), fmt, ap);
	va_end(ap);
	r->opos = 0;
}

/* A page from a CPU's previous one and a zigzag delta. */
static int rpage(struct tb_reader *r, unsigned int cpu, uint64_t *page)
{
	uint64_t d;

	if (rvarint(r, &d))
		return -1;
	*page = r->page[cpu] + (uint64_t)unzigzag(d);
	if (*page >> 52)
		return rfail(r, "address beyond 64 bits");
	return 0;
}

/* Decode one record into r->out (possibly nothing).  0, or -1 on error. */
static int decode(struct tb_reader *r)
{
	uint64_t page, a, b, cpu;
	unsigned int tag, op, cf, c;

	if (rbyte(r, &tag))
		return -1;
	op = tag & 7;
	cf = tag >> 3;
	cpu = r->cpu;
	if (op <= TB_FULL) {
		if (cf == 31) {
			if (rvarint(r, &cpu))
				return -1;
		} else if (cf) {
			cpu = cf - 1;
		}
		if (cpu >= TB_MAX_CPUS)
			return rfail(r, "cpu %llu: at most %d CPUs", (unsigned long long)cpu,
				     TB_MAX_CPUS);
		r->cpu = cpu;
	} else if (cf) {
		return rfail(r, "tag 0x%02x: this operation has no CPU", tag);
	}
	switch (op) {
	case TB_READ:
	case TB_WRITE:
		if (rpage(r, cpu, &page))
			return -1;
		r->page[cpu] = page;
		emit(r, "%c %u 0x%llx\n", op == TB_READ ? 'r' : 'w', (unsigned int)cpu,
		     (unsigned long long)page << 12);
		break;
	case TB_ACCESS_OFF:
		if (rpage(r, cpu, &page) || rvarint(r, &a))
			return -1;
		if (a >> 13)
			return rfail(r, "offset 0x%llx in a page", (unsigned long long)a >> 1);
		r->page[cpu] = page;
		emit(r, "%c %u 0x%llx\n", a & 1 ? 'w' : 'r', (unsigned int)cpu,
		     (unsigned long long)(page << 12 | a >> 1));
		break;
	case TB_FLUSH:
		if (rpage(r, cpu, &page) || rvarint(r, &a) || rbyte(r, &c))
			return -1;
		emit(r, "f %u 0x%llx %llu %u\n", (unsigned int)cpu, (unsigned long long)page << 12,
		     (unsigned long long)a, c);
		break;
	case TB_FULL:
		emit(r, "F %u\n", (unsigned int)cpu);
		break;
	case TB_REGION:
		if (rvarint(r, &a) || rvarint(r, &b) || rbyte(r, &c))
			return -1;
		emit(r, "p 0x%llx 0x%llx %u\n", (unsigned long long)a, (unsigned long long)b, c);
		break;
	case TB_VM:
		if (rvarint(r, &a) || rvarint(r, &b))
			return -1;
		emit(r, "v %llu %llu\n", (unsigned long long)a, (unsigned long long)b);
		break;
	default:
		if (rbyte(r, &c))
			return -1;
		switch (c) {
		case TB_END:
			if (rvarint(r, &a))
				return -1;
			if (a != r->records)
				return rfail(r, "the end record counts %llu records, not %llu",
					     (unsigned long long)a, (unsigned long long)r->records);
			if (gzgetc(r->gz) >= 0)
				return rfail(r, "data after the end record");
			if (rzerror(r))
				return rshort(r);
			r->done = true;
			return 0;
		case TB_LOADS_DEP:
		case TB_LOADS_INDEP:
			emit(r, "l %s\n", c == TB_LOADS_DEP ? "dep" : "indep");
			break;
		case TB_COMMENT:
			if (rvarint(r, &a))
				return -1;
			if (a > MAX_COMMENT)
				return rfail(r, "comment of %llu bytes", (unsigned long long)a);
			r->out[0] = '#';
			if (gzread(r->gz, r->out + 1, a) != (int)a)
				return rshort(r);
			r->offset += a;
			if (memchr(r->out + 1, '\n', a) || memchr(r->out + 1, 0, a))
				return rfail(r, "comment with a line break or NUL");
			r->out[a + 1] = '\n';
			r->olen = a + 2;
			r->opos = 0;
			break;
		default:
			return rfail(r, "unknown extended operation %u", c);
		}
	}
	r->records++;
	return 0;
}

static ssize_t cookie_read(void *cookie, char *buf, size_t size)
{
	struct tb_reader *r = cookie;
	size_t n = 0;
	int got;

	while (n < size) {
		if (r->opos < r->olen) {
			size_t k = r->olen - r->opos;

			if (k > size - n)
				k = size - n;
			memcpy(buf + n, r->out + r->opos, k);
			r->opos += k;
			n += k;
			continue;
		}
		if (r->text) {
			got = gzread(r->gz, buf + n, size - n > INT32_MAX ? INT32_MAX : size - n);
			if (got < 0 || (!got && rzerror(r)))
				rshort(r);
			if (got > 0)
				n += got;
			break;
		}
		if (r->done || r->err[0] || decode(r))
			break;
	}
	if (!n && r->err[0])
		return -1;
	return n;
}

static int cookie_close(void *cookie)
{
	struct tb_reader *r = cookie;

	gzclose(r->gz);
	free(r);
	return 0;
}

FILE *tb_open_text(int fd, const char *name, struct tb_reader **rp, char *err, size_t errlen)
{
	cookie_io_functions_t io = { .read = cookie_read, .close = cookie_close };
	unsigned char head[TB_MAGIC_LEN + 1];
	struct tb_reader *r = calloc(1, sizeof(*r));
	FILE *f;
	int got;

	if (!r) {
		snprintf(err, errlen, "%s: out of memory", name);
		close(fd);
		return NULL;
	}
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->gz = gzdopen(fd, "rb");
	if (!r->gz) {
		snprintf(err, errlen, "%s: %s", name, strerror(errno ? errno : ENOMEM));
		close(fd);
		free(r);
		return NULL;
	}
	gzbuffer(r->gz, 1 << 17);
	got = gzread(r->gz, head, sizeof(head));
	if (got == (int)sizeof(head) && !memcmp(head, TB_MAGIC, TB_MAGIC_LEN)) {
		if (head[TB_MAGIC_LEN] != TB_VERSION) {
			snprintf(err, errlen, "%s: binary trace version %u (this tlbsim reads %u)",
				 name, head[TB_MAGIC_LEN], TB_VERSION);
			goto fail;
		}
		r->offset = sizeof(head);
		emit(r, "%s\n", TEXT_MAGIC);
	} else if (got >= 0) {
		/* Not our records: a compressed text trace, which sim_trace_read judges. */
		r->text = true;
		memcpy(r->out, head, got);
		r->olen = got;
	} else {
		rshort(r);
		snprintf(err, errlen, "%s", r->err);
		goto fail;
	}
	f = fopencookie(r, "r", io);
	if (!f) {
		snprintf(err, errlen, "%s: %s", name, strerror(errno));
		goto fail;
	}
	if (rp)
		*rp = r;
	return f;
fail:
	gzclose(r->gz);
	free(r);
	return NULL;
}

FILE *tb_fopen(const char *path, struct tb_reader **rp, char *err, size_t errlen)
{
	unsigned char head[TB_MAGIC_LEN];
	int fd = open(path, O_RDONLY);
	ssize_t got;
	FILE *f;

	*rp = NULL;
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	got = pread(fd, head, sizeof(head), 0);
	if (got > 0 && tb_is_binary(head, got))
		return tb_open_text(fd, path, rp, err, errlen);
	f = fdopen(fd, "r");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
	}
	return f;
}

const char *tb_error(const struct tb_reader *r)
{
	return r->err;
}
