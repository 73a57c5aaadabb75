/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tlbsim: a deterministic, trace-driven simulator of per-CPU data TLBs,
 * to judge TLB flush policies (per-page INVLPG or a full flush) on the
 * TLB geometry of real CPUs.  See README.md beside this file for the
 * trace format, the TLB and cost models and their sources.
 *
 * Everything is integer arithmetic on a trace held in memory: the same
 * trace, CPU model, policy and costs always give the same numbers.
 */
#ifndef _TLBSIM_H
#define _TLBSIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tlbpath/geometry.h"

#define SIM_MAX_CPUS	256
#define SIM_MAX_WALKERS	64
#define SIM_EPOCH_BINS	(48 * 16)	/* sizes up to 2^48 cycles, 1/16 octave each */

/* ---- Traces ------------------------------------------------------------ */

enum sim_ev_type {
	EV_READ,	/* r CPU ADDR */
	EV_WRITE,	/* w CPU ADDR */
	EV_FLUSH,	/* f CPU START ENTRIES STRIDE_SHIFT */
	EV_FULL,	/* F CPU: the caller asked for a full flush */
};

struct sim_event {
	uint64_t addr;		/* access: address; flush: start */
	uint64_t entries;	/* flush: (end - start) >> stride_shift */
	uint64_t total_vm;	/* flush: the mm's total_vm (pages) at the call */
	uint64_t rss;		/* flush: its resident pages at the call */
	uint16_t cpu;
	uint8_t type;		/* enum sim_ev_type */
	uint8_t shift;		/* access: page shift (12, 21, 30); flush: stride */
	uint8_t dep;		/* access: its address depends on the load before */
};

/*
 * How accesses depend on each other ('l dep' / 'l indep' lines): a miss
 * of a dependent access pays the whole latency; independent misses
 * overlap (sim.c).  A trace without 'l' lines is dependent throughout,
 * which is how every trace replayed before they existed.
 */
enum sim_loads {
	SIM_LOADS_TRACE,	/* as the trace says */
	SIM_LOADS_DEP,		/* every access dependent */
	SIM_LOADS_INDEP,	/* every access independent */
};

struct sim_trace {
	struct sim_event *ev;
	size_t n, cap;
	unsigned int runs;		/* the events replayed this many times over (0: once) */
	unsigned int ncpus;		/* highest CPU number + 1 */
	uint64_t accesses, flushes, full_flushes;
	bool has_vm;			/* 'v' lines: total_vm/rss known */
	bool has_loads;			/* 'l' lines: dependencies known */
	uint64_t dep_accesses;		/* accesses marked dependent */
	uint64_t *sizes;		/* distinct flush entry counts, ascending */
	size_t nsizes;
};

/*
 * Parse a trace.  Returns 0, or -1 with a message "FILE:LINE: what" in
 * @err.  @name labels the messages.
 */
int sim_trace_read(struct sim_trace *t, FILE *f, const char *name,
		   char *err, size_t errlen);
int sim_trace_load(struct sim_trace *t, const char *path, char *err, size_t errlen);
int sim_trace_from_string(struct sim_trace *t, const char *text,
			  char *err, size_t errlen);
/*
 * The trace's events @times over, one run after the other: a program that
 * runs longer, or again on the same CPUs (what the module's per-CPU state
 * sees).  The events stay as they are (->runs says it) and the counts are
 * of all runs.  -1 if they would overflow, the trace unchanged.
 */
int sim_trace_repeat(struct sim_trace *t, unsigned int times);
void sim_trace_free(struct sim_trace *t);
/*
 * A text trace's fields, for trace.c's reader and tracebin.c's converter
 * (defined there: tpsplit links it alone): the next number in @base at
 * *@p, moving past it (false if none or junk); whether only blanks are
 * left.
 */
bool sim_field(char **p, int base, uint64_t *v);
bool sim_at_end(const char *p);
/* Mark every access as @loads says (SIM_LOADS_TRACE: leave them). */
void sim_trace_set_loads(struct sim_trace *t, enum sim_loads loads);
int sim_loads_parse(const char *s, enum sim_loads *loads);
const char *sim_loads_name(enum sim_loads loads);

/* ---- CPU models -------------------------------------------------------- */

/* One TLB array: entries = sets * ways; ways == entries: fully associative. */
struct sim_shape {
	uint32_t entries, ways;
};

struct sim_cpu_model {
	char label[96];
	struct tlbp_geometry geo;	/* what tlbpath's parser says (entries) */
	struct sim_shape l1[TLBP_NR_SIZES];	/* first-level data TLB */
	struct sim_shape l2[TLBP_NR_SIZES];	/* second-level / shared TLB */
	uint32_t walkers;		/* page walks in flight at once (>= 1) */
};

/*
 * SPEC (each may end in #LABEL):
 *   PATH[@N][%P]    CPU N (default: the first) of a `cpuid -r` dump, with
 *                   P page walkers (default 1: walks never overlap)
 *   live[@N][%P]    CPU N of this machine (CPUID instruction)
 *   geom:KEY=E[/W],...  by hand; KEY is l1d_4k, l2_4k, l1d_2m, l2_2m,
 *                   l1d_1g, l2_1g (E entries, W ways, default: fully
 *                   associative), or walkers (=P)
 * Entries come from tlbpath's own parser (src/geometry.c); associativity
 * from the same raw leaves (see model.c).  Returns 0 or -1 with @err.
 */
int sim_model_parse(struct sim_cpu_model *m, const char *spec, char *err, size_t errlen);
void sim_model_from_cpuid(struct sim_cpu_model *m, const struct tlbp_cpuid *c);
void sim_model_print(FILE *f, const struct sim_cpu_model *m);

/* ---- Costs ------------------------------------------------------------- */

struct sim_costs {
	uint64_t invlpg;	/* one INVLPG, on each CPU the flush reaches */
	uint64_t full;		/* one full flush (CR3 write), per CPU */
	uint64_t stlb_hit;	/* an access that misses L1 and hits the STLB */
	uint64_t walk;		/* an access that misses every level: a walk */
	/*
	 * What the CPU spends on an independent access anyway, TLB hit or
	 * not (the probe's loop of one load per page): the time the page
	 * walkers have to hide a miss in.  0: nothing hides it.
	 */
	uint64_t issue;
};

/*
 * What one miss costs: a dependent access pays the whole latency @lat;
 * independent ones overlap, @walkers at a time, and under the @issue
 * cycles each access takes anyway, so each pays what is left of lat /
 * walkers.  In 1/@walkers cycles, so that sums stay exact.
 */
static inline uint64_t sim_miss_units(uint64_t lat, bool dep, uint32_t walkers,
				      uint64_t issue)
{
	uint64_t hidden = issue * walkers;

	if (dep)
		return lat * walkers;
	return lat > hidden ? lat - hidden : 0;
}

/* A cost set from a file (the probe's output, README.md): 0 or -1 with @err. */
int sim_costs_load(struct sim_costs *c, const char *path, char *err, size_t errlen);

/* The defaults, and where each comes from: README.md and sim.c. */
extern const struct sim_costs sim_default_costs;

/* ---- Policies ---------------------------------------------------------- */

enum sim_policy_kind {
	POL_STOCK,	/* mainline since 2014: per-page iff entries <= 33 */
	POL_2012,	/* Alex Shi's 2012 rule: entries <= min(lld_4k, total_vm) / 16 */
	POL_FIXED,	/* per-page iff entries <= threshold */
	POL_TLBPATH,	/* tlbpath's default where a PMU counts walks (adapter.c) */
	POL_TLBPATH_MODEL,	/* tlbpath's calibrated model fed this run's costs */
	POL_GEOMETRY,	/* tlbpath's first default: entries <= l1d_4k / 2 + 1 */
	POL_TLBPATH_PMU,	/* the walk controller alone (src/adapt.c) */
	POL_TLBPATH_TIME,	/* the time controller alone (src/timectl.c): no PMU */
	POL_TLBPATH_BOTH,	/* time for local ranges, walks for those reaching others */
};

struct sim_policy {
	enum sim_policy_kind kind;
	uint32_t threshold;	/* POL_FIXED */
	uint32_t div;		/* POL_2012: FLUSHALL_BAR, 16 in the seed */
	uint32_t cap;		/* POL_TLBPATH*: the module's cap */
	/*
	 * The controllers' clock: each CPU's cycles by the cost model, plus,
	 * with a seed (0: none), noise from it: before each flush request,
	 * random extra time up to the interval since the last one, and now
	 * and then a break (another task, as a context switch brings).
	 */
	uint32_t noise;
	/* Flush events a CPU per epoch of the epochs columns (0: TLBP_TC_TICK). */
	uint32_t epoch;
};

const char *sim_policy_name(enum sim_policy_kind k);

/* ---- The tlbpath adapter (adapter.c: the one place calling src/policy.c) */

/* Which of tlbpath's decisions (adapter.c). */
enum sim_tlbpath_kind {
	SIM_TP_MODEL,		/* policy.c's calibrated model */
	SIM_TP_PMU,		/* adapt.c: walks counted */
	SIM_TP_TIME,		/* timectl.c: time measured */
	SIM_TP_BOTH,		/* both: time for local ranges, walks for remote ones */
};

/* Everything the simulator knows about one flush call. */
struct sim_flush_call {
	unsigned long start, end;	/* end = start + (entries << stride_shift) */
	unsigned int stride_shift;
	unsigned int cpu;		/* the CPU that asked */
	unsigned int nr_cpus;		/* CPUs it reaches, itself included */
	const bool *reached;		/* [CPU]: the flush reaches it; ncpus entries */
	unsigned int ncpus;
	uint64_t total_vm, rss;		/* pages; 0: not known */
	const struct tlbp_tc_clock *clock;	/* the asking CPU's, for the time controller */
};

struct sim_tlbpath {
	enum sim_tlbpath_kind kind;
	bool on;			/* initialised: a controller or the model decides */
	bool usable;			/* false: this build's policy.c lacks it */
	uint32_t threshold;		/* the uncalibrated default threshold */
	unsigned int ncpus;		/* the per-CPU controllers */
	void *cpus;			/* struct tlbp_adapt [ncpus] */
	void *tcs;			/* struct tlbp_tc [ncpus] */
	unsigned char state[256];	/* the policy.c objects, opaque here */
};

/* The kind a policy asks for; false: none of tlbpath's. */
bool sim_tlbpath_kind_of(enum sim_policy_kind p, enum sim_tlbpath_kind *k);

/* @ncpus: CPUs the controllers run on; @walkers: the CPU's page walkers. */
void sim_tlbpath_init(struct sim_tlbpath *a, enum sim_tlbpath_kind kind,
		      const struct tlbp_geometry *g, const struct sim_costs *c,
		      uint32_t cap, unsigned int ncpus, uint32_t walkers);
void sim_tlbpath_free(struct sim_tlbpath *a);
struct tlbp_tc_clock;

/*
 * A flush request on @cpu, before it is decided: the time controller's
 * count; @c: its clock (timectl.h), which the call deciding it sees too.
 */
void sim_tlbpath_request(struct sim_tlbpath *a, unsigned int cpu, const struct tlbp_tc_clock *c);
bool sim_tlbpath_perpage(struct sim_tlbpath *a, const struct sim_flush_call *c);
/* A flush another CPU asked for, executed on @cpu, whose clock is @c: its time controller's. */
void sim_tlbpath_remote(struct sim_tlbpath *a, unsigned int cpu, unsigned long pages,
			const struct tlbp_tc_clock *c);
/*
 * A flush executed on @cpu: @pages invalidated one by one, or all
 * (~0UL); @walks the CPU's page-walk counter, @now its clock.
 */
void sim_tlbpath_executed(struct sim_tlbpath *a, unsigned int cpu, unsigned long pages,
			  uint64_t walks, uint64_t now);
/* The largest number of entries the policy can keep (for reports). */
uint32_t sim_tlbpath_ceiling(const struct sim_tlbpath *a);
/* adapt: the sums of the CPUs' explorations and measurements, and the largest keep. */
struct sim_adapt_stats {
	uint64_t explore_widen, explore_keep, windows;
	uint32_t keep_max;
	unsigned int fallback;		/* CPUs in fallback at the end */
};
void sim_tlbpath_stats(const struct sim_tlbpath *a, struct sim_adapt_stats *s);

/* ---- Simulation -------------------------------------------------------- */

struct sim_result {
	uint64_t accesses, l1_hits, stlb_hits, walks;
	uint64_t dep_stlb_hits, dep_walks;	/* of those, by dependent accesses */
	uint64_t calls;			/* ranged flush calls */
	uint64_t perpage_calls, widened_calls, caller_full_calls;
	uint64_t invlpg;		/* INVLPGs executed, all CPUs */
	uint64_t full_flushes;		/* full flushes executed, all CPUs */
	uint64_t cyc_stlb, cyc_walk, cyc_invlpg, cyc_full;
	uint64_t cycles;		/* the sum of the four */
	uint32_t adapt_keep;		/* tlbpath: the largest keep at the end */
	uint64_t explorations;		/* tlbpath: widened or kept to measure */
	/* Epochs of TLBP_TC_TICK flush events per CPU, timed (sim.c: epoch_event()). */
	uint64_t epochs, epoch_pairs;
	double epoch_d2;		/* the sum of squared differences of successive ones */
	/* Their sizes, |d| + 1 in 1/16 octaves: the median for sim_epoch_mad(). */
	uint32_t epoch_hist[SIM_EPOCH_BINS];
};

/*
 * 1.4826 x the median size of the differences of epochs in a row (the
 * standard deviation where they are normal, within 2.2%): the spread a
 * learner that leaves out the long gaps of a workload's own time would
 * see.  0 without pairs.
 */
double sim_epoch_mad(const struct sim_result *r);

/* The threshold a policy applies on @m, for reports (2012: before the footprint cap). */
uint32_t sim_policy_threshold(const struct sim_policy *p, const struct sim_cpu_model *m,
			      const struct sim_costs *c);

int sim_run(const struct sim_trace *t, const struct sim_cpu_model *m,
	    const struct sim_policy *p, const struct sim_costs *c,
	    struct sim_result *r);

/*
 * The best fixed threshold: every threshold from 0 to the largest flush
 * in the trace is equivalent to one of {0} U sizes, so those are run.
 * Fills @best (its cycles) and the thresholds [@lo, @hi] that all give
 * it (@hi = UINT32_MAX: any threshold from @lo up).  @each, when not
 * NULL, is called with every threshold run.
 */
typedef void (*sim_sweep_fn)(void *ctx, uint32_t threshold, const struct sim_result *r);
int sim_best_fixed(const struct sim_trace *t, const struct sim_cpu_model *m,
		   const struct sim_costs *c, struct sim_result *best,
		   uint32_t *lo, uint32_t *hi, sim_sweep_fn each, void *ctx);

#endif /* _TLBSIM_H */
