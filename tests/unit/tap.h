/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A minimal TAP producer in the style of the kernel's kselftest.h:
 * "TAP version 13", a plan, "ok N - what" lines, non-zero exit on failure.
 */
#ifndef _TLBPATH_TAP_H
#define _TLBPATH_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int tap_n, tap_failed;

static inline void tap_plan(int n)
{
	printf("TAP version 13\n1..%d\n", n);
}

/* "ok N - what" or "not ok N - what", without the line's end. */
static inline void tap_vline(int cond, const char *fmt, va_list ap)
{
	printf("%sok %d - ", cond ? "" : "not ", ++tap_n);
	vprintf(fmt, ap);
}

__attribute__((format(printf, 2, 3)))
static inline int tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vline(cond, fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond)
		tap_failed++;
	return cond;
}

/*
 * A known failure (TAP's TODO directive): said, not counted, so that the
 * day it starts passing gets noticed ("unexpectedly succeeded").
 */
__attribute__((format(printf, 3, 4)))
static inline void tap_todo(int cond, const char *why, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vline(cond, fmt, ap);
	va_end(ap);
	printf(" # TODO %s\n", why);
}

/* Compare two unsigned values and say both when they differ. */
#define tap_eq(got, want, ...) do {					\
	unsigned long long _g = (got), _w = (want);			\
	if (!tap_ok(_g == _w, __VA_ARGS__))				\
		printf("#   got %llu, want %llu\n", _g, _w);		\
} while (0)

static inline int tap_done(void)
{
	if (tap_failed)
		printf("# %d of %d failed\n", tap_failed, tap_n);
	return tap_failed ? 1 : 0;
}

#endif /* _TLBPATH_TAP_H */
