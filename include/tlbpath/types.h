/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pure parts of tlbpath (CPUID parsing, the flush decision) build both
 * into the module and into user-space unit tests.  This header is the only
 * thing they include: fixed-width types, and nothing else, from either world.
 */
#ifndef _TLBPATH_TYPES_H
#define _TLBPATH_TYPES_H

#ifdef __KERNEL__
#include <linux/bits.h>
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stddef.h>
typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef signed char s8;
typedef int s32;
typedef long long s64;
#define BIT(nr)	(1UL << (nr))
#define BIT_ULL(nr)	(1ULL << (nr))
#endif

#endif /* _TLBPATH_TYPES_H */
