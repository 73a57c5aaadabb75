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
 *    src/hook.c passes it).  "tlbpath-model" feeds the model the
 *    simulator's own costs, as if calibration had measured exactly those:
 *    INVLPG, full flush, and a page walk as the refill.
 */
#include <string.h>

#include "tlbsim.h"
#include "tlbpath/policy.h"

struct state {
	struct tlbp_policy pol;
#ifdef TLBP_FOOTPRINT_UNKNOWN
	struct tlbp_model model;
#endif
};

_Static_assert(sizeof(struct state) <= sizeof(((struct sim_tlbpath *)0)->state),
	       "sim_tlbpath.state too small for policy.c's objects");

void sim_tlbpath_init(struct sim_tlbpath *a, const struct tlbp_geometry *g,
		      const struct sim_costs *c, uint32_t cap, bool model)
{
	struct state *s = (struct state *)a->state;

	memset(a, 0, sizeof(*a));
	a->model = model;
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

bool sim_tlbpath_perpage(const struct sim_tlbpath *a, const struct sim_flush_call *c)
{
	struct tlbp_policy p = policy_of(a);
	struct tlbp_decision d;

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
	struct tlbp_policy p = policy_of(a);

	return tlbp_policy_ceiling(&p);
}
