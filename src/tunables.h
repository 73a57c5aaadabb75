/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The live policy (tunables.c): what the parameters and sysfs set, kept
 * under one lock, and what each CPU applies now.
 *
 * The hooks read each field once with READ_ONCE(); the writers change one
 * field at a time.  Every mix of old and new values is safe, because every
 * decision is: a kept range is exactly what the caller asked for, and a
 * widened one is a superset.
 *
 * While tlbp_auto is set, tlbp_policy.threshold is unused: each CPU
 * keeps what the stock ceiling keeps, or, with tlbp_use_model and a model
 * (tlbp_model_ready), decides by its own model.
 */
#ifndef _TLBPATH_TUNABLES_H
#define _TLBPATH_TUNABLES_H

#include <linux/percpu.h>
#include "tlbpath/policy.h"

extern struct tlbp_policy tlbp_policy;
extern bool tlbp_auto;
extern bool tlbp_use_model;

/* A cost model exists (x86: calibrated); the architecture sets it, locked. */
extern bool tlbp_model_ready;

/*
 * The hooks are registered passive (they only note where they were
 * called from) and start deciding once tlbp_live is set.
 */
extern bool tlbp_live;

/*
 * Per CPU: the most entries its policy keeps exactly as the stock kernel
 * does (tlbp_policy_fast_keep()); the hook counts such a call and returns.
 */
DECLARE_PER_CPU(u32, tlbp_fast_keep);
/* The same, by the policy alone; the adaptive controllers may lower it. */
DECLARE_PER_CPU(u32, tlbp_policy_fast);
/*
 * Per CPU and path ([0] the flush reaches this CPU alone, [1] others
 * too): the hook widens ranges of more entries with nothing else to
 * weigh.  ~0 unless the time controller set it.
 */
DECLARE_PER_CPU(u32 [2], tlbp_fast_widen);

/* The policy a CPU applies now; @m is that CPU's model, if it has one. */
static __always_inline void tlbp_policy_now(struct tlbp_policy *p,
					    const struct tlbp_model *m)
{
	p->cap = READ_ONCE(tlbp_policy.cap);
	p->stock = READ_ONCE(tlbp_policy.stock);
	p->enabled = READ_ONCE(tlbp_policy.enabled);
	p->model = NULL;
	if (READ_ONCE(tlbp_auto)) {
		p->threshold = p->stock;
		if (READ_ONCE(tlbp_use_model) && READ_ONCE(tlbp_model_ready))
			p->model = m;
	} else {
		p->threshold = READ_ONCE(tlbp_policy.threshold);
	}
}

/* The most entries @cpu may keep in one call now, were tlbpath enabled. */
u32 tlbp_cpu_limit(unsigned int cpu);
/* The threshold in force: the largest limit of any online CPU. */
u32 tlbp_threshold_now(void);

/* What sysfs and the load message show. */
struct tlbp_tunables {
	u32 cap;		/* the threshold never exceeds it */
	u32 stock;		/* the kernel's own limit, found at load */
	bool enabled;
	bool auto_mode;
	bool use_model;
};

struct tlbp_tunables tlbp_tunables_get(void);

/* The writers: each takes the lock and applies the result. */
int tlbp_set_threshold(u32 t);
void tlbp_set_auto(void);
void tlbp_set_model(bool on);
void tlbp_set_enabled(bool on);

/*
 * For what the architecture changes underneath (costs, CPUs): take the
 * lock, change it, then apply the policy and release the lock.
 */
void tlbp_tunables_lock(void);
void tlbp_tunables_apply_unlock(void);

/* Load: the parameters, checked; the stock limit, once found. */
int tlbp_tunables_init(void);
void tlbp_tunables_set_stock(unsigned long stock);

/*
 * Let the hooks decide and apply the policy; and the reverse at unload,
 * where the architecture puts back what it moved (tlbp_arch_restore()).
 */
void tlbp_tunables_start(void);
void tlbp_tunables_stop(void);

#endif /* _TLBPATH_TUNABLES_H */
