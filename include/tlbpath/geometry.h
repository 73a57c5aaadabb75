/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TLB geometry from CPUID, as pure C.
 *
 * The caller gathers the raw CPUID leaves of one logical CPU into a
 * struct tlbp_cpuid (the module does it on each CPU with the CPUID
 * instruction, the tests from hand-written values or a `cpuid -r` dump),
 * and tlbp_parse_geometry() turns them into entries per level and page size.
 */
#ifndef _TLBPATH_GEOMETRY_H
#define _TLBPATH_GEOMETRY_H

#include "types.h"

/* Deterministic address translation parameters: leaf 0x18 subleaves kept. */
#define TLBP_LEAF18_MAX_SUBLEAVES	32

enum tlbp_vendor {
	TLBP_VENDOR_OTHER,
	TLBP_VENDOR_INTEL,
	TLBP_VENDOR_AMD,	/* AMD and Hygon: same extended leaves */
};

struct tlbp_regs {
	u32 eax, ebx, ecx, edx;
};

/*
 * Raw CPUID of one logical CPU.  A leaf that the CPU does not implement
 * (above max_basic / max_ext) must be left zeroed; the parser never looks
 * at leaves beyond the reported maxima.
 */
struct tlbp_cpuid {
	u32 max_basic;			/* leaf 0 EAX */
	u32 max_ext;			/* leaf 0x80000000 EAX */
	enum tlbp_vendor vendor;	/* from leaf 0 EBX:EDX:ECX */
	u32 leaf1_eax;			/* family, model, stepping */
	u32 leaf1_ecx;			/* bit 31: running under a hypervisor */
	struct tlbp_regs leaf2;
	u32 leaf18_count;		/* subleaves stored in leaf18[] */
	struct tlbp_regs leaf18[TLBP_LEAF18_MAX_SUBLEAVES];
	struct tlbp_regs ext5;		/* 0x80000005: AMD L1 TLBs */
	struct tlbp_regs ext6;		/* 0x80000006: AMD L2 TLBs */
	struct tlbp_regs ext19;		/* 0x80000019: AMD 1G TLBs */
};

enum tlbp_page_size {
	TLBP_4K,
	TLBP_2M,	/* 2M and 4M large pages share one slot */
	TLBP_1G,
	TLBP_NR_SIZES,
};

enum tlbp_geo_source {
	TLBP_SRC_NONE,
	TLBP_SRC_LEAF2,
	TLBP_SRC_LEAF18,
	TLBP_SRC_AMD,
};

/*
 * Entries per page size.  l1d: the first-level TLB holding data
 * translations (the load TLB where loads and stores are split); l1i: the
 * first-level instruction TLB; l2: the highest level above the first that
 * holds data translations (a shared STLB, AMD's L2 DTLB), 0 if none.
 * A structure that holds several page sizes counts for each of them.
 */
struct tlbp_geometry {
	u32 l1d[TLBP_NR_SIZES];
	u32 l1i[TLBP_NR_SIZES];
	u32 l2[TLBP_NR_SIZES];
	enum tlbp_geo_source source;
	bool hypervisor;	/* the numbers are whatever the hypervisor says */
};

/*
 * Gather the leaves the parser needs through @read, which executes (or
 * looks up) CPUID(@leaf, @subleaf) for one CPU.  The module passes the
 * CPUID instruction, tlbpath-geometry a `cpuid -r` dump or the instruction.
 */
typedef void (*tlbp_cpuid_fn)(void *ctx, u32 leaf, u32 subleaf,
			      struct tlbp_regs *out);
void tlbp_cpuid_fill(struct tlbp_cpuid *c, tlbp_cpuid_fn read, void *ctx);

enum tlbp_vendor tlbp_vendor_from_leaf0(u32 ebx, u32 ecx, u32 edx);
void tlbp_parse_geometry(const struct tlbp_cpuid *c, struct tlbp_geometry *g);
const char *tlbp_geo_source_name(enum tlbp_geo_source src);
bool tlbp_geometry_equal(const struct tlbp_geometry *a,
			 const struct tlbp_geometry *b);

/*
 * Leaf 2 descriptor table, exposed for the tests: the TLB described by one
 * descriptor byte, or NULL when the byte describes no TLB.
 */
enum tlbp_tlb_kind {
	TLBP_KIND_DATA,
	TLBP_KIND_INSN,
	TLBP_KIND_SHARED,
};

/* Page-size bits for struct tlbp_desc.sizes */
#define TLBP_SZ_4K	BIT(TLBP_4K)
#define TLBP_SZ_2M	BIT(TLBP_2M)
#define TLBP_SZ_1G	BIT(TLBP_1G)

struct tlbp_desc {
	u8 code;
	u8 kind;	/* enum tlbp_tlb_kind */
	u8 level;	/* 0: micro/DTLB0, 1: first level, 2: second level */
	u8 sizes;	/* TLBP_SZ_* */
	u16 entries;
	u8 sizes2;	/* a second array in the same descriptor (0x63, 0xC3) */
	u16 entries2;
};

const struct tlbp_desc *tlbp_leaf2_desc(u8 code);

/* Leaf 2's descriptor bytes in register order (at most 15), 0s left out. */
#define TLBP_LEAF2_MAX_CODES	15
unsigned int tlbp_leaf2_codes(const struct tlbp_cpuid *c,
			      u8 codes[TLBP_LEAF2_MAX_CODES]);

#endif /* _TLBPATH_GEOMETRY_H */
