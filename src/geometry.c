// SPDX-License-Identifier: GPL-2.0
/*
 * TLB geometry from raw CPUID values.  Pure C: no kernel headers, so the
 * same file builds into the module and into the user-space tests.
 *
 * Sources, in the order the hardware prefers them:
 *  - Intel leaf 0x18 (deterministic address translation parameters): one
 *    subleaf per TLB structure, with level, type, page sizes, ways x sets.
 *  - Intel leaf 2: one byte per structure, looked up in the SDM's
 *    descriptor table.  Descriptor 0xfe says "see leaf 0x18" instead.
 *  - AMD (and Hygon) 0x80000005 (L1), 0x80000006 (L2), 0x80000019 (1G).
 */
#include "tlbpath/geometry.h"

#define ARRAY_LEN(a)	(sizeof(a) / sizeof((a)[0]))

enum tlbp_vendor tlbp_vendor_from_leaf0(u32 ebx, u32 ecx, u32 edx)
{
	/* "GenuineIntel", "AuthenticAMD", "HygonGenuine" as EBX, EDX, ECX */
	if (ebx == 0x756e6547 && edx == 0x49656e69 && ecx == 0x6c65746e)
		return TLBP_VENDOR_INTEL;
	if (ebx == 0x68747541 && edx == 0x69746e65 && ecx == 0x444d4163)
		return TLBP_VENDOR_AMD;
	if (ebx == 0x6f677948 && edx == 0x6e65476e && ecx == 0x656e6975)
		return TLBP_VENDOR_AMD;
	return TLBP_VENDOR_OTHER;
}

void tlbp_cpuid_fill(struct tlbp_cpuid *c, tlbp_cpuid_fn read, void *ctx)
{
	static const struct tlbp_cpuid empty;
	struct tlbp_regs r;
	u32 i, n;

	*c = empty;
	read(ctx, 0, 0, &r);
	c->max_basic = r.eax;
	c->vendor = tlbp_vendor_from_leaf0(r.ebx, r.ecx, r.edx);
	if (c->max_basic >= 1) {
		read(ctx, 1, 0, &r);
		c->leaf1_eax = r.eax;
		c->leaf1_ecx = r.ecx;
	}
	if (c->max_basic >= 2)
		read(ctx, 2, 0, &c->leaf2);
	if (c->max_basic >= 0x18) {
		read(ctx, 0x18, 0, &c->leaf18[0]);
		n = c->leaf18[0].eax + 1;
		if (n > TLBP_LEAF18_MAX_SUBLEAVES || !n)
			n = TLBP_LEAF18_MAX_SUBLEAVES;
		for (i = 1; i < n; i++)
			read(ctx, 0x18, i, &c->leaf18[i]);
		c->leaf18_count = n;
	}

	read(ctx, 0x80000000, 0, &r);
	/* CPUs without extended leaves echo something else back. */
	if ((r.eax & 0xffff0000) != 0x80000000)
		return;
	c->max_ext = r.eax;
	if (c->max_ext >= 0x80000005)
		read(ctx, 0x80000005, 0, &c->ext5);
	if (c->max_ext >= 0x80000006)
		read(ctx, 0x80000006, 0, &c->ext6);
	if (c->max_ext >= 0x80000019)
		read(ctx, 0x80000019, 0, &c->ext19);
}

bool tlbp_geometry_equal(const struct tlbp_geometry *a,
			 const struct tlbp_geometry *b)
{
	unsigned int s;

	for (s = 0; s < TLBP_NR_SIZES; s++)
		if (a->l1d[s] != b->l1d[s] || a->l1i[s] != b->l1i[s] ||
		    a->l2[s] != b->l2[s])
			return false;
	return a->source == b->source && a->hypervisor == b->hypervisor;
}

const char *tlbp_geo_source_name(enum tlbp_geo_source src)
{
	switch (src) {
	case TLBP_SRC_LEAF2:
		return "leaf2";
	case TLBP_SRC_LEAF18:
		return "leaf18";
	case TLBP_SRC_AMD:
		return "amd";
	default:
		return "none";
	}
}

#define D(c, k, l, s, n)		{ c, TLBP_KIND_##k, l, s, n, 0, 0 }
#define D2(c, k, l, s, n, s2, n2)	{ c, TLBP_KIND_##k, l, s, n, s2, n2 }
#define S4K	TLBP_SZ_4K
#define S2M	TLBP_SZ_2M
#define S1G	TLBP_SZ_1G

/*
 * The TLB descriptors of CPUID leaf 2 (Intel SDM vol. 2A, table 3-12).
 * 4M-page structures are counted as large-page (2M) entries: in long mode
 * they hold the 2M translations.  Levels: 0 for the small load-only
 * "DTLB0"/"uTLB" that sits in front of the main DTLB (Core 2, Atom,
 * Silvermont; Goldmont Plus's leaf 0x18 shows the same 32-entry uTLB that
 * 0xa0 describes at level 1 under a 512-entry level 2), 1 for first-level
 * TLBs, 2 for the shared second-level TLB.  For 0xb1 the SDM gives
 * "2M pages, 8 entries or 4M pages, 4 entries": the 2M figure is used;
 * 0xc2 holds 4K and 2M pages as the SDM says (Linux reads it as 2M only).
 */
static const struct tlbp_desc leaf2_table[] = {
	D(0x01, INSN, 1, S4K, 32),
	D(0x02, INSN, 1, S2M, 2),
	D(0x03, DATA, 1, S4K, 64),
	D(0x04, DATA, 1, S2M, 8),
	D(0x05, DATA, 1, S2M, 32),
	D(0x0b, INSN, 1, S2M, 4),
	D(0x4f, INSN, 1, S4K, 32),
	D(0x50, INSN, 1, S4K | S2M, 64),
	D(0x51, INSN, 1, S4K | S2M, 128),
	D(0x52, INSN, 1, S4K | S2M, 256),
	D(0x55, INSN, 1, S2M, 7),
	D(0x56, DATA, 0, S2M, 16),
	D(0x57, DATA, 0, S4K, 16),
	D(0x59, DATA, 0, S4K, 16),
	D(0x5a, DATA, 1, S2M, 32),
	D(0x5b, DATA, 1, S4K | S2M, 64),
	D(0x5c, DATA, 1, S4K | S2M, 128),
	D(0x5d, DATA, 1, S4K | S2M, 256),
	D(0x61, INSN, 1, S4K, 48),
	D2(0x63, DATA, 1, S2M, 32, S1G, 4),
	D(0x64, DATA, 1, S4K, 512),
	D(0x6a, DATA, 0, S4K, 64),
	D(0x6b, DATA, 1, S4K, 256),
	D(0x6c, DATA, 1, S2M, 128),
	D(0x6d, DATA, 1, S1G, 16),
	D(0x76, INSN, 1, S2M, 8),
	D(0xa0, DATA, 0, S4K, 32),	/* Silvermont/Goldmont uTLB */
	D(0xb0, INSN, 1, S4K, 128),
	D(0xb1, INSN, 1, S2M, 8),
	D(0xb2, INSN, 1, S4K, 64),
	D(0xb3, DATA, 1, S4K, 128),
	D(0xb4, DATA, 1, S4K, 256),
	D(0xb5, INSN, 1, S4K, 64),
	D(0xb6, INSN, 1, S4K, 128),
	D(0xba, DATA, 1, S4K, 64),
	D(0xc0, DATA, 1, S4K | S2M, 8),
	D(0xc1, SHARED, 2, S4K | S2M, 1024),
	D(0xc2, DATA, 1, S4K | S2M, 16),
	D2(0xc3, SHARED, 2, S4K | S2M, 1536, S1G, 16),
	D(0xc4, DATA, 1, S2M, 32),
	D(0xca, SHARED, 2, S4K, 512),
};

const struct tlbp_desc *tlbp_leaf2_desc(u8 code)
{
	unsigned int i;

	for (i = 0; i < ARRAY_LEN(leaf2_table); i++)
		if (leaf2_table[i].code == code)
			return &leaf2_table[i];
	return NULL;
}

/*
 * One TLB structure, whatever leaf described it.  Reducing every source
 * to a list of these keeps the level arithmetic in one place.
 */
struct tlb_struct {
	u8 level;
	bool data, insn, store_only;
	u8 sizes;
	u32 entries;
};

#define MAX_STRUCTS	(2 * TLBP_LEAF18_MAX_SUBLEAVES)

struct tlb_list {
	unsigned int n;
	struct tlb_struct s[MAX_STRUCTS];
};

static struct tlb_struct *add_struct(struct tlb_list *l, u8 level, bool data,
				     bool insn, u8 sizes, u32 entries)
{
	struct tlb_struct *t;

	if (!entries || !sizes || l->n >= MAX_STRUCTS)
		return NULL;
	t = &l->s[l->n++];
	t->level = level;
	t->data = data;
	t->insn = insn;
	t->store_only = false;
	t->sizes = sizes;
	t->entries = entries;
	return t;
}

unsigned int tlbp_leaf2_codes(const struct tlbp_cpuid *c,
			      u8 codes[TLBP_LEAF2_MAX_CODES])
{
	const u32 regs[4] = { c->leaf2.eax, c->leaf2.ebx,
			      c->leaf2.ecx, c->leaf2.edx };
	unsigned int r, b, n = 0;

	for (r = 0; r < 4; r++) {
		/* Bit 31 set: this register holds no descriptors. */
		if (regs[r] & 0x80000000u)
			continue;
		/* The low byte of EAX is the iteration count, not a descriptor. */
		for (b = (r == 0); b < 4; b++) {
			u8 code = (regs[r] >> (8 * b)) & 0xff;

			if (code)
				codes[n++] = code;
		}
	}
	return n;
}

/*
 * Descriptor 0xfe ("use leaf 0x18") and the cache descriptors have no
 * table entry, so they add nothing here.
 */
static void collect_leaf2(const struct tlbp_cpuid *c, struct tlb_list *l)
{
	u8 codes[TLBP_LEAF2_MAX_CODES];
	unsigned int i, n = tlbp_leaf2_codes(c, codes);

	for (i = 0; i < n; i++) {
		const struct tlbp_desc *d = tlbp_leaf2_desc(codes[i]);
		bool data, insn;

		if (!d)
			continue;
		data = d->kind != TLBP_KIND_INSN;
		insn = d->kind != TLBP_KIND_DATA;
		add_struct(l, d->level, data, insn, d->sizes, d->entries);
		add_struct(l, d->level, data, insn, d->sizes2, d->entries2);
	}
}

/* Leaf 0x18 EDX[4:0] */
enum {
	L18_NULL, L18_DATA, L18_INSN, L18_UNIFIED, L18_LOAD, L18_STORE,
};

static void collect_leaf18(const struct tlbp_cpuid *c, struct tlb_list *l)
{
	u32 n = c->leaf18_count, i;

	if (n > TLBP_LEAF18_MAX_SUBLEAVES)
		n = TLBP_LEAF18_MAX_SUBLEAVES;
	for (i = 0; i < n; i++) {
		const struct tlbp_regs *r = &c->leaf18[i];
		u32 type = r->edx & 0x1f;
		u8 level = (r->edx >> 5) & 0x7;
		u32 ways = r->ebx >> 16;
		struct tlb_struct *t;
		u8 sizes = 0;

		if (type == L18_NULL || type > L18_STORE)
			continue;
		if (r->ebx & 0x1)
			sizes |= TLBP_SZ_4K;
		if (r->ebx & 0x6)	/* 2M or 4M */
			sizes |= TLBP_SZ_2M;
		if (r->ebx & 0x8)
			sizes |= TLBP_SZ_1G;
		t = add_struct(l, level, type != L18_INSN,
			       type == L18_INSN || type == L18_UNIFIED,
			       sizes, ways * r->ecx);
		if (t && type == L18_STORE)
			t->store_only = true;
	}
}

/* AMD's TLB fields: 8-bit entries in 0x80000005, 12-bit elsewhere. */
static u32 amd_l1(u32 reg, unsigned int shift)
{
	return (reg >> shift) & 0xff;
}

/* An associativity of 0 means the structure is absent or disabled. */
static u32 amd_l2(u32 reg, unsigned int shift)
{
	if (!((reg >> (shift + 12)) & 0xf))
		return 0;
	return (reg >> shift) & 0xfff;
}

static u32 family(u32 leaf1_eax)
{
	u32 f = (leaf1_eax >> 8) & 0xf;

	return f == 0xf ? f + ((leaf1_eax >> 20) & 0xff) : f;
}

static void collect_amd(const struct tlbp_cpuid *c, struct tlb_list *l)
{
	/*
	 * Family 1Ah (Zen 5) reports its L2 TLBs in 0x80000006 in units of
	 * 32 entries: the raw 128 (data) and 64 (instructions) are AMD's
	 * published 4096 and 2048, and no 12-bit field could hold 4096.
	 * Linux fixed its own report the same way ("x86/CPU/AMD: Fix Zen5
	 * TLB sizes reporting").  Whether the 1G field of 0x80000019 is
	 * scaled too is not known here, so it is read as it is.
	 */
	u32 l2_unit = family(c->leaf1_eax) >= 0x1a ? 32 : 1;

	if (c->max_ext >= 0x80000005) {
		add_struct(l, 1, true, false, TLBP_SZ_4K, amd_l1(c->ext5.ebx, 16));
		add_struct(l, 1, false, true, TLBP_SZ_4K, amd_l1(c->ext5.ebx, 0));
		add_struct(l, 1, true, false, TLBP_SZ_2M, amd_l1(c->ext5.eax, 16));
		add_struct(l, 1, false, true, TLBP_SZ_2M, amd_l1(c->ext5.eax, 0));
	}
	if (c->max_ext >= 0x80000006) {
		add_struct(l, 2, true, false, TLBP_SZ_4K, l2_unit * amd_l2(c->ext6.ebx, 16));
		add_struct(l, 2, false, true, TLBP_SZ_4K, l2_unit * amd_l2(c->ext6.ebx, 0));
		add_struct(l, 2, true, false, TLBP_SZ_2M, l2_unit * amd_l2(c->ext6.eax, 16));
		add_struct(l, 2, false, true, TLBP_SZ_2M, l2_unit * amd_l2(c->ext6.eax, 0));
	}
	if (c->max_ext >= 0x80000019) {
		add_struct(l, 1, true, false, TLBP_SZ_1G, amd_l2(c->ext19.eax, 16));
		add_struct(l, 1, false, true, TLBP_SZ_1G, amd_l2(c->ext19.eax, 0));
		add_struct(l, 2, true, false, TLBP_SZ_1G, amd_l2(c->ext19.ebx, 16));
		add_struct(l, 2, false, true, TLBP_SZ_1G, amd_l2(c->ext19.ebx, 0));
	}
}

#define NO_LEVEL	0xff

/*
 * Fold the structures into first and last level per page size.
 *
 * The data levels span [low, top] over all page sizes.  When there is more
 * than one, the data structures at the top one are the last-level TLB (l2)
 * and are left out of l1.
 * l1d is then the lowest level that holds data translations of that size,
 * counting load TLBs but never store-only ones; l1i likewise for
 * instructions.  Several structures at the chosen level add up.
 */
static void fold(const struct tlb_list *l, struct tlbp_geometry *g)
{
	u8 low = NO_LEVEL, top = 0, ilow = NO_LEVEL;
	unsigned int i, s;

	for (i = 0; i < l->n; i++) {
		const struct tlb_struct *t = &l->s[i];

		if (!t->data || t->store_only)
			continue;
		if (t->level < low)
			low = t->level;
		if (t->level > top)
			top = t->level;
	}
	/*
	 * The first instruction level, over all page sizes: a CPU with no
	 * first-level ITLB for some size (Bobcat has none for 4K) must show
	 * 0 there, not its second-level ITLB.  A unified last level is not
	 * an instruction TLB of the first level.
	 */
	for (i = 0; i < l->n; i++) {
		const struct tlb_struct *t = &l->s[i];

		if (t->insn && !(t->data && top > low && t->level == top) &&
		    t->level < ilow)
			ilow = t->level;
	}

	for (s = 0; s < TLBP_NR_SIZES; s++) {
		u8 l1d = NO_LEVEL, l1i = NO_LEVEL;

		for (i = 0; i < l->n; i++) {
			const struct tlb_struct *t = &l->s[i];

			if (!(t->sizes & (1u << s)) || t->store_only ||
			    (top > low && t->level == top && t->data))
				continue;
			if (t->data && t->level < l1d)
				l1d = t->level;
			if (t->insn && t->level == ilow)
				l1i = t->level;
		}

		for (i = 0; i < l->n; i++) {
			const struct tlb_struct *t = &l->s[i];

			if (!(t->sizes & (1u << s)) || t->store_only)
				continue;
			if (top > low && t->level == top && t->data) {
				g->l2[s] += t->entries;
				continue;
			}
			if (t->data && t->level == l1d)
				g->l1d[s] += t->entries;
			if (t->insn && t->level == l1i)
				g->l1i[s] += t->entries;
		}
	}
}

/*
 * Every real TLB in 349 dumps from the 1990s to 2026 has a multiple of 8
 * entries at its first and last data level, and the last is the larger.
 * A hypervisor may report anything (QEMU's TCG reports a 255-entry L1
 * whatever the host has); numbers that break these rules describe no
 * hardware and are dropped.
 */
static bool plausible(const struct tlbp_geometry *g)
{
	u32 l1 = g->l1d[TLBP_4K], l2 = g->l2[TLBP_4K];

	if ((l1 & 7) || (l2 & 7))
		return false;
	return !l2 || l1 <= l2;
}

/* No TLB known: every count 0, source none. */
static void clear_entries(struct tlbp_geometry *g)
{
	unsigned int s;

	for (s = 0; s < TLBP_NR_SIZES; s++) {
		g->l1d[s] = 0;
		g->l1i[s] = 0;
		g->l2[s] = 0;
	}
	g->source = TLBP_SRC_NONE;
}

void tlbp_parse_geometry(const struct tlbp_cpuid *c, struct tlbp_geometry *g)
{
	struct tlb_list l;

	l.n = 0;	/* entries are written before they are read */
	clear_entries(g);
	g->hypervisor = !!(c->leaf1_ecx & 0x80000000u);

	if (c->vendor == TLBP_VENDOR_AMD) {
		collect_amd(c, &l);
		if (l.n)
			g->source = TLBP_SRC_AMD;
	} else {
		if (c->max_basic >= 0x18)
			collect_leaf18(c, &l);
		if (l.n) {
			g->source = TLBP_SRC_LEAF18;
		} else if (c->vendor == TLBP_VENDOR_INTEL && c->max_basic >= 2) {
			collect_leaf2(c, &l);
			if (l.n)
				g->source = TLBP_SRC_LEAF2;
		} else if (c->vendor == TLBP_VENDOR_OTHER) {
			/* Centaur, Zhaoxin and others use AMD's layout. */
			collect_amd(c, &l);
			if (l.n)
				g->source = TLBP_SRC_AMD;
		}
	}
	fold(&l, g);

	if (g->hypervisor && !plausible(g))
		clear_entries(g);
}
