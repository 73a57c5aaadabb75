/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The pure parts of tlbpath (CPUID parsing, the flush decision) build both
 * into the module and into user-space unit tests.  This header is the only
 * thing they include: fixed-width types, and nothing else, from either world.
 */
#ifndef _TLBPATH_TYPES_H
#define _TLBPATH_TYPES_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
#endif

#endif /* _TLBPATH_TYPES_H */
