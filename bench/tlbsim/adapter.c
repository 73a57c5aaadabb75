// SPDX-License-Identifier: GPL-2.0
/*
 * The one place where tlbsim calls tlbpath's decision code (src/policy.c,
 * linked as it is built into the module): what the module would decide
 * for a flush call, given the CPU's geometry.  When policy.h changes,
 * this file is the one to re-point.
 *
 * Two builds of policy.h are understood:
 *  - tlbp_decide(p, start, end, stride, d) with a threshold only;
 *  - tlbp_decide(p, start, end, stride, footprint, d), where a
 *    calibrated model (tlbp_model_init() from measured costs) may decide
 *    and the footprint is the mm's resident pages (get_mm_rss(), as
 *    src/hook_x86.c passes it).  "tlbpath-model" feeds the model the
 *    simulator's own costs, as if calibration had measured exactly those:
 *    INVLPG, full flush, and a page walk as the refill.
 *
 * The default ("tlbpath") is the adaptive controller of src/adapt.c,
 * one per simulated CPU, fed as the module feeds it (adapt.h's
 * contract): the asking CPU calls tlbp_adapt_decide() above its fast
 * value, and every CPU a flush reaches calls tlbp_adapt_executed() with
 * its own page-walk counter (the simulator's walks) and a clock (the
 * accesses so far), read only when the controller asks for them.  Its
 * costs are the run's, as calibration would measure them.
 */
#include <stdlib.h>
#include <string.h>

#include "tlbsim.h"
#include "tlbpath/policy.h"
#include "tlbpath/adapt.h"

struct state {
	struct tlbp_policy pol;
#ifdef TLBP_FOOTPRINT_UNKNOWN
	struct tlbp_model model;
#endif
};

_Static_assert(sizeof(struct state) <= sizeof(((struct sim_tlbpath *)0)->state),
	       "sim_tlbpath.state too small for policy.c's objects");

void sim_tlbpath_init(struct sim_tlbpath *a, const struct tlbp_geometry *g,
		      const struct sim_costs *c, uint32_t cap, bool model,
		      unsigned int ncpus)
{
	struct state *s = (struct state *)a->state;

	memset(a, 0, sizeof(*a));
	a->model = model;
	if (ncpus && !model) {
		struct tlbp_costs k = {
			.invlpg = c->invlpg, .full = c->full, .refill = c->walk,
		};
		struct tlbp_adapt *cpu = calloc(ncpus, sizeof(*cpu));
		unsigned int i;

		a->adapt = true;
		a->usable = cpu != NULL;
		a->cpus = cpu;
		a->ncpus = cpu ? ncpus : 0;
		for (i = 0; i < a->ncpus; i++)
			tlbp_adapt_init(&cpu[i], g, &k, TLBP_STOCK_CEILING, cap, true);
		a->threshold = TLBP_STOCK_CEILING < cap ? TLBP_STOCK_CEILING : cap;
		return;
	}
	a->threshold = TLBP_STOCK_CEILING < cap ? TLBP_STOCK_CEILING : cap;
	s->pol.threshold = a->threshold;
	s->pol.cap = cap;
	s->pol.stock = TLBP_STOCK_CEILING;
	s->pol.enabled = true;
	a->usable = !model;
#ifdef TLBP_FOOTPRINT_UNKNOWN
	s->pol.model = NULL;
	if (model) {
		struct tlbp_costs k = {
			.invlpg = c->invlpg, .full = c->full, .refill = c->walk,
		};

		if (tlbp_model_init(&s->model, g, &k, cap)) {
			s->pol.model = &s->model;
			a->usable = true;
		}
	}
#else
	(void)c;
#endif
}

/* The policy, pointing at this copy's model (struct sim_tlbpath may be copied). */
static struct tlbp_policy policy_of(const struct sim_tlbpath *a)
{
	const struct state *s = (const struct state *)a->state;
	struct tlbp_policy p = s->pol;

#ifdef TLBP_FOOTPRINT_UNKNOWN
	if (p.model)
		p.model = &s->model;
#endif
	return p;
}

void sim_tlbpath_free(struct sim_tlbpath *a)
{
	free(a->cpus);
	a->cpus = NULL;
	a->ncpus = 0;
}

/* The hook: the fast value first, then the controller with its peers' keep. */
static bool adapt_perpage(struct sim_tlbpath *a, const struct sim_flush_call *c)
{
	struct tlbp_adapt *cpu = a->cpus;
	unsigned long n = (c->end - c->start) >> c->stride_shift;
	enum tlbp_adapt_reason why;
	uint32_t sum = 0, peers = 0;
	unsigned int i;

	if (n <= tlbp_adapt_fast(&cpu[c->cpu]))
		return true;
	for (i = 0; i < c->ncpus && i < a->ncpus; i++)
		if (i != c->cpu && c->reached[i]) {
			sum += tlbp_adapt_keep(&cpu[i]);
			peers++;
		}
	return tlbp_adapt_decide(&cpu[c->cpu], n, sum, peers, &why);
}

void sim_tlbpath_executed(struct sim_tlbpath *a, unsigned int cpu, unsigned long pages,
			  uint64_t walks, uint64_t now)
{
	struct tlbp_adapt *st;

	if (!a->adapt || cpu >= a->ncpus)
		return;
	st = &((struct tlbp_adapt *)a->cpus)[cpu];
	if (tlbp_adapt_wants_count(st, pages))
		tlbp_adapt_executed(st, pages, walks, now, true);
	else
		tlbp_adapt_executed(st, pages, 0, 0, false);
}

void sim_tlbpath_stats(const struct sim_tlbpath *a, struct sim_adapt_stats *s)
{
	const struct tlbp_adapt *cpu = a->cpus;
	unsigned int i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < a->ncpus; i++) {
		s->explore_widen += cpu[i].stats.explore_widen;
		s->explore_keep += cpu[i].stats.explore_keep;
		s->windows += cpu[i].stats.windows;
		if (tlbp_adapt_keep(&cpu[i]) > s->keep_max)
			s->keep_max = tlbp_adapt_keep(&cpu[i]);
		s->fallback += tlbp_adapt_mode(&cpu[i]) != TLBP_ADAPT_ON;
	}
}

bool sim_tlbpath_perpage(struct sim_tlbpath *a, const struct sim_flush_call *c)
{
	struct tlbp_policy p;
	struct tlbp_decision d;

	if (a->adapt)
		return adapt_perpage(a, c);
	p = policy_of(a);

#ifdef TLBP_FOOTPRINT_UNKNOWN
	tlbp_decide(&p, c->start, c->end, c->stride_shift,
		    c->rss ? (unsigned long)c->rss : TLBP_FOOTPRINT_UNKNOWN, &d);
#else
	tlbp_decide(&p, c->start, c->end, c->stride_shift, &d);
#endif
	return d.verdict == TLBP_PERPAGE;
}

uint32_t sim_tlbpath_ceiling(const struct sim_tlbpath *a)
{
	struct tlbp_policy p;

	if (a->adapt) {
		const struct tlbp_adapt *cpu = a->cpus;
		uint32_t max = 0;
		unsigned int i;

		for (i = 0; i < a->ncpus; i++)
			if (tlbp_adapt_ceiling(&cpu[i]) > max)
				max = tlbp_adapt_ceiling(&cpu[i]);
		return max;
	}
	p = policy_of(a);
	return tlbp_policy_ceiling(&p);
}
