// SPDX-License-Identifier: GPL-2.0
/*
 * The time controller (include/tlbpath/timectl.h).  Pure C, no kernel
 * headers, integer only, per-CPU state with one writer; the hook pays a
 * decrement and a comparison per request, the rest runs on the slow path.
 * Why it is built this way: Documentation/adaptive.md.
 *
 * A range of N entries costs N * invlpg kept, full + R widened, R being
 * the refills the full flush forces; invlpg and full are calibrated, R
 * is measured as time.  The requests of a CPU run in epochs; an epoch's
 * residual is its time less the flushes' own cost (invlpg per page kept,
 * full per full flush, by the CPU's counts): the workload's work, its
 * refills and noise.  Two epochs make a sample, their differences per
 * request in full flushes (dx), in pages asked for (dz: the work of a
 * call grows with its range, mprotect()'s PTEs) and in residual (dy):
 * dy = R dx + p dz + noise.  The last TLBP_TC_RING samples give R by least
 * squares, with a standard error, and a threshold leaves stock only as
 * far as the bound of R on the far side allows; above stock, as far as
 * the experiments' samples alone allow too (keep_lo()); below it, no
 * further than theirs where their estimate lies above the upper bound.
 *
 * Samples come from two kinds of pairs.  Between experiments, each tick
 * (TLBP_TC_TICK requests) ends an epoch and pairs it with the one before:
 * whatever full flushes stock's own decisions made, measured at no cost,
 * but not at random (sample() says when they are given up).
 * An experiment takes a band of sizes next to the threshold in force and
 * runs two epochs in random order (a switchback), the probe widening (or,
 * above the threshold, keeping) the band and the other deciding as usual;
 * each lasts from its first band range to TC_TAIL requests after its
 * last, so that refills spilling past a range's own interval still count.
 * Until the band comes (TC_WAIT ticks at most: a program's sizes may
 * sweep) nothing is decided otherwise, so the free epochs go on, and a
 * sample they bring plans the experiment anew.
 * Experiments are paid from a credit of 1/64 of the time flushing takes
 * (the flushes, and R for each full flush): the probe is charged what its
 * epoch cost more than the other, and refunded what it saved, within what
 * its band ranges can have cost at the R the bounds allow; an experiment
 * cut short after its probe ran is charged too.
 *
 * A range that reaches other CPUs costs them their own refills, which
 * this CPU cannot time.  Each CPU times them itself, on the flushes it
 * executes for others (tlbp_tc_executed(): epochs of them, paired as the
 * natural ones), and the asking CPU decides with the bounds every CPU
 * reached has measured; while one has not, never below stock.
 * Experiments widen such ranges too, where the others time them: at
 * their upper bounds, charged at once, or, before they have bounds, one
 * range at a time and TLBP_TC_RBOOT at most, so that they can measure
 * what stock's own decisions below its ceiling never show them.
 */
#include "tlbpath/timectl.h"
#include "tlbpath/ratio.h"

#define TC_MIN		3	/* samples before the estimate decides */
#define TC_KMIN		1	/* band ranges of an experiment's epoch, at the least */
#define TC_Z		3	/* bounds: the estimate +- 3 standard errors */
#define TC_CREDIT_SHIFT	6	/* experiments cost at most 1/64 of flushing's time */
#define TC_WAIT		8	/* ticks an experiment waits for its band */
#define TC_TAIL		2	/* an epoch's requests after its last band range */
#define TC_EPOCH_MAX	BIT_ULL(34)	/* longer: the task slept, not measured */
#define TC_DY_MAX	((s64)1 << 30)
#define TC_DX_SHIFT	8	/* dx per request, x 2^8 */
#define TC_DZ_SHIFT	4	/* dz per request, x 2^4 */
#define TC_ENTRIES_MAX	4096	/* entries whose refills R can hold (fit_implausible()) */

enum { TC_NONE, TC_FIRST, TC_SECOND };

static u32 xorshift(u32 *s)
{
	u32 x = *s;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*s = x;
	return x;
}

static s64 clamp_s64(s64 v, s64 lo, s64 hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* @num / @den for 128-bit operands whose quotient fits: both shifted until den does. */
static s64 div128(__int128 num, __int128 den)
{
	while (den > ((__int128)1 << 62) || num > ((__int128)1 << 62) ||
	       num < -((__int128)1 << 62)) {
		num /= 2;
		den /= 2;
	}
	return den > 0 ? (s64)num / (s64)den : 0;
}

/* The break-even entries for @r ticks of refill: (full + r) / invlpg, at most cap. */
static u32 threshold_for(const struct tlbp_tc *t, s64 r)
{
	u64 cost = (u64)t->full + (u64)clamp_s64(r, 0, t->r_max);

	return tlbp_min_u32(tlbp_ratio(cost, t->invlpg), t->cap);
}

/* Ranges above fast reach tlbp_tc_decide(): during an experiment, the band's too. */
static void set_fast(struct tlbp_tc *t)
{
	t->fast = tlbp_min_u32(t->thr[0], t->thr[1]);
	if (t->phase)
		t->fast = tlbp_min_u32(t->fast, t->lo);
}

/*
 * R from @f's samples, and its bounds: dy = bx dx + bz dz through 0, by
 * the normal equations; where dz tells nothing apart from dx (always 0,
 * or in step with it), dx alone.  R = bx x 2^TC_DX_SHIFT.  Before
 * TC_MIN samples R is unbounded, [0, r_max], and R the first samples'
 * guess by dx alone.
 */
static void fit_solve(struct tlbp_tc_fit *f, s64 r_max)
{
	__int128 det, vnum;
	s64 bx, bz, e, most = 0, se;
	unsigned int shift = 0, k;
	u64 ss = 0;
	bool two;
	u32 i;

	f->ok = 0;
	if (f->n < TC_MIN || !f->sxx) {
		f->r = f->sxx ? (s32)clamp_s64((f->sxy << TC_DX_SHIFT) / f->sxx, -TC_DY_MAX,
					      TC_DY_MAX) : 0;
		f->r_lo = 0;
		f->r_hi = (s32)r_max;
		return;
	}
	det = (__int128)f->sxx * f->szz - (__int128)f->sxz * f->sxz;
	two = f->szz && det > (__int128)f->sxx * f->szz / 16;
	if (two) {
		bx = div128(((__int128)f->szz * f->sxy - (__int128)f->sxz * f->szy) << TC_DX_SHIFT,
			    det);
		bz = div128((__int128)f->sxx * f->szy - (__int128)f->sxz * f->sxy, det);
	} else {
		bx = (f->sxy << TC_DX_SHIFT) / f->sxx;
		bz = 0;
	}
	k = two ? 2 : 1;
	if (f->n <= k)
		return;
	/* var(R) = sum(e^2) / (n - k) x (szz / det or 1 / sxx) x 2^(2 DX_SHIFT) */
	for (i = 0; i < f->n; i++) {
		e = f->dy[i] - ((bx * f->dx[i]) >> TC_DX_SHIFT) - bz * f->dz[i];
		most = e > most ? e : -e > most ? -e : most;
	}
	while (most >> shift >= ((s64)1 << 28))
		shift++;
	for (i = 0; i < f->n; i++) {
		e = (f->dy[i] - ((bx * f->dx[i]) >> TC_DX_SHIFT) - bz * f->dz[i]) >> shift;
		ss += (u64)(e * e);
	}
	vnum = (__int128)(ss / (f->n - k)) << (2 * TC_DX_SHIFT);
	se = (s64)tlbp_isqrt((u64)div128(two ? vnum * f->szz : vnum, two ? det : f->sxx)) << shift;
	/* Past r_max too: the thresholds stop at the cap, what probes cost does not. */
	f->r = (s32)clamp_s64(bx, -TC_DY_MAX, TC_DY_MAX);
	f->r_lo = (s32)clamp_s64(bx - TC_Z * se, 0, TC_DY_MAX);
	f->r_hi = (s32)clamp_s64(bx + TC_Z * se, 0, TC_DY_MAX);
	f->ok = 1;
}

/*
 * @f emptied: ok is cleared first, by fit_solve(), and the bounds left
 * at [0, r_max], so that a peer reading it racily meanwhile never takes
 * old bounds for new ones.
 */
static void fit_empty(struct tlbp_tc_fit *f, s64 r_max)
{
	f->n = 0;
	fit_solve(f, r_max);
	f->head = 0;
	f->sxx = 0;
	f->szz = 0;
	f->sxz = 0;
	f->sxy = 0;
	f->szy = 0;
}

/*
 * @f's estimate lies past what refilling TC_ENTRIES_MAX entries could
 * cost, each at an INVLPG's cost or the calibrated refill's, whichever is
 * more (the largest TLB, Zen 5's, holds 4096 + 96, and a walk through
 * cached page tables costs less than either): its samples measure
 * something else than refills.
 */
static bool fit_implausible(const struct tlbp_tc_fit *f, u32 r_real)
{
	return f->ok && f->r > (s64)r_real;
}

/* A sample into @f: the oldest leaves the sums once the ring is full. */
static void fit_add(struct tlbp_tc_fit *f, s64 dx, s64 dz, s64 dy)
{
	u32 i = f->head;

	dy = clamp_s64(dy, -TC_DY_MAX, TC_DY_MAX);
	if (f->n == TLBP_TC_RING) {
		f->sxx -= (s64)f->dx[i] * f->dx[i];
		f->szz -= (s64)f->dz[i] * f->dz[i];
		f->sxz -= (s64)f->dx[i] * f->dz[i];
		f->sxy -= (s64)f->dx[i] * f->dy[i];
		f->szy -= (s64)f->dz[i] * f->dy[i];
	} else {
		f->n++;
	}
	f->dx[i] = (s32)dx;
	f->dz[i] = (s32)dz;
	f->dy[i] = (s32)dy;
	f->sxx += dx * dx;
	f->szz += dz * dz;
	f->sxz += dx * dz;
	f->sxy += dx * dy;
	f->szy += dz * dy;
	f->head = (i + 1) % TLBP_TC_RING;
}

/*
 * The lower bound of R that keeping more than stock may go by.  Free
 * samples are observational, and what a program does around its full
 * flushes (faulting fresh memory in after an exec or a large munmap())
 * makes them claim refills that are not there, which keeping more than
 * stock pays for with an INVLPG a page.  So the experiments' samples,
 * whose decisions are random, must bound R that high too (once the free
 * samples are given up, the two fits hold the same samples).  Theirs
 * goes by the full flushes alone (sample()).
 */
static s64 keep_lo(const struct tlbp_tc *t)
{
	if (!t->exp.ok)
		return 0;
	return t->fit.r_lo < t->exp.r_lo ? t->fit.r_lo : t->exp.r_lo;
}

/*
 * The thresholds from R's bounds.  Local ranges: widened above the upper
 * bound's threshold where that is below stock, kept up to keep_lo()'s
 * where that is above, else stock.  Where the experiments' estimate lies
 * above the upper bound of all samples, the free ones are fooled (a
 * program's small ranges may come with more work than its large ones)
 * or a phase has moved R: widening goes no further than the experiments'
 * upper bound allows.  Remote ranges, until their peers are
 * known (remote_threshold()), as if no other CPU refilled anything,
 * which only ever makes a full flush dearer: kept up to keep_lo()'s
 * threshold, and never fewer than stock.
 */
static void estimate(struct tlbp_tc *t)
{
	const struct tlbp_tc_fit *f = &t->fit;
	u32 keep, widen;

	fit_solve(&t->fit, t->r_max);
	t->why = f->ok ? TLBP_TC_OK : TLBP_TC_LEARNING;
	t->thr[0] = t->stock;
	t->thr[1] = t->stock;
	if (!f->ok)
		return;
	keep = threshold_for(t, keep_lo(t));
	widen = threshold_for(t, f->r_hi);
	if (t->exp.ok && t->exp.r > f->r_hi)
		widen = tlbp_max_u32(widen, threshold_for(t, t->exp.r_hi));
	if (widen < t->stock)
		t->thr[0] = widen;
	else if (keep > t->stock)
		t->thr[0] = keep;
	t->thr[1] = tlbp_max_u32(keep, t->stock);
}

/*
 * A range reaching @p's CPUs too: each of the m CPUs executes the flush,
 * so keeping N entries costs m N invlpg, widening m full plus every CPU's
 * refills, this one's and the others' (tlbp_tc_executed()).  Widened
 * above the threshold of the sum of the upper bounds where that is below
 * stock and every peer has bounds; else kept up to the threshold of the
 * lower bounds' sum, never fewer than stock.  Without peers to ask (they
 * run no code for the flush), estimate()'s rule, whatever the last peers
 * said.
 */
static u32 remote_threshold(const struct tlbp_tc *t, const struct tlbp_tc_peers *p)
{
	u64 m = (u64)p->n + 1, unit = m * t->invlpg, hi, lo;

	if (t->why != TLBP_TC_OK)
		return t->stock;
	if (!p->n)
		return tlbp_max_u32(threshold_for(t, keep_lo(t)), t->stock);
	hi = m * t->full + (u64)t->fit.r_hi + (u64)p->hi;
	if (!p->unknown && hi < t->stock * unit)
		return tlbp_ratio(hi, unit);
	lo = m * t->full + (u64)keep_lo(t) + (u64)p->lo;
	return tlbp_max_u32(tlbp_min_u32(tlbp_ratio(lo, unit), t->cap), t->stock);
}

/*
 * A sample: the differences of two epochs, per request; @observed: a free
 * one.  Free samples are observational: a program's time may vary with
 * stock's decisions for reasons other than refills (the fresh memory it
 * faults in after a large munmap()).  Where fit_implausible(), the fit is
 * emptied, and the free samples given up for good: experiments alone go
 * on (theirs too can be that far off, from a few samples of a program's
 * phases).
 */
static void sample(struct tlbp_tc *t, s64 dx, s64 dz, s64 dy, bool observed)
{
	fit_add(&t->fit, dx, dz, dy);
	t->stats.samples++;
	/*
	 * An experiment's epochs differ in its band's decisions, at random,
	 * and by chance in the rest: a full flush asked for, and the work
	 * after it, land in one of them.  Fit through dz too, 3 such samples
	 * can be matched almost exactly, and the bounds say nothing.
	 */
	if (!observed) {
		fit_add(&t->exp, dx, 0, dy);
		fit_solve(&t->exp, t->r_max);
	}
	estimate(t);
	if (fit_implausible(&t->fit, t->r_real)) {
		t->confounded |= observed;
		fit_empty(&t->fit, t->r_max);
		fit_empty(&t->exp, t->r_max);
		estimate(t);
	}
	set_fast(t);
}

/*
 * An epoch from @s to @c: false if not measurable (another task, a
 * switch, a long sleep, counters reset).  Else its per-request full
 * flushes, pages asked for, residual and time, and the credit its
 * flushing earns.
 */
static bool measure(struct tlbp_tc *t, const struct tlbp_tc_clock *s, u64 widened0,
		    const struct tlbp_tc_clock *c, s64 *dx, s64 *dz, s64 *dy, s64 *dt,
		    s64 *reqs)
{
	s64 nf, kept, flushing, bank;

	if (c->who != s->who || c->now - s->now >= TC_EPOCH_MAX || c->requests <= s->requests ||
	    c->pages < s->pages || c->fulls < s->fulls) {
		t->stats.voided++;
		return false;
	}
	t->stats.epochs++;
	*reqs = (s64)(c->requests - s->requests);
	nf = (s64)(c->fulls - s->fulls);
	kept = (s64)(c->pages - s->pages);
	*dt = (s64)(c->now - s->now);
	flushing = (s64)t->invlpg * kept + (s64)t->full * nf;
	*dx = (nf << TC_DX_SHIFT) / *reqs;
	*dz = ((kept + (s64)(t->widened - widened0)) << TC_DZ_SHIFT) / *reqs;
	*dy = (*dt - flushing) / *reqs;
	*dt /= *reqs;
	/* Flushing's time earns credit: the flushes, and R each full flush... */
	flushing += (s64)t->fit.r_lo * nf;
	t->credit += flushing >> TC_CREDIT_SHIFT;
	/* ...a tick's worth of it banked at most. */
	bank = flushing / *reqs * TLBP_TC_TICK;
	if (t->credit > bank)
		t->credit = bank;
	return true;
}

static void start(struct tlbp_tc *t);

/* What a range of @entries decided the probe's way costs more, at R = @r. */
static s64 range_cost(const struct tlbp_tc *t, u32 entries, s64 r)
{
	s64 keep_more = (s64)entries * t->invlpg - t->full - r;

	return t->dir ? keep_more : -keep_more;
}

/*
 * What a band range decided the probe's way costs more than decided as
 * usual, at the least and at the most the bounds of R allow.
 */
static void band_cost(const struct tlbp_tc *t, s64 *least, s64 *most)
{
	/*
	 * The band's smallest range at R's upper bound, its largest at the
	 * lower, which for keeping more is keep_lo()'s: the free samples'
	 * can claim refills that are not there.
	 */
	s64 smallest = range_cost(t, t->lo + 1, t->fit.r_hi);
	s64 largest = range_cost(t, t->hi, t->dir ? keep_lo(t) : t->fit.r_lo);

	/* Keeping costs the most on the largest, widening on the smallest. */
	*least = t->dir ? smallest : largest;
	*most = t->dir ? largest : smallest;
}

/* The experiment is over; the next may start at once, if the credit allows. */
static void stop(struct tlbp_tc *t)
{
	t->phase = TC_NONE;
	t->quiet = 0;
	t->ticked = 0;
	set_fast(t);
	start(t);
}

/*
 * Before R is bounded: whether each of the free samples so far (two at
 * least, and no experiment's among them) says a full flush costs more
 * than keeping the threshold's ranges.  A probe down would then most
 * likely pay a whole R a range for a sample that moves nothing.
 */
static bool guess_up(const struct tlbp_tc *t)
{
	const struct tlbp_tc_fit *f = &t->fit;
	u32 i;

	if (f->n < 2 || t->exp.n)
		return false;
	for (i = 0; i < f->n; i++) {
		s64 dx = f->dx[i], dy = f->dy[i];

		if (dx < 0) {
			dx = -dx;
			dy = -dy;
		}
		if (!dx || threshold_for(t, (dy << TC_DX_SHIFT) / dx) <= t->thr[0])
			return false;
	}
	return true;
}

/*
 * An experiment may start: the credit is positive, it has been quiet for
 * long enough (longer after experiments that measured nothing), R is
 * bounded or the last free pair measured nothing (or the free samples
 * were given up: experiments alone can bound it), and the thresholds the
 * bounds of R allow, or half and twice the one in force (a phase may
 * have moved R; half the largest range asked for lately, where that is
 * less), lie on a side of it; unbounded, no lower than half the one in
 * force, and half as far again after each experiment that measured
 * nothing, and not down at all where guess_up().  Down, the probe widens
 * the ranges above the lower one.  Up, it keeps them up to the upper
 * one, but no further than TC_KMIN such ranges kept cost what the credit
 * holds (keeping costs what it costs, whatever R), nor than the largest
 * range asked for lately.  An epoch decides as many band ranges as the
 * credit pays for at the worst the bounds of R allow, at least TC_KMIN:
 * a probe with R unbounded risks TC_KMIN full flushes' refills.
 */
static void start(struct tlbp_tc *t)
{
	u32 keep = threshold_for(t, t->fit.r_lo), lo = keep, hi = threshold_for(t, t->fit.r_hi);
	bool down, up;
	s64 least, worst;
	u64 pay;

	if (t->credit <= 0 || t->quiet + 1 < (1U << tlbp_min_u32(t->empty, 6)))
		return;
	/* Unbounded, experiment only where free samples no longer come. */
	if (!t->fit.ok && !t->still && !t->confounded)
		return;
	/*
	 * Beyond the bounds too, by a factor of 2 of the threshold (or of
	 * the largest range asked for lately, below it): a phase may have
	 * moved R.
	 */
	lo = tlbp_min_u32(lo, tlbp_min_u32(t->thr[0], t->biggest) / 2);
	hi = tlbp_max_u32(hi, 2 * t->thr[0] + 2);
	/*
	 * Unbounded, a probe risks R at each range: only those near the
	 * threshold, half of it, and half as far again after each
	 * experiment that found no range there or measured nothing.
	 */
	if (!t->fit.ok)
		lo = tlbp_max_u32(lo, t->thr[0] >> tlbp_min_u32(t->empty + 1, 31));
	/* Nor where every free sample so far says widening costs more. */
	if (!t->fit.ok && guess_up(t))
		lo = t->thr[0];
	pay = (u64)t->credit / TC_KMIN + t->full + (u64)t->fit.r_lo;
	hi = tlbp_min_u32(tlbp_min_u32(hi, tlbp_ratio(pay, t->invlpg)), t->biggest);
	down = lo < t->thr[0];
	up = hi > t->thr[0];
	/*
	 * Free samples that bound R above the threshold move it up only once
	 * the experiments bound R too (keep_lo()): until then, up alone.
	 */
	if (t->fit.ok && !t->exp.ok && keep > t->thr[0])
		down &= !up;
	if (!down && !up)
		return;
	t->dir = down && up ? !t->dir : up;
	t->lo = t->dir ? t->thr[0] : lo;
	t->hi = t->dir ? hi : t->thr[0];
	band_cost(t, &least, &worst);
	t->klen = worst > 0 ? (u32)clamp_s64(t->credit / worst, TC_KMIN, TLBP_TC_EPOCH) :
		  TLBP_TC_EPOCH;
	t->phase = TC_FIRST;
	t->probe_first = xorshift(&t->rng) & 1;
	t->probing = t->probe_first;
	t->timing = 0;
	t->band = 0;
	t->probed = 0;
	t->quiet = 0;
	set_fast(t);
}

void tlbp_tc_init(struct tlbp_tc *t, const struct tlbp_costs *c, u32 stock, u32 cap, u32 seed)
{
	*t = (struct tlbp_tc){ 0 };
	t->stock = tlbp_min_u32(stock, cap);
	t->cap = cap;
	t->invlpg = c->invlpg;
	t->full = c->full;
	t->rng = seed * 2654435761U + 1;
	/* A full flush costing more than keeping the cap's worth of pages: the cap decides. */
	t->r_max = (u32)tlbp_min_u64((u64)cap * c->invlpg, 1U << 30);
	t->cost_ok = c->invlpg && c->full;
	t->r_real = (u32)tlbp_min_u64((u64)TC_ENTRIES_MAX * tlbp_max_u32(c->refill, c->invlpg),
				      1U << 30);
	t->left = TLBP_TC_TICK;
	estimate(t);
	if (!t->cost_ok)
		t->why = TLBP_TC_NO_COSTS;
	set_fast(t);
}

/*
 * What an experiment's probe cost more than the other epoch, as
 * @measured, but no more and no less than the band ranges it decided
 * (klen, and those in the epoch's tail) can have cost at the R the
 * bounds allow (now that they hold its sample): the noise of two epochs'
 * times is no cost, and a credit that paid for it would stall the
 * experiments for good.
 */
static s64 charge(const struct tlbp_tc *t, s64 measured)
{
	s64 least, most;

	band_cost(t, &least, &most);
	return clamp_s64(measured, least * t->probed, most * t->probed);
}

/*
 * An experiment cut short (a switch, its band gone) after its probe ran
 * is charged too, or each cut would buy a probe for free.  With R
 * bounded, what a band range costs at the estimate of R (a range in the
 * band's middle): another task's time in a cut epoch says nothing of the
 * probe.  A probe that kept more, at the experiments' estimate where
 * that is lower: the free samples' may hold what comes with full flushes,
 * and cut probes refunded at it paid for others.  Before R is bounded, the
 * probe's epoch's own time, less the other epoch's per request (without
 * it, the last natural epoch's), which another task's time only makes
 * dearer.
 */
static void unpaired(struct tlbp_tc *t, const struct tlbp_tc_clock *c)
{
	s64 reqs = t->reqs1, dt = t->dt1 * t->reqs1, base = t->nat_dt;

	if (t->probing ? !t->timing : t->phase == TC_FIRST)
		return;
	if (t->fit.ok) {
		s64 r = t->dir && t->exp.ok && t->exp.r < t->fit.r ? t->exp.r : t->fit.r;

		t->credit -= range_cost(t, (t->lo + 1 + t->hi) / 2, r) * t->probed;
		return;
	}
	if (t->probing) {
		reqs = (s64)(c->requests - t->t0.requests);
		dt = (s64)(c->now - t->t0.now);
		if (t->phase == TC_SECOND)
			base = t->dt1;
	}
	/* Nothing to go by (slept, counters reset): the most it can have cost. */
	if (reqs <= 0 || dt < 0 || dt >= (s64)TC_EPOCH_MAX || !base) {
		dt = (s64)1 << 62;
		reqs = 0;
	}
	t->credit -= charge(t, dt - base * reqs);
}

/* The end of an experiment's epoch: TC_TAIL requests after its last band range. */
static void end_epoch(struct tlbp_tc *t, const struct tlbp_tc_clock *c)
{
	s64 dx, dz, dy, dt, reqs, sign;

	if (!measure(t, &t->t0, t->widened0, c, &dx, &dz, &dy, &dt, &reqs)) {
		unpaired(t, c);
		stop(t);
		return;
	}
	if (t->phase == TC_FIRST) {
		t->dx1 = dx;
		t->dz1 = dz;
		t->dy1 = dy;
		t->dt1 = dt;
		t->reqs1 = reqs;
		t->phase = TC_SECOND;
		t->probing = !t->probing;
		t->timing = 0;
		t->band = 0;
		t->quiet = 0;
		return;
	}
	sign = t->probing ? 1 : -1;
	if (dx != t->dx1) {
		t->empty = 0;
		t->stats.probes++;
		sample(t, sign * (dx - t->dx1), sign * (dz - t->dz1), sign * (dy - t->dy1),
		       false);
		/* What the probe cost more than the other epoch is paid, what it saved refunded. */
		t->credit -= charge(t, sign * (dt - t->dt1) * (t->probing ? reqs : t->reqs1));
	} else if (t->empty < 255) {
		t->empty++;
	}
	stop(t);
}

/*
 * Between experiments: the epoch since the last tick, paired with the one
 * before.  True: the pair made a sample.
 */
static bool natural(struct tlbp_tc *t, const struct tlbp_tc_clock *c)
{
	s64 dx, dz, dy, dt, reqs;
	bool sampled = false;

	if (t->ticked && measure(t, &t->tick, t->tick_widened, c, &dx, &dz, &dy, &dt, &reqs)) {
		if (t->natural) {
			t->still = dx == t->nat_dx;
			sampled = !t->still && !t->confounded;
			if (sampled)
				sample(t, dx - t->nat_dx, dz - t->nat_dz, dy - t->nat_dy, true);
		}
		t->natural = 1;
		t->nat_dx = dx;
		t->nat_dz = dz;
		t->nat_dy = dy;
		t->nat_dt = dt;
	} else {
		t->natural = 0;
	}
	t->ticked = 1;
	t->tick = *c;
	t->tick_widened = t->widened;
	return sampled;
}

void tlbp_tc_tick(struct tlbp_tc *t, const struct tlbp_tc_clock *c)
{
	t->left = TLBP_TC_TICK;
	if (!t->cost_ok)
		return;
	if (t->phase && t->timing && t->band >= t->klen) {
		end_epoch(t, c);
		return;
	}
	if (t->phase) {
		/*
		 * Until its band comes, it decides as usual: the free epochs go
		 * on, and a sample they bring plans the experiment anew.
		 */
		if (t->phase == TC_FIRST && !t->timing && natural(t, c)) {
			t->phase = TC_NONE;
			set_fast(t);
			start(t);
			return;
		}
		/* A band that does not come: give up, and wait longer next time. */
		if (++t->quiet >= TC_WAIT) {
			if (t->empty < 255)
				t->empty++;
			unpaired(t, c);
			stop(t);
		}
		return;
	}
	natural(t, c);
	if (t->quiet < 0xffff)
		t->quiet++;
	start(t);
	/* The largest range asked for lately: it halves every 4 ticks. */
	if (!(t->quiet & 3))
		t->biggest >>= 1;
}

/*
 * A probe may widen a range that reaches other CPUs where each times the
 * flushes it executes: stock keeps every range below its ceiling, and
 * without a probe those CPUs would never execute a full flush to measure.
 * Their part is charged at the upper bounds they measured (this CPU's
 * epochs time its own part alone), while the credit lasts; before every
 * one has bounds, TLBP_TC_RBOOT such ranges at most.
 */
static bool remote_probe_ok(const struct tlbp_tc *t, const struct tlbp_tc_peers *p)
{
	u64 m = (u64)p->n + 1;

	if (!p->n || p->untimed)
		return false;
	if (!p->unknown)
		return t->credit > 0;
	/*
	 * One at a time, each once the peers have ended the epoch of the last, and
	 * not once their first samples say widening cannot pay below stock.
	 */
	return t->rboot < TLBP_TC_RBOOT && t->band < t->klen &&
	       (!t->rboot || p->epochs != t->repochs) &&
	       m * t->full + (u64)keep_lo(t) + (u64)(p->lo + p->guess) <
	       m * t->invlpg * t->stock;
}

/* A remote range a probe widened: the other CPUs' part of its cost. */
static void remote_charge(struct tlbp_tc *t, unsigned long entries, const struct tlbp_tc_peers *p)
{
	if (p->unknown) {
		t->rboot++;
		t->repochs = p->epochs;
	} else {
		t->credit -= (s64)p->n * ((s64)t->full - (s64)entries * t->invlpg) + p->hi;
	}
}

bool tlbp_tc_decide(struct tlbp_tc *t, unsigned long entries, const struct tlbp_tc_peers *peers,
		    const struct tlbp_tc_clock *c, enum tlbp_tc_reason *why)
{
	bool in_band, keep, remote = peers;

	t->stats.decisions++;
	if (remote) {
		u32 thr = remote_threshold(t, peers);

		if (thr != t->thr[1]) {
			t->thr[1] = thr;
			set_fast(t);
		}
	}
	*why = t->why == TLBP_TC_OK ? TLBP_TC_R_TIMED : TLBP_TC_R_STOCK;
	if (entries > t->biggest)
		t->biggest = (u32)tlbp_min_u64(entries, t->cap);
	/*
	 * The band: ranges above the threshold, or below it; remote ones
	 * below theirs, within half of it (a factor of 2, as local ones go
	 * beyond the bounds), where their probe can be paid.
	 */
	in_band = t->phase && entries > t->lo &&
		  (t->dir ? entries <= t->hi && entries > t->thr[remote] :
		   !remote ? entries <= t->hi :
		   entries <= t->thr[1] && 2 * entries > t->thr[1] && remote_probe_ok(t, peers));
	if (!in_band) {
		keep = entries <= t->thr[remote];
	} else {
		if (!t->timing) {
			t->timing = 1;
			t->ticked = 0;
			t->t0 = *c;
			t->widened0 = t->widened;
			t->quiet = 0;
		}
		/*
		 * The epoch ends TC_TAIL requests after its last band range; a
		 * remote one whose CPUs have no bounds is the last, so that each
		 * full flush it makes them execute lands in an epoch of their own.
		 */
		if (remote && peers->unknown && t->band + 1 < t->klen)
			t->band = t->klen - 1;
		if (++t->band == t->klen)
			t->left = TC_TAIL;
		keep = entries <= t->thr[remote];
		if (t->probing) {
			keep = t->dir;
			t->probed++;
			*why = TLBP_TC_R_PROBE;
			if (remote && !keep)
				remote_charge(t, entries, peers);
		}
	}
	if (!keep)
		t->widened += entries;
	return keep;
}

/*
 * The flushes other CPUs ask this one to execute, timed on this CPU: an
 * epoch of TLBP_TC_TICK of them, from the end of one to the end of the
 * last, less the flushes' own cost, per flush, paired with the epoch
 * before.  What varies between the two is how many the asking CPUs
 * widened (their thresholds, stock's ranges above 33) and, with it, the
 * refills here.  An epoch another task or a switch broke is not measured.
 */
void tlbp_tc_executed(struct tlbp_tc *t, unsigned long pages, const struct tlbp_tc_clock *c)
{
	struct tlbp_tc_remote *x = &t->remote;
	s64 dt, dx, dy;

	if (!t->cost_ok)
		return;
	if (x->timing && c->who == x->who) {
		x->flushes++;
		if (pages == TLBP_FLUSH_ALL)
			x->fulls++;
		else
			x->pages += pages;
		if (x->flushes < TLBP_TC_TICK)
			return;
		dt = (s64)(c->now - x->now);
		if (c->now - x->now < TC_EPOCH_MAX) {
			dx = ((s64)x->fulls << TC_DX_SHIFT) / TLBP_TC_TICK;
			dy = (dt - (s64)t->invlpg * (s64)x->pages - (s64)t->full * x->fulls) /
			     TLBP_TC_TICK;
			if (x->paired && dx != x->dx && !x->confounded) {
				fit_add(&x->fit, dx - x->dx, 0, dy - x->dy);
				fit_solve(&x->fit, t->r_max);
				x->samples++;
				/* Given up, nothing relearns it: stock or more for the peers. */
				if (fit_implausible(&x->fit, t->r_real)) {
					x->confounded = 1;
					fit_empty(&x->fit, t->r_max);
				}
			}
			x->paired = 1;
			x->dx = dx;
			x->dy = dy;
		} else {
			x->voided++;
			x->paired = 0;
		}
	} else {
		/* Another task ran here, or this one slept: not this epoch's time. */
		x->voided += x->timing;
		x->paired = 0;
	}
	x->epochs += x->timing;
	x->timing = 1;
	x->now = c->now;
	x->who = c->who;
	x->flushes = 0;
	x->fulls = 0;
	x->pages = 0;
}

const char *tlbp_tc_why_name(enum tlbp_tc_why why)
{
	switch (why) {
	case TLBP_TC_OK:
		return "measured";
	case TLBP_TC_LEARNING:
		return "learning";
	case TLBP_TC_NO_COSTS:
		return "no-costs";
	}
	return "?";
}
