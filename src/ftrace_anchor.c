// SPDX-License-Identifier: GPL-2.0
/*
 * The one function of tlbpath that ftrace can trace, and which nothing
 * calls: each hook's filter holds it before the hooked function is added
 * (ftrace.c).  Kbuild builds this file alone with the kernel's ftrace
 * instrumentation.
 */
#include "ftrace.h"

noinline void tlbp_ftrace_anchor(void)
{
	barrier();
}
