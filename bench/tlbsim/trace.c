// SPDX-License-Identifier: GPL-2.0
/*
 * tlbsim traces: one event a line (README.md, "Trace format").
 *
 *   # tlbsim trace 1              first line
 *   r CPU ADDR                    a load
 *   w CPU ADDR                    a store
 *   f CPU START ENTRIES SHIFT     flush_tlb_mm_range(mm, START,
 *                                 START + (ENTRIES << SHIFT), SHIFT)
 *   F CPU                         a flush of everything the caller asked for
 *   p START LEN SHIFT             [START, START+LEN) is mapped with 2^SHIFT pages
 *   v TOTAL_VM RSS                the mm's size and resident pages from now on
 *   l dep | l indep               the accesses from now on depend on the load
 *                                 before them, or do not
 *
 * ADDR, START and LEN are hexadecimal (0x optional), the rest decimal;
 * '#' starts a comment line.  Without 'v' lines, the pages touched so far
 * stand for both total_vm and rss; without 'l' lines, every access is
 * dependent (how traces replayed before 'l' existed).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tlbsim.h"
#include "tracebin.h"

#define MAGIC	"# tlbsim trace 1"

struct region {
	uint64_t start, end;
	unsigned int shift;
};

/* A set of page numbers (open addressing): the footprint without 'v'. */
struct pageset {
	uint64_t *slot;		/* page + 1; 0: empty */
	size_t size, used;
};

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

static int pageset_add(struct pageset *s, uint64_t page)
{
	size_t i;

	if (2 * (s->used + 1) > s->size) {
		struct pageset n = { .size = s->size ? 2 * s->size : 4096 };

		n.slot = calloc(n.size, sizeof(*n.slot));
		if (!n.slot)
			return -1;
		for (i = 0; i < s->size; i++)
			if (s->slot[i])
				pageset_add(&n, s->slot[i] - 1);
		free(s->slot);
		*s = n;
	}
	for (i = mix(page) & (s->size - 1); s->slot[i]; i = (i + 1) & (s->size - 1))
		if (s->slot[i] == page + 1)
			return 0;
	s->slot[i] = page + 1;
	s->used++;
	return 0;
}

static void fail(char *err, size_t errlen, const char *name, unsigned long line,
		 const char *fmt, ...)
{
	char what[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (line)
		snprintf(err, errlen, "%s:%lu: %s", name, line, what);
	else
		snprintf(err, errlen, "%s: %s", name, what);
}

static int push(struct sim_trace *t, const struct sim_event *e)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 65536;
		struct sim_event *ev = realloc(t->ev, cap * sizeof(*ev));

		if (!ev)
			return -1;
		t->ev = ev;
		t->cap = cap;
	}
	t->ev[t->n++] = *e;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The distinct flush sizes, ascending. */
static int collect_sizes(struct sim_trace *t)
{
	size_t i, n = 0;

	t->sizes = malloc((t->flushes ? t->flushes : 1) * sizeof(*t->sizes));
	if (!t->sizes)
		return -1;
	for (i = 0; i < t->n; i++)
		if (t->ev[i].type == EV_FLUSH)
			t->sizes[n++] = t->ev[i].entries;
	qsort(t->sizes, n, sizeof(*t->sizes), cmp_u64);
	t->nsizes = 0;
	for (i = 0; i < n; i++)
		if (!t->nsizes || t->sizes[t->nsizes - 1] != t->sizes[i])
			t->sizes[t->nsizes++] = t->sizes[i];
	return 0;
}

int sim_trace_read(struct sim_trace *t, FILE *f, const char *name,
		   char *err, size_t errlen)
{
	struct region *reg = NULL;
	size_t nreg = 0, linecap = 0;
	struct pageset seen = { 0 };
	uint64_t total_vm = 0, rss = 0;
	unsigned long lineno = 0;
	bool dep = true;
	char *line = NULL;
	int ret = -1;

	memset(t, 0, sizeof(*t));
	while (getline(&line, &linecap, f) > 0) {
		struct sim_event e = { 0 };
		uint64_t cpu = 0, a, b, c;
		char *p = line + 1;
		size_t i;

		lineno++;
		if (lineno == 1) {
			if (strncmp(line, MAGIC, strlen(MAGIC))) {
				fail(err, errlen, name, 1, "not a tlbsim trace (no \"%s\")", MAGIC);
				goto out;
			}
			continue;
		}
		if (line[0] == '#' || sim_at_end(line))
			continue;
		if (line[1] != ' ' && line[1] != '\t')
			goto bad;
		switch (line[0]) {
		case 'r':
		case 'w':
			if (!sim_field(&p, 10, &cpu) || !sim_field(&p, 16, &a) || !sim_at_end(p))
				goto bad;
			e.type = line[0] == 'r' ? EV_READ : EV_WRITE;
			e.addr = a;
			e.shift = 12;
			e.dep = dep;
			t->dep_accesses += dep;
			for (i = nreg; i-- > 0; )
				if (a >= reg[i].start && a < reg[i].end) {
					e.shift = reg[i].shift;
					break;
				}
			if (!t->has_vm && pageset_add(&seen, a >> 12))
				goto nomem;
			t->accesses++;
			break;
		case 'f':
			if (!sim_field(&p, 10, &cpu) || !sim_field(&p, 16, &a) ||
			    !sim_field(&p, 10, &b) || !sim_field(&p, 10, &c) || !sim_at_end(p))
				goto bad;
			if (c < 12 || c > 30 || !b || b > (1ull << 36) || (a & ((1ull << c) - 1))) {
				fail(err, errlen, name, lineno,
				     "flush: need 1 <= entries <= 2^36, 12 <= shift <= 30, start aligned");
				goto out;
			}
			e.type = EV_FLUSH;
			e.addr = a;
			e.entries = b;
			e.shift = c;
			t->flushes++;
			break;
		case 'F':
			if (!sim_field(&p, 10, &cpu) || !sim_at_end(p))
				goto bad;
			e.type = EV_FULL;
			t->full_flushes++;
			break;
		case 'p':
			if (!sim_field(&p, 16, &a) || !sim_field(&p, 16, &b) ||
			    !sim_field(&p, 10, &c) || !sim_at_end(p))
				goto bad;
			if (c != 12 && c != 21 && c != 30) {
				fail(err, errlen, name, lineno, "page shift must be 12, 21 or 30");
				goto out;
			}
			reg = realloc(reg, (nreg + 1) * sizeof(*reg));
			if (!reg)
				goto nomem;
			reg[nreg].start = a;
			reg[nreg].end = a + b;
			reg[nreg++].shift = c;
			continue;
		case 'l':
			p += strspn(p, " \t");
			if (!strncmp(p, "indep", 5) && sim_at_end(p + 5))
				dep = false;
			else if (!strncmp(p, "dep", 3) && sim_at_end(p + 3))
				dep = true;
			else
				goto bad;
			t->has_loads = true;
			continue;
		case 'v':
			if (!sim_field(&p, 10, &a) || !sim_field(&p, 10, &b) || !sim_at_end(p))
				goto bad;
			t->has_vm = true;
			total_vm = a;
			rss = b;
			continue;
		default:
			goto bad;
		}
		if (cpu >= SIM_MAX_CPUS) {
			fail(err, errlen, name, lineno, "cpu %llu: at most %d CPUs",
			     (unsigned long long)cpu, SIM_MAX_CPUS);
			goto out;
		}
		e.cpu = cpu;
		if (cpu + 1 > t->ncpus)
			t->ncpus = cpu + 1;
		if (e.type == EV_FLUSH || e.type == EV_FULL) {
			e.total_vm = t->has_vm ? total_vm : seen.used;
			e.rss = t->has_vm ? rss : seen.used;
		}
		if (push(t, &e))
			goto nomem;
		continue;
bad:
		line[strcspn(line, "\r\n")] = 0;
		fail(err, errlen, name, lineno, "bad line \"%.60s\"", line);
		goto out;
	}
	if (ferror(f)) {
		fail(err, errlen, name, 0, "read error");
		goto out;
	}
	if (!lineno) {
		fail(err, errlen, name, 0, "empty (no \"%s\")", MAGIC);
		goto out;
	}
	if (collect_sizes(t))
		goto nomem;
	ret = 0;
	goto out;
nomem:
	fail(err, errlen, name, lineno, "out of memory");
out:
	free(line);
	free(reg);
	free(seen.slot);
	if (ret)
		sim_trace_free(t);
	return ret;
}

int sim_trace_load(struct sim_trace *t, const char *path, char *err, size_t errlen)
{
	/* Binary and gzip'ed traces come as their text (tracebin.c). */
	struct tb_reader *tb = NULL;
	FILE *f = strcmp(path, "-") ? tb_fopen(path, &tb, err, errlen) : stdin;
	int ret;

	if (!f)
		return -1;
	ret = sim_trace_read(t, f, path, err, errlen);
	if (ret && tb && tb_error(tb)[0])
		snprintf(err, errlen, "%s", tb_error(tb));
	if (f != stdin)
		fclose(f);
	return ret;
}

int sim_trace_from_string(struct sim_trace *t, const char *text, char *err, size_t errlen)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret;

	if (!f) {
		snprintf(err, errlen, "fmemopen: %s", strerror(errno));
		return -1;
	}
	ret = sim_trace_read(t, f, "(string)", err, errlen);
	fclose(f);
	return ret;
}

void sim_trace_set_loads(struct sim_trace *t, enum sim_loads loads)
{
	size_t i;

	if (loads == SIM_LOADS_TRACE)
		return;
	t->dep_accesses = 0;
	for (i = 0; i < t->n; i++) {
		struct sim_event *e = &t->ev[i];

		if (e->type != EV_READ && e->type != EV_WRITE)
			continue;
		e->dep = loads == SIM_LOADS_DEP;
		t->dep_accesses += e->dep;
	}
}

static const char *const loads_names[] = {
	[SIM_LOADS_TRACE] = "trace",
	[SIM_LOADS_DEP] = "dep",
	[SIM_LOADS_INDEP] = "indep",
};

int sim_loads_parse(const char *s, enum sim_loads *loads)
{
	unsigned int i;

	for (i = 0; i < sizeof(loads_names) / sizeof(loads_names[0]); i++)
		if (!strcmp(s, loads_names[i])) {
			*loads = i;
			return 0;
		}
	return -1;
}

const char *sim_loads_name(enum sim_loads loads)
{
	return loads <= SIM_LOADS_INDEP ? loads_names[loads] : "?";
}

int sim_trace_repeat(struct sim_trace *t, unsigned int times)
{
	if (times < 2)
		return 0;
	if (t->runs > 1 || t->n > SIZE_MAX / times || t->accesses > UINT64_MAX / times)
		return -1;
	t->runs = times;
	t->accesses *= times;
	t->flushes *= times;
	t->full_flushes *= times;
	t->dep_accesses *= times;
	return 0;
}

void sim_trace_free(struct sim_trace *t)
{
	free(t->ev);
	free(t->sizes);
	memset(t, 0, sizeof(*t));
}
