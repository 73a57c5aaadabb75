// SPDX-License-Identifier: GPL-2.0
/*
 * The only functions of tlbpath that ftrace can trace, which nothing
 * calls: each hook's filter holds one of its own before the hooked
 * function is added (ftrace.c).  Kbuild builds this file alone with the
 * kernel's ftrace instrumentation.  Their own anchors keep the hooks'
 * filters apart, as their functions are; the bodies differ, so that no
 * two are folded into one.
 */
#include "ftrace.h"

static int sink;

#define ANCHOR(n) static noinline void tlbp_ftrace_anchor##n(void) { WRITE_ONCE(sink, n); }
ANCHOR(0)
ANCHOR(1)
ANCHOR(2)

static void (*const anchors[TLBP_FTRACE_ANCHORS])(void) = {
	tlbp_ftrace_anchor0, tlbp_ftrace_anchor1, tlbp_ftrace_anchor2,
};

unsigned long notrace tlbp_ftrace_anchor(unsigned int i)
{
	return (unsigned long)anchors[i];
}
