/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tlbpath:decision, one event per hooked call: what was asked, what was
 * decided and why.  footprint is the resident pages the model weighed
 * (-1: a kernel range, no address space).  Costs a patched-out branch while nobody listens.
 *
 *   echo 1 > /sys/kernel/tracing/events/tlbpath/decision/enable
 *   perf record -e tlbpath:decision -a
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM tlbpath

#if !defined(_TLBPATH_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TLBPATH_TRACE_H

#include <linux/tracepoint.h>
#include "tlbpath/policy.h"

/* So that user space (perf, trace-cmd) can print the names too. */
TRACE_DEFINE_ENUM(TLBP_PERPAGE);
TRACE_DEFINE_ENUM(TLBP_WIDEN);
TRACE_DEFINE_ENUM(TLBP_CALLER_FULL);
TRACE_DEFINE_ENUM(TLBP_WHY_THRESHOLD);
TRACE_DEFINE_ENUM(TLBP_WHY_CAP);
TRACE_DEFINE_ENUM(TLBP_WHY_CALLER);
TRACE_DEFINE_ENUM(TLBP_WHY_DISABLED);
TRACE_DEFINE_ENUM(TLBP_WHY_STOCK);
TRACE_DEFINE_ENUM(TLBP_WHY_MODEL);
TRACE_DEFINE_ENUM(TLBP_WHY_MEASURED);
TRACE_DEFINE_ENUM(TLBP_WHY_EXPLORE);
TRACE_DEFINE_ENUM(TLBP_WHY_TIMED);
TRACE_DEFINE_ENUM(TLBP_WHY_PROBE);

TRACE_EVENT(decision,

	TP_PROTO(const void *mm, unsigned long start, unsigned long end,
		 unsigned int stride_shift, unsigned long footprint,
		 const struct tlbp_decision *d, bool remote),

	TP_ARGS(mm, start, end, stride_shift, footprint, d, remote),

	TP_STRUCT__entry(
		__field(const void *,	mm)
		__field(unsigned long,	start)
		__field(unsigned long,	end)
		__field(unsigned long,	entries)
		__field(unsigned long,	footprint)
		__field(unsigned int,	stride_shift)
		__field(unsigned char,	verdict)
		__field(unsigned char,	reason)
		__field(bool,		remote)
	),

	TP_fast_assign(
		__entry->mm = mm;
		__entry->start = start;
		__entry->end = end;
		__entry->entries = d->entries;
		__entry->footprint = footprint;
		__entry->stride_shift = stride_shift;
		__entry->verdict = d->verdict;
		__entry->reason = d->reason;
		__entry->remote = remote;
	),

	TP_printk("mm=%p start=0x%lx end=0x%lx stride=%u entries=%lu footprint=%ld decision=%s reason=%s remote=%d",
		  __entry->mm, __entry->start, __entry->end, __entry->stride_shift,
		  __entry->entries, (long)__entry->footprint,
		  __print_symbolic(__entry->verdict,
				   { TLBP_PERPAGE, "perpage" },
				   { TLBP_WIDEN, "widen" },
				   { TLBP_CALLER_FULL, "full" }),
		  __print_symbolic(__entry->reason,
				   { TLBP_WHY_THRESHOLD, "threshold" },
				   { TLBP_WHY_CAP, "cap" },
				   { TLBP_WHY_CALLER, "caller" },
				   { TLBP_WHY_DISABLED, "disabled" },
				   { TLBP_WHY_STOCK, "stock" },
				   { TLBP_WHY_MODEL, "model" },
				   { TLBP_WHY_MEASURED, "measured" },
				   { TLBP_WHY_EXPLORE, "explore" },
				   { TLBP_WHY_TIMED, "timed" },
				   { TLBP_WHY_PROBE, "probe" }),
		  __entry->remote)
);

#endif /* _TLBPATH_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
