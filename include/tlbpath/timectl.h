/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The time controller: per CPU, it learns from the time the workload
 * itself takes between flush requests what a full flush costs it in
 * refills, and keeps a range per page where that and the calibrated
 * costs say keeping is cheaper.  It needs a clock (TSC, CNTVCT) and a
 * calibration, no PMU.  Pure C, no kernel headers: the module, the unit
 * tests and tlbsim feed it the same way.  Design and parameters:
 * Documentation/adaptive.md, "The time controller".
 *
 * Contract (every input is an argument):
 *
 *  - tlbp_tc_init() once per CPU, before any other call on it, from
 *    slow-path code.  @c: what calibration measured; without invlpg and
 *    full it decides as stock for good (TLBP_TC_NO_COSTS).
 *
 *  - The hook, on the CPU that asks for a flush of user addresses, every
 *    request (ranges and TLB_FLUSH_ALL alike), in this order:
 *      1. decrement ->left; at 0 or below (a task that moved CPUs
 *         between its decrement and the tick leaves it there),
 *         tlbp_tc_tick() with the clock (interrupts or preemption off
 *         from here on);
 *      2. a range of entries <= tlbp_tc_fast(): keep it, nothing else;
 *      3. otherwise tlbp_tc_decide(), with the clock when
 *         tlbp_tc_wants_clock() says so, and the peers where the range
 *         reaches other CPUs: true keeps.
 *    TLB_FLUSH_ALL requests are counted (1.) and never decided.
 *
 *  - The clock (struct tlbp_tc_clock) is read before the request is
 *    decided: the time, who runs (anything that changes when another
 *    task runs here or the task is switched out and back: a task's id
 *    plus its context switches), and this CPU's running counts of user
 *    flush requests made here, of the pages it kept among them, and of
 *    full flushes among them (widened or asked for).
 *
 *  - A flush another CPU asked for and this one executes (x86: the IPI's
 *    tlb:tlb_flush), interrupts off: tlbp_tc_executed() with the clock
 *    (only now and who are read).  This CPU's own refills after such
 *    flushes are what the asking CPU cannot time; it reads them here.
 *
 *  - A range that reaches other CPUs is decided with their estimates,
 *    summed by tlbp_tc_peer_add() over every other CPU it reaches (read
 *    racily: each field is written whole by its own CPU).
 *
 *  - Its state is the CPU's own: touched only there, one writer.
 */
#ifndef _TLBPATH_TIMECTL_H
#define _TLBPATH_TIMECTL_H

#include "types.h"
#include "policy.h"

/* Ranges an experiment's epoch decides its own way (the band's), at most. */
#define TLBP_TC_EPOCH		16
/* Experiments the estimate is made of: the last ones. */
#define TLBP_TC_RING		16
/* Requests between two looks at the credit while no experiment runs. */
#define TLBP_TC_TICK		16
/* Remote ranges a CPU's probes may widen while a CPU they reach has no bounds. */
#define TLBP_TC_RBOOT		8

enum tlbp_tc_why {
	TLBP_TC_OK,		/* the measured refills decide */
	TLBP_TC_LEARNING,	/* stock until the measurements say otherwise */
	TLBP_TC_NO_COSTS,	/* calibration measured nothing usable: stock */
};

struct tlbp_tc_clock {
	u64 now, who;
	u64 requests, pages, fulls;
};

/* Why a range was kept or widened (tlbp_tc_decide()). */
enum tlbp_tc_reason {
	TLBP_TC_R_STOCK,	/* stock's threshold, until the estimate decides */
	TLBP_TC_R_TIMED,	/* the thresholds of the measured refills */
	TLBP_TC_R_PROBE,	/* an experiment's probe */
};

struct tlbp_tc_stats {
	u32 epochs;		/* measured */
	u32 voided;		/* not measured: another task, a switch, too long */
	u32 samples;		/* pairs of epochs that measured something */
	u32 probes;		/* of them, experiments */
	u32 decisions;		/* tlbp_tc_decide() calls */
};

/*
 * R, a full flush's refills in ticks, by least squares over the last
 * TLBP_TC_RING samples, each the difference of two epochs per request:
 * full flushes (dx, x 2^8), pages asked for (dz, x 2^4) and residual
 * ticks (dy), with their sums of products; and its bounds.
 */
struct tlbp_tc_fit {
	s32 dx[TLBP_TC_RING], dz[TLBP_TC_RING], dy[TLBP_TC_RING];
	s64 sxx, szz, sxz, sxy, szy;
	u32 n, head;
	s32 r, r_lo, r_hi;	/* R and its bounds, ticks */
	u8 ok;			/* enough samples: the bounds hold */
};

/*
 * The flushes other CPUs asked this one to execute, in epochs of
 * TLBP_TC_TICK, each paired with the one before: their full flushes vary
 * with the asking CPUs' decisions, and this CPU's time with its refills.
 */
struct tlbp_tc_remote {
	struct tlbp_tc_fit fit;
	u64 now, who;		/* the epoch's start */
	u64 pages;		/* kept one by one in it */
	u32 flushes, fulls;
	s64 dx, dy;		/* the epoch before, per flush */
	u32 samples;		/* pairs of epochs that measured something */
	u32 voided;		/* epochs not measured: a switch, too long */
	u32 epochs;		/* ended, measured or not */
	u8 timing, paired;
	u8 confounded;		/* measured more than refills: no samples since */
};

/* The other CPUs a range reaches, as tlbp_tc_peer_add() sums them. */
struct tlbp_tc_peers {
	u32 n;			/* CPUs */
	u32 unknown;		/* of them, without bounds yet */
	u32 untimed;		/* of them, not timing (or given up) the flushes they execute */
	s64 lo, hi;		/* the sums of the others' bounds of R */
	s64 guess;		/* the unknown ones' first samples' guesses of R */
	u32 epochs;		/* theirs, ended so far */
};

/* Per-CPU state: touched only by its own CPU. */
struct tlbp_tc {
	/* The hook's. */
	u32 fast;		/* keep ranges up to this many entries, no call */
	s32 left;		/* requests until tlbp_tc_tick(): at 0 or below */
	/* What it has learnt: [0] local ranges, [1] remote ones. */
	u32 thr[2];		/* [1]: with the peers of the last remote range */
	u8 why;
	/* Fixed at init. */
	u8 cost_ok;
	u32 invlpg, full;	/* ticks */
	u32 r_max;		/* R past which the cap decides; R at most, before it is measured */
	u32 r_real;		/* R past which it is not refills: every TLB entry refilled */
	u32 stock, cap;
	/* The experiment running. */
	u8 phase;		/* none, its first epoch, its second */
	u8 probing;		/* this epoch decides the band the probe's way */
	u8 probe_first;		/* the first epoch is the probe */
	u8 dir;			/* the probe widens the band (0) or keeps it (1) */
	u8 timing;		/* the epoch has started: t0 holds */
	u32 lo, hi;		/* the band: ranges of lo < entries <= hi */
	u32 band;		/* band ranges decided in this epoch */
	u32 klen;		/* band ranges an epoch of this experiment lasts */
	u32 probed;		/* band ranges decided the probe's way */
	u32 rboot;		/* remote ranges probed while a peer had no bounds */
	u32 repochs;		/* the peers' epochs at the last of them */
	struct tlbp_tc_clock t0;
	s64 dx1, dz1, dy1;	/* the first epoch's, per request */
	s64 dt1, reqs1;		/* its time per request, its requests */
	u64 widened0;		/* widened pages at the epoch's start */
	/* Between experiments: the epochs from tick to tick. */
	u32 quiet;		/* ticks since the last experiment */
	u32 biggest;		/* the largest range asked for lately */
	u32 empty;		/* experiments in a row that measured nothing */
	u8 ticked;		/* tick holds the last tick's clock */
	u8 natural;		/* nat_* hold the epoch before it */
	u8 still;		/* the last two epochs made as many full flushes */
	struct tlbp_tc_clock tick;
	u64 tick_widened;
	s64 nat_dx, nat_dz, nat_dy, nat_dt;
	u64 widened;		/* pages of the ranges it widened, so far */
	struct tlbp_tc_fit fit;	/* R of its own requests */
	struct tlbp_tc_fit exp;	/* the same, of the experiments' samples alone */
	u8 confounded;		/* free samples measured more than refills: none since */
	struct tlbp_tc_remote remote;	/* R of the flushes it executes for others */
	s64 credit;		/* what experiments may still cost, ticks */
	u32 rng;
	struct tlbp_tc_stats stats;
};

/* @seed: anything that differs between CPUs (their number). */
void tlbp_tc_init(struct tlbp_tc *t, const struct tlbp_costs *c, u32 stock, u32 cap, u32 seed);

/* ->left reached 0 (see the contract above). */
void tlbp_tc_tick(struct tlbp_tc *t, const struct tlbp_tc_clock *c);

static inline bool tlbp_tc_wants_clock(const struct tlbp_tc *t)
{
	return t->phase;
}

/*
 * A range of @entries above tlbp_tc_fast(), asked on this CPU; @peers:
 * the other CPUs the flush reaches (NULL: none; with no peer counted,
 * their refills are unknown); @c: the clock, where wanted.  True: keep
 * it; @why says why.
 */
bool tlbp_tc_decide(struct tlbp_tc *t, unsigned long entries, const struct tlbp_tc_peers *peers,
		    const struct tlbp_tc_clock *c, enum tlbp_tc_reason *why);

/* A flush asked for elsewhere, executed here: @pages one by one, or TLBP_FLUSH_ALL. */
void tlbp_tc_executed(struct tlbp_tc *t, unsigned long pages, const struct tlbp_tc_clock *c);

/* @peer's bounds of its refills after flushes it executes for others, into @p. */
static inline void tlbp_tc_peer_add(struct tlbp_tc_peers *p, const struct tlbp_tc *peer)
{
	const struct tlbp_tc_fit *f = &peer->remote.fit;

	p->n++;
	p->untimed += !peer->remote.timing || peer->remote.confounded;
	p->epochs += peer->remote.epochs;
	if (!f->ok) {
		p->unknown++;
		p->guess += f->r > 0 ? f->r : 0;
		return;
	}
	p->lo += f->r_lo;
	p->hi += f->r_hi;
}

/* Quiet: no tick for as long as it stays so (the controller is not deciding). */
#define TLBP_TC_IDLE		0x7fffffff

static inline u32 tlbp_tc_fast(const struct tlbp_tc *t)
{
	return t->fast;
}

/*
 * Ranges of more entries than this (@remote: those reaching other CPUs
 * too) it widens, whatever it is asked: above its threshold, and above
 * an experiment's band.
 */
static inline u32 tlbp_tc_fast_widen(const struct tlbp_tc *t, bool remote)
{
	/* Other peers may keep more than the last ones: below stock, decide. */
	u32 w = remote && t->thr[1] < t->stock ? t->stock : t->thr[remote];

	if (t->phase && (t->dir || !remote) && t->hi > w)
		w = t->hi;
	return w;
}

/* The most entries a decision on this CPU may keep until its next call. */
static inline u32 tlbp_tc_ceiling(const struct tlbp_tc *t)
{
	u32 most = t->thr[0] > t->thr[1] ? t->thr[0] : t->thr[1];

	return t->phase && t->dir && t->hi > most ? t->hi : most;
}

const char *tlbp_tc_why_name(enum tlbp_tc_why why);

#endif /* _TLBPATH_TIMECTL_H */
