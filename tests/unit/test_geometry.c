// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the CPUID TLB parser, on hand-written register values
 * for each leaf and vendor, and the edge cases the SDM and APM define.
 */
#include <string.h>
#include "tap.h"
#include "tlbpath/geometry.h"

static struct tlbp_cpuid intel(u32 max_basic)
{
	struct tlbp_cpuid c;

	memset(&c, 0, sizeof(c));
	c.vendor = TLBP_VENDOR_INTEL;
	c.max_basic = max_basic;
	c.max_ext = 0x80000008;
	return c;
}

static struct tlbp_cpuid amd(u32 max_ext)
{
	struct tlbp_cpuid c;

	memset(&c, 0, sizeof(c));
	c.vendor = TLBP_VENDOR_AMD;
	c.max_basic = 0x10;
	c.max_ext = max_ext;
	return c;
}

struct want {
	u32 l1d_4k, l1i_4k, l2_4k, l1d_2m, l1i_2m, l2_2m, l1d_1g, l2_1g;
	enum tlbp_geo_source src;
};

static void expect(const char *name, const struct tlbp_cpuid *c, struct want w)
{
	struct tlbp_geometry g;

	tlbp_parse_geometry(c, &g);
	tap_eq(g.source, w.src, "%s: source %s", name, tlbp_geo_source_name(w.src));
	tap_eq(g.l1d[TLBP_4K], w.l1d_4k, "%s: l1d_4k", name);
	tap_eq(g.l1i[TLBP_4K], w.l1i_4k, "%s: l1i_4k", name);
	tap_eq(g.l2[TLBP_4K], w.l2_4k, "%s: l2_4k", name);
	tap_eq(g.l1d[TLBP_2M], w.l1d_2m, "%s: l1d_2m", name);
	tap_eq(g.l1i[TLBP_2M], w.l1i_2m, "%s: l1i_2m", name);
	tap_eq(g.l2[TLBP_2M], w.l2_2m, "%s: l2_2m", name);
	tap_eq(g.l1d[TLBP_1G], w.l1d_1g, "%s: l1d_1g", name);
	tap_eq(g.l2[TLBP_1G], w.l2_1g, "%s: l2_1g", name);
}

#define EXPECT_N 9

/* Leaf 0x18 subleaf: type, level, page-size bits, ways, sets. */
static struct tlbp_regs l18(u32 type, u32 level, u32 sizes, u32 ways, u32 sets,
			    int fully)
{
	struct tlbp_regs r = {
		.ebx = ways << 16 | sizes,
		.ecx = sets,
		.edx = type | level << 5 | (fully ? 1u << 8 : 0),
	};
	return r;
}

int main(void)
{
	struct tlbp_cpuid c;
	struct tlbp_geometry g;

	tap_plan(4 + 1 + 14 * EXPECT_N + 3 + 3 + 2);

	tap_eq(tlbp_vendor_from_leaf0(0x756e6547, 0x6c65746e, 0x49656e69),
	       TLBP_VENDOR_INTEL, "GenuineIntel is Intel");
	tap_eq(tlbp_vendor_from_leaf0(0x68747541, 0x444d4163, 0x69746e65),
	       TLBP_VENDOR_AMD, "AuthenticAMD is AMD");
	tap_eq(tlbp_vendor_from_leaf0(0x6f677948, 0x656e6975, 0x6e65476e),
	       TLBP_VENDOR_AMD, "HygonGenuine uses AMD's leaves");
	tap_eq(tlbp_vendor_from_leaf0(0x746e6543, 0x736c7561, 0x48727561),
	       TLBP_VENDOR_OTHER, "CentaurHauls is another vendor");
	tap_ok(tlbp_leaf2_desc(0x00) == NULL && tlbp_leaf2_desc(0xfe) == NULL &&
	       tlbp_leaf2_desc(0xff) == NULL && tlbp_leaf2_desc(0x2c) == NULL,
	       "leaf 2: null, 0xfe, 0xff and cache descriptors describe no TLB");

	/* Haswell's leaf 2: 76036301 00f0b5ff 00000000 00c30000 */
	c = intel(0xd);
	c.leaf2 = (struct tlbp_regs){ 0x76036301, 0x00f0b5ff, 0, 0x00c30000 };
	expect("leaf2 Haswell", &c, (struct want){
		.l1d_4k = 64, .l1i_4k = 64, .l2_4k = 1536, .l1d_2m = 32,
		.l1i_2m = 8, .l2_2m = 1536, .l1d_1g = 4, .l2_1g = 16,
		.src = TLBP_SRC_LEAF2 });

	/* The count byte (AL = 1) is not descriptor 0x01 (a 32-entry ITLB). */
	c = intel(0xd);
	c.leaf2 = (struct tlbp_regs){ 0x00000301, 0, 0, 0 };
	expect("leaf2 AL is a count", &c, (struct want){
		.l1d_4k = 64, .src = TLBP_SRC_LEAF2 });

	/* Bit 31 set: the register carries no descriptors (0x03 ignored). */
	c = intel(0xd);
	c.leaf2 = (struct tlbp_regs){ 0x00b00001, 0x80000003, 0, 0 };
	expect("leaf2 bit 31", &c, (struct want){
		.l1i_4k = 128, .src = TLBP_SRC_LEAF2 });

	/* Core 2: DTLB0 (16, loads) in front of DTLB1 (256). */
	c = intel(0xa);
	c.leaf2 = (struct tlbp_regs){ 0x05b0b101, 0x005657f0, 0, 0x2cb43049 };
	expect("leaf2 Core 2", &c, (struct want){
		.l1d_4k = 16, .l1i_4k = 128, .l2_4k = 256, .l1d_2m = 16,
		.l1i_2m = 8, .l2_2m = 32, .src = TLBP_SRC_LEAF2 });

	/* Nehalem: the STLB (0xca) holds 4K pages only. */
	c = intel(0xb);
	c.leaf2 = (struct tlbp_regs){ 0x55035a01, 0x00f0b2ff, 0, 0x00ca0000 };
	expect("leaf2 Nehalem", &c, (struct want){
		.l1d_4k = 64, .l1i_4k = 64, .l2_4k = 512, .l1d_2m = 32,
		.l1i_2m = 7, .src = TLBP_SRC_LEAF2 });

	/* 0xfe: "use leaf 0x18"; without leaf 0x18 there is nothing. */
	c = intel(0x16);
	c.leaf2 = (struct tlbp_regs){ 0x00feff01, 0x000000f0, 0, 0 };
	expect("leaf2 0xfe, no leaf 0x18", &c, (struct want){ .src = TLBP_SRC_NONE });

	/* Golden Cove-like leaf 0x18: split load/store L1, unified STLB. */
	c = intel(0x20);
	c.leaf2 = (struct tlbp_regs){ 0x00feff01, 0x000000f0, 0, 0 };
	c.leaf18[0] = l18(2, 1, 0x1, 8, 32, 0);		/* ITLB 4K 256 */
	c.leaf18[0].eax = 6;				/* max subleaf */
	c.leaf18[1] = l18(4, 1, 0x1, 16, 4, 0);		/* load 4K 64 */
	c.leaf18[2] = l18(4, 1, 0x6, 4, 8, 0);		/* load 2M/4M 32 */
	c.leaf18[3] = l18(5, 1, 0xf, 16, 1, 1);		/* store, all: 16 */
	c.leaf18[4] = l18(3, 2, 0x7, 8, 256, 0);	/* STLB 4K/2M 2048 */
	c.leaf18[5] = l18(3, 2, 0x8, 8, 128, 0);	/* STLB 1G 1024 */
	c.leaf18[6] = l18(0, 0, 0, 0, 0, 0);		/* null */
	c.leaf18_count = 7;
	expect("leaf18 split L1", &c, (struct want){
		.l1d_4k = 64, .l1i_4k = 256, .l2_4k = 2048, .l1d_2m = 32,
		.l2_2m = 2048, .l2_1g = 1024, .src = TLBP_SRC_LEAF18 });

	/* Leaf 0x18 wins over leaf 2 when both describe TLBs. */
	c.leaf2 = (struct tlbp_regs){ 0x76036301, 0x00f0b5ff, 0, 0x00c30000 };
	expect("leaf18 beats leaf2", &c, (struct want){
		.l1d_4k = 64, .l1i_4k = 256, .l2_4k = 2048, .l1d_2m = 32,
		.l2_2m = 2048, .l2_1g = 1024, .src = TLBP_SRC_LEAF18 });

	/* Leaf 0x18 with no valid subleaf falls back to leaf 2. */
	c = intel(0x18);
	c.leaf2 = (struct tlbp_regs){ 0x76036301, 0x00f0b5ff, 0, 0x00c30000 };
	c.leaf18[0] = l18(0, 0, 0, 8, 8, 0);
	c.leaf18_count = 1;
	expect("leaf18 all null", &c, (struct want){
		.l1d_4k = 64, .l1i_4k = 64, .l2_4k = 1536, .l1d_2m = 32,
		.l1i_2m = 8, .l2_2m = 1536, .l1d_1g = 4, .l2_1g = 16,
		.src = TLBP_SRC_LEAF2 });

	/* A single level is first level only: no l2. */
	c = intel(0x20);
	c.leaf18[0] = l18(1, 1, 0x1, 4, 16, 0);
	c.leaf18[1] = l18(2, 1, 0x1, 4, 8, 0);
	c.leaf18_count = 2;
	expect("leaf18 one level", &c, (struct want){
		.l1d_4k = 64, .l1i_4k = 32, .src = TLBP_SRC_LEAF18 });

	/* Zen-like AMD: L1 (0x80000005), L2 (0x80000006), 1G (0x80000019). */
	c = amd(0x80000021);
	c.ext5 = (struct tlbp_regs){ 0xff40ff40, 0xff40ff40, 0, 0 };
	c.ext6 = (struct tlbp_regs){ 0x68004200, 0x68004200, 0, 0 };
	c.ext19 = (struct tlbp_regs){ 0xf040f040, 0x64000000, 0, 0 };
	expect("amd Zen", &c, (struct want){
		.l1d_4k = 64, .l1i_4k = 64, .l2_4k = 2048, .l1d_2m = 64,
		.l1i_2m = 64, .l2_2m = 2048, .l1d_1g = 64, .l2_1g = 1024,
		.src = TLBP_SRC_AMD });

	/* Associativity 0 in 0x80000006: that L2 TLB is disabled. */
	c = amd(0x80000008);
	c.ext5 = (struct tlbp_regs){ 0xff08ff08, 0xff20ff20, 0, 0 };
	c.ext6 = (struct tlbp_regs){ 0x00000000, 0x42004200, 0, 0 };
	expect("amd L2 2M disabled", &c, (struct want){
		.l1d_4k = 32, .l1i_4k = 32, .l2_4k = 512, .l1d_2m = 8,
		.l1i_2m = 8, .src = TLBP_SRC_AMD });

	c.ext6 = (struct tlbp_regs){ 0x04000000, 0x02000200, 0, 0 };
	expect("amd L2 entries with assoc 0", &c, (struct want){
		.l1d_4k = 32, .l1i_4k = 32, .l1d_2m = 8, .l1i_2m = 8,
		.src = TLBP_SRC_AMD });

	/* Leaves above max_ext are never read, whatever they hold. */
	c = amd(0x80000005);
	c.ext5 = (struct tlbp_regs){ 0xff08ff08, 0xff20ff20, 0, 0 };
	c.ext6 = (struct tlbp_regs){ 0x42004200, 0x42004200, 0, 0 };
	expect("amd max_ext 0x80000005", &c, (struct want){
		.l1d_4k = 32, .l1i_4k = 32, .l1d_2m = 8, .l1i_2m = 8,
		.src = TLBP_SRC_AMD });

	c = amd(0x80000004);
	tlbp_parse_geometry(&c, &g);
	tap_eq(g.source, TLBP_SRC_NONE, "amd with no TLB leaves: source none");
	tap_eq(g.l1d[TLBP_4K] + g.l2[TLBP_4K], 0, "amd with no TLB leaves: zeros");
	c.leaf1_ecx = 0x80000000u;
	tlbp_parse_geometry(&c, &g);
	tap_ok(g.hypervisor, "CPUID.1:ECX[31] marks a hypervisor");

	/* QEMU TCG -cpu max: 255-entry L1 TLBs, 512-entry L2. */
	c = amd(0x80000008);
	c.ext5 = (struct tlbp_regs){ 0x01ff01ff, 0x01ff01ff, 0, 0 };
	c.ext6 = (struct tlbp_regs){ 0x00002200, 0x42004200, 0, 0 };
	tlbp_parse_geometry(&c, &g);
	tap_eq(g.l1d[TLBP_4K], 255, "QEMU's leaves on bare metal are taken as they are");
	c.leaf1_ecx = 0x80000000u;
	tlbp_parse_geometry(&c, &g);
	tap_ok(g.source == TLBP_SRC_NONE && !g.l1d[TLBP_4K] && !g.l2[TLBP_4K],
	       "QEMU's 255-entry L1 under a hypervisor: source none, zeros");
	c.ext5 = (struct tlbp_regs){ 0xff40ff40, 0xff40ff40, 0, 0 };
	tlbp_parse_geometry(&c, &g);
	tap_ok(g.source == TLBP_SRC_AMD && g.l1d[TLBP_4K] == 64,
	       "plausible leaves under a hypervisor are kept");

	c = intel(0x20);
	c.leaf18[0] = l18(1, 1, 0x1, 4, 16, 0);
	c.leaf18[0].eax = 1000;
	c.leaf18_count = 1000;	/* more than the parser keeps */
	tlbp_parse_geometry(&c, &g);
	tap_eq(g.l1d[TLBP_4K], 64, "leaf18 count above the array is clamped");
	tap_eq(tlbp_leaf2_desc(0xc3)->entries2, 16, "0xc3 carries a 1G array");

	return tap_done();
}
