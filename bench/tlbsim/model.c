// SPDX-License-Identifier: GPL-2.0
/*
 * CPU models for tlbsim: how many entries (tlbpath's own parser,
 * src/geometry.c, exactly as the module reads them) and how they are
 * organised (ways x sets, read here from the same raw CPUID leaves,
 * because struct tlbp_geometry keeps only entry counts).
 *
 * Associativity, per source:
 *  - leaf 0x18: each subleaf's ways (EBX[31:16]) and sets (ECX), fully
 *    associative when EDX bit 8 says so;
 *  - leaf 2: the SDM's descriptor text (table 3-12), below; descriptors
 *    whose text gives no associativity are taken as fully associative;
 *  - AMD 0x80000005: 0xff is fully associative, else the number of ways;
 *    0x80000006/0x80000019: the 4-bit encoding of the APM (CPUID
 *    Fn8000_0006, "L2/L3 associativity").
 * Where the parser adds several structures of one level into one count
 * (Raptor Cove's two 1024-entry 8-way STLBs make its 2048), the model is
 * one array with the largest structure's sets and the summed entries
 * (2048 entries, 128 sets, 16 ways).  A structure that holds several page
 * sizes is modelled as one array per size (exact for traces of one size).
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "tlbsim.h"

/* Ways of the leaf-2 TLB descriptors (SDM vol. 2A, table 3-12); 0: fully associative / not given. */
static const struct {
	u8 code, ways, ways2;
} leaf2_ways[] = {
	{ 0x01, 4, 0 }, { 0x02, 0, 0 }, { 0x03, 4, 0 }, { 0x04, 4, 0 }, { 0x05, 4, 0 }, { 0x0b, 4, 0 },
	{ 0x4f, 0, 0 }, { 0x50, 0, 0 }, { 0x51, 0, 0 }, { 0x52, 0, 0 }, { 0x55, 0, 0 }, { 0x56, 4, 0 },
	{ 0x57, 4, 0 }, { 0x59, 0, 0 }, { 0x5a, 4, 0 }, { 0x5b, 0, 0 }, { 0x5c, 0, 0 }, { 0x5d, 0, 0 },
	{ 0x61, 0, 0 }, { 0x63, 4, 4 }, { 0x64, 4, 0 }, { 0x6a, 8, 0 }, { 0x6b, 8, 0 }, { 0x6c, 8, 0 },
	{ 0x6d, 0, 0 }, { 0x76, 0, 0 }, { 0xa0, 0, 0 }, { 0xb0, 4, 0 }, { 0xb1, 4, 0 }, { 0xb2, 4, 0 },
	{ 0xb3, 4, 0 }, { 0xb4, 4, 0 }, { 0xb5, 8, 0 }, { 0xb6, 8, 0 }, { 0xba, 4, 0 }, { 0xc0, 4, 0 },
	{ 0xc1, 8, 0 }, { 0xc2, 4, 0 }, { 0xc3, 6, 4 }, { 0xc4, 4, 0 }, { 0xca, 4, 0 },
};

/* One structure as the raw leaves describe it. */
struct raw_tlb {
	u8 level, sizes;
	bool data, store_only;
	u32 entries, ways;	/* ways == entries: fully associative */
};

struct raw_list {
	unsigned int n;
	struct raw_tlb s[2 * TLBP_LEAF18_MAX_SUBLEAVES + 16];
};

static void add(struct raw_list *l, u8 level, bool data, u8 sizes, u32 entries, u32 ways)
{
	struct raw_tlb *t;

	if (!entries || !sizes || l->n >= sizeof(l->s) / sizeof(l->s[0]))
		return;
	t = &l->s[l->n++];
	t->level = level;
	t->data = data;
	t->store_only = false;
	t->sizes = sizes;
	t->entries = entries;
	t->ways = !ways || ways > entries || entries % ways ? entries : ways;
}

static void raw_leaf18(const struct tlbp_cpuid *c, struct raw_list *l)
{
	u32 i, n = c->leaf18_count;

	for (i = 0; i < n && i < TLBP_LEAF18_MAX_SUBLEAVES; i++) {
		const struct tlbp_regs *r = &c->leaf18[i];
		u32 type = r->edx & 0x1f, ways = r->ebx >> 16;
		u8 sizes = 0;

		if (!type || type > 5)
			continue;
		if (r->ebx & 0x1)
			sizes |= TLBP_SZ_4K;
		if (r->ebx & 0x6)
			sizes |= TLBP_SZ_2M;
		if (r->ebx & 0x8)
			sizes |= TLBP_SZ_1G;
		add(l, (r->edx >> 5) & 7, type != 2, sizes, ways * r->ecx,
		    (r->edx & 0x100) ? 0 : ways);
		if (type == 5 && l->n)
			l->s[l->n - 1].store_only = true;
	}
}

static u32 leaf2_ways_of(u8 code, bool second)
{
	unsigned int i;

	for (i = 0; i < sizeof(leaf2_ways) / sizeof(leaf2_ways[0]); i++)
		if (leaf2_ways[i].code == code)
			return second ? leaf2_ways[i].ways2 : leaf2_ways[i].ways;
	return 0;
}

static void raw_leaf2(const struct tlbp_cpuid *c, struct raw_list *l)
{
	u8 codes[TLBP_LEAF2_MAX_CODES];
	unsigned int i, n = tlbp_leaf2_codes(c, codes);

	for (i = 0; i < n; i++) {
		const struct tlbp_desc *d = tlbp_leaf2_desc(codes[i]);

		if (!d || d->kind == TLBP_KIND_INSN)
			continue;
		add(l, d->level, true, d->sizes, d->entries, leaf2_ways_of(codes[i], false));
		add(l, d->level, true, d->sizes2, d->entries2, leaf2_ways_of(codes[i], true));
	}
}

/* APM: CPUID Fn8000_0006 associativity encoding; 0: fully associative. */
static u32 amd_assoc(u32 enc)
{
	static const u32 ways[16] = { 0, 1, 2, 3, 4, 6, 8, 0, 16, 0, 32, 48, 64, 96, 128, 0 };

	return ways[enc & 0xf];
}

static u32 family(u32 eax)
{
	u32 f = (eax >> 8) & 0xf;

	return f == 0xf ? f + ((eax >> 20) & 0xff) : f;
}

static void raw_amd(const struct tlbp_cpuid *c, struct raw_list *l)
{
	u32 unit = family(c->leaf1_eax) >= 0x1a ? 32 : 1;	/* Zen 5: as geometry.c */
	u32 v;

	if (c->max_ext >= 0x80000005) {
		v = c->ext5.ebx >> 24;
		add(l, 1, true, TLBP_SZ_4K, (c->ext5.ebx >> 16) & 0xff, v == 0xff ? 0 : v);
		v = c->ext5.eax >> 24;
		add(l, 1, true, TLBP_SZ_2M, (c->ext5.eax >> 16) & 0xff, v == 0xff ? 0 : v);
	}
	if (c->max_ext >= 0x80000006) {
		if (c->ext6.ebx >> 28)
			add(l, 2, true, TLBP_SZ_4K, unit * ((c->ext6.ebx >> 16) & 0xfff),
			    amd_assoc(c->ext6.ebx >> 28));
		if (c->ext6.eax >> 28)
			add(l, 2, true, TLBP_SZ_2M, unit * ((c->ext6.eax >> 16) & 0xfff),
			    amd_assoc(c->ext6.eax >> 28));
	}
	if (c->max_ext >= 0x80000019) {
		if (c->ext19.eax >> 28)
			add(l, 1, true, TLBP_SZ_1G, (c->ext19.eax >> 16) & 0xfff,
			    amd_assoc(c->ext19.eax >> 28));
		if (c->ext19.ebx >> 28)
			add(l, 2, true, TLBP_SZ_1G, (c->ext19.ebx >> 16) & 0xfff,
			    amd_assoc(c->ext19.ebx >> 28));
	}
}

/*
 * The shape of the @entries the parser counts at one level for one size:
 * the matching structure's, or, for a sum of several, the largest one's
 * sets.  @top: the last level (l2) or below it (l1).
 */
static struct sim_shape shape_of(const struct raw_list *l, u8 top, bool want_top,
				 unsigned int size, u32 entries)
{
	struct sim_shape sh = { entries, entries };
	const struct raw_tlb *big = NULL;
	unsigned int i;

	if (!entries)
		return sh;
	for (i = 0; i < l->n; i++) {
		const struct raw_tlb *t = &l->s[i];

		if (!t->data || t->store_only || !(t->sizes & (1u << size)) ||
		    (t->level == top) != want_top || t->entries > entries)
			continue;
		if (t->entries == entries) {
			sh.ways = t->ways;
			return sh;
		}
		if (!big || t->entries > big->entries)
			big = t;
	}
	if (big) {
		u32 sets = big->entries / big->ways;

		if (entries % sets == 0)
			sh.ways = entries / sets;
	}
	return sh;
}

void sim_model_from_cpuid(struct sim_cpu_model *m, const struct tlbp_cpuid *c)
{
	struct raw_list l = { 0 };
	unsigned int s, i;
	u8 top = 0, low = 0xff;

	m->walkers = 1;
	tlbp_parse_geometry(c, &m->geo);
	switch (m->geo.source) {
	case TLBP_SRC_LEAF18:
		raw_leaf18(c, &l);
		break;
	case TLBP_SRC_LEAF2:
		raw_leaf2(c, &l);
		break;
	case TLBP_SRC_AMD:
		raw_amd(c, &l);
		break;
	default:
		break;
	}
	for (i = 0; i < l.n; i++) {
		if (!l.s[i].data || l.s[i].store_only)
			continue;
		if (l.s[i].level > top)
			top = l.s[i].level;
		if (l.s[i].level < low)
			low = l.s[i].level;
	}
	for (s = 0; s < TLBP_NR_SIZES; s++) {
		m->l1[s] = shape_of(&l, top, low == top, s, m->geo.l1d[s]);
		m->l2[s] = shape_of(&l, top, true, s, m->geo.l2[s]);
	}
}

/* ---- Reading CPUID: a `cpuid -r` dump, or this machine ------------------ */

struct dump {
	size_t n;
	struct {
		u32 leaf, sub;
		struct tlbp_regs r;
	} e[4096];
};

static void dump_read_leaf(void *ctx, u32 leaf, u32 sub, struct tlbp_regs *out)
{
	const struct dump *d = ctx;
	size_t i;

	for (i = 0; i < d->n; i++)
		if (d->e[i].leaf == leaf && d->e[i].sub == sub) {
			*out = d->e[i].r;
			return;
		}
	memset(out, 0, sizeof(*out));
}

/* CPU @want (-1: the first) of the dump at @path, as tools/tlbpath-geometry reads it. */
static int load_dump(const char *path, int want, struct tlbp_cpuid *c, char *err, size_t errlen)
{
	static struct dump d;
	FILE *f = fopen(path, "r");
	char line[512];
	int cpu = -1, cpus = 0, found = 0;

	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	d.n = 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned int leaf, sub, a, b, cc, dd;
		int next;

		if (!strncmp(line + strspn(line, " "), "CPU:", 4))
			next = cpus;
		else if (sscanf(line, " CPU %d:", &next) != 1)
			next = -1;
		if (next >= 0) {
			if (found)
				break;
			cpu = next;
			cpus++;
			found = want < 0 || cpu == want;
			continue;
		}
		if (!found || sscanf(line, " 0x%x 0x%x: eax=0x%x ebx=0x%x ecx=0x%x edx=0x%x",
				     &leaf, &sub, &a, &b, &cc, &dd) != 6 ||
		    d.n == sizeof(d.e) / sizeof(d.e[0]))
			continue;
		d.e[d.n].leaf = leaf;
		d.e[d.n].sub = sub;
		d.e[d.n].r = (struct tlbp_regs){ a, b, cc, dd };
		d.n++;
	}
	fclose(f);
	if (!found || !d.n) {
		snprintf(err, errlen, "%s: no CPU %d in this dump", path, want < 0 ? 0 : want);
		return -1;
	}
	tlbp_cpuid_fill(c, dump_read_leaf, &d);
	return 0;
}

static void insn_read_leaf(void *ctx, u32 leaf, u32 sub, struct tlbp_regs *r)
{
	(void)ctx;
	__cpuid_count(leaf, sub, r->eax, r->ebx, r->ecx, r->edx);
}

static int load_live(int cpu, struct tlbp_cpuid *c, char *err, size_t errlen)
{
	cpu_set_t old, one;

	if (cpu < 0)
		cpu = 0;
	if (sched_getaffinity(0, sizeof(old), &old))
		return snprintf(err, errlen, "sched_getaffinity: %s", strerror(errno)), -1;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		return snprintf(err, errlen, "cpu %d: %s", cpu, strerror(errno)), -1;
	tlbp_cpuid_fill(c, insn_read_leaf, NULL);
	sched_setaffinity(0, sizeof(old), &old);
	return 0;
}

static const char *const keys[2][TLBP_NR_SIZES] = {
	{ "l1d_4k", "l1d_2m", "l1d_1g" }, { "l2_4k", "l2_2m", "l2_1g" },
};

/* geom:l1d_4k=64/4,l2_4k=1536/6,... */
static int parse_geom(struct sim_cpu_model *m, const char *spec, char *err, size_t errlen)
{
	char buf[256], *tok, *save = NULL;

	memset(&m->geo, 0, sizeof(m->geo));
	m->geo.source = TLBP_SRC_NONE;
	snprintf(buf, sizeof(buf), "%.255s", spec);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned long e, w = 0;
		char *eq = strchr(tok, '='), *end;
		unsigned int lv, s;
		bool ok = false;

		if (!eq)
			goto bad;
		*eq = 0;
		e = strtoul(eq + 1, &end, 10);
		if (!strcmp(tok, "walkers")) {
			if (*end || !e || e > SIM_MAX_WALKERS)
				goto bad;
			m->walkers = e;
			continue;
		}
		if (*end == '/')
			w = strtoul(end + 1, &end, 10);
		if (*end || e > 65536 || (w && (w > e || e % w)))
			goto bad;
		for (lv = 0; lv < 2; lv++)
			for (s = 0; s < TLBP_NR_SIZES; s++)
				if (!strcmp(tok, keys[lv][s])) {
					struct sim_shape *sh = lv ? &m->l2[s] : &m->l1[s];

					sh->entries = e;
					sh->ways = w ? w : e;
					if (lv)
						m->geo.l2[s] = e;
					else
						m->geo.l1d[s] = e;
					ok = true;
				}
		if (!ok)
			goto bad;
		m->geo.source = TLBP_SRC_LEAF18;	/* "reported" */
		continue;
bad:
		snprintf(err, errlen, "geom: bad \"%s\" (KEY=ENTRIES[/WAYS], KEY l1d_4k, l2_4k, l1d_2m, l2_2m, l1d_1g, l2_1g; walkers=N)",
			 tok);
		return -1;
	}
	return 0;
}

int sim_model_parse(struct sim_cpu_model *m, const char *spec, char *err, size_t errlen)
{
	char buf[512], *hash, *at, *pct, *base;
	struct tlbp_cpuid c;
	unsigned long walkers = 1;
	int cpu = -1;

	memset(m, 0, sizeof(*m));
	snprintf(buf, sizeof(buf), "%s", spec);
	hash = strchr(buf, '#');
	if (hash)
		*hash++ = 0;
	if (!strncmp(buf, "geom:", 5)) {
		m->walkers = 1;
		if (parse_geom(m, buf + 5, err, errlen))
			return -1;
		snprintf(m->label, sizeof(m->label), "%.95s", hash ? hash : buf);
		return 0;
	}
	pct = strrchr(buf, '%');
	if (pct) {
		char *end;

		*pct = 0;
		walkers = strtoul(pct + 1, &end, 10);
		if (*end || !walkers || walkers > SIM_MAX_WALKERS) {
			snprintf(err, errlen, "%s: bad number of page walkers \"%s\" (1-%d)", spec,
				 pct + 1, SIM_MAX_WALKERS);
			return -1;
		}
	}
	at = strrchr(buf, '@');
	if (at) {
		char *end;

		*at = 0;
		cpu = strtol(at + 1, &end, 10);
		if (*end || cpu < 0) {
			snprintf(err, errlen, "%s: bad CPU number \"%s\"", spec, at + 1);
			return -1;
		}
	}
	if (!strcmp(buf, "live")) {
		if (load_live(cpu, &c, err, errlen))
			return -1;
	} else if (load_dump(buf, cpu, &c, err, errlen)) {
		return -1;
	}
	sim_model_from_cpuid(m, &c);
	m->walkers = walkers;
	if (hash) {
		snprintf(m->label, sizeof(m->label), "%.95s", hash);
	} else {
		base = strrchr(buf, '/');
		base = base ? base + 1 : buf;
		base[strcspn(base, ".")] = 0;
		snprintf(m->label, sizeof(m->label), "%.80s@%d", base, cpu < 0 ? 0 : cpu);
	}
	if (!m->geo.l1d[TLBP_4K] && !m->geo.l2[TLBP_4K]) {
		snprintf(err, errlen, "%s: no 4K data TLB known (source %s)", spec,
			 tlbp_geo_source_name(m->geo.source));
		return -1;
	}
	return 0;
}

void sim_model_print(FILE *f, const struct sim_cpu_model *m)
{
	unsigned int lv, s;

	fprintf(f, "%s source=%s walkers=%u", m->label, tlbp_geo_source_name(m->geo.source),
		m->walkers);
	for (lv = 0; lv < 2; lv++)
		for (s = 0; s < TLBP_NR_SIZES; s++) {
			const struct sim_shape *sh = lv ? &m->l2[s] : &m->l1[s];

			if (!sh->entries)
				continue;
			fprintf(f, " %s=%u/%u", keys[lv][s], sh->entries, sh->ways);
		}
	fprintf(f, "\n");
}
