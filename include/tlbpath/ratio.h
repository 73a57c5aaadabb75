/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Integer helpers of the controllers (adapt.c, timectl.c): no kernel
 * headers, and no 64-bit division where a 32-bit one will do (x86-64 and
 * arm64 divide 32 bits in one instruction).  Only ever on slow paths.
 */
#ifndef _TLBPATH_RATIO_H
#define _TLBPATH_RATIO_H

#include "types.h"

static inline u32 tlbp_min_u32(u32 a, u32 b)
{
	return a < b ? a : b;
}

static inline u32 tlbp_max_u32(u32 a, u32 b)
{
	return a > b ? a : b;
}

static inline u64 tlbp_min_u64(u64 a, u64 b)
{
	return a < b ? a : b;
}

/* The number of significant bits of @x: six halving steps. */
static inline unsigned int tlbp_fls_u64(u64 x)
{
	unsigned int n = 0, s;

	for (s = 32; s; s >>= 1)
		if (x >> s) {
			n += s;
			x >>= s;
		}
	return n + (unsigned int)x;
}

/* num / den in 32 bits: both shifted down until they fit; ~0 for den 0. */
static inline u32 tlbp_ratio(u64 num, u64 den)
{
	unsigned int s = tlbp_fls_u64(num | den);

	s = s > 32 ? s - 32 : 0;
	num >>= s;
	den >>= s;
	if (!den)
		return ~0U;
	return (u32)num / (u32)den;
}

/* The integer square root of @x, by bits. */
static inline u32 tlbp_isqrt(u64 x)
{
	u64 r = 0, bit = (u64)1 << 62;

	while (bit > x)
		bit >>= 2;
	while (bit) {
		if (x >= r + bit) {
			x -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return (u32)r;
}

#endif /* _TLBPATH_RATIO_H */
