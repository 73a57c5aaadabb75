// SPDX-License-Identifier: GPL-2.0
/*
 * The live policy (tunables.h): the parameters, the setters behind the
 * sysfs files, and applying the result to every CPU and to what the
 * architecture keeps in step with it (x86: the kernel's flush ceiling).
 * Everything that changes the policy or its inputs holds tlbp_lock.
 */
#include <linux/cpumask.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include "arch.h"
#include "tunables.h"

static int threshold = -1;
module_param(threshold, int, 0444);
MODULE_PARM_DESC(threshold, "Most pages flushed one by one (-1: derive from the TLB geometry)");

static bool enabled = true;
module_param(enabled, bool, 0444);
MODULE_PARM_DESC(enabled, "Apply the policy (0: decide as the stock kernel, still counting)");

static unsigned int cap = TLBP_CAP_DEFAULT;
module_param(cap, uint, 0444);
MODULE_PARM_DESC(cap, "Hard limit for threshold, in pages (1-" __stringify(TLBP_CAP_LIMIT) ")");

static bool model;
module_param(model, bool, 0444);
MODULE_PARM_DESC(model, "In auto mode, let the calibrated model keep ranges above the stock ceiling");

DEFINE_PER_CPU(u32, tlbp_fast_keep);
DEFINE_PER_CPU(u32, tlbp_policy_fast);
DEFINE_PER_CPU(u32 [2], tlbp_fast_widen) = { U32_MAX, U32_MAX };
struct tlbp_policy tlbp_policy;
bool tlbp_auto;
bool tlbp_use_model;
bool tlbp_model_ready;
bool tlbp_live;

/* Serialises the writers of the policy, of its inputs, and of the ceiling. */
static DEFINE_MUTEX(tlbp_lock);

/* The one test of a threshold against the cap (parameter and sysfs). */
static bool threshold_fits(long t)
{
	return t >= 0 && t <= tlbp_policy.cap;
}

/*
 * Each CPU's fast limit from the policy, then let the architecture follow
 * the largest per-page count the policy can choose now (x86: the kernel's
 * ceiling, so that the kernel keeps every range we keep, and paths we do
 * not hook, cpa_flush() for one, follow the same threshold).  The hooks
 * decide with preemption off: after a grace period none decides or
 * counts by the old policy, so a write takes effect when it returns.
 */
static void apply(void)
{
	struct tlbp_policy p = tlbp_policy;
	int cpu;

	lockdep_assert_held(&tlbp_lock);
	if (!tlbp_live)
		return;
	for_each_possible_cpu(cpu) {
		struct tlbp_policy now;
		u32 fast;

		tlbp_policy_now(&now, tlbp_arch_model(cpu));
		fast = tlbp_policy_fast_keep(&now);
		WRITE_ONCE(per_cpu(tlbp_policy_fast, cpu), fast);
		WRITE_ONCE(per_cpu(tlbp_fast_keep, cpu), fast);
	}
	p.threshold = tlbp_threshold_now();
	p.model = NULL;
	tlbp_arch_follow(tlbp_policy_ceiling(&p));
	synchronize_rcu();
}

u32 tlbp_cpu_limit(unsigned int cpu)
{
	struct tlbp_policy p;

	tlbp_policy_now(&p, tlbp_arch_model(cpu));
	p.enabled = true;
	return tlbp_policy_ceiling(&p);
}

u32 tlbp_threshold_now(void)
{
	u32 max = 0;
	int cpu;

	for_each_online_cpu(cpu)
		max = max(max, tlbp_cpu_limit(cpu));
	return max;
}

struct tlbp_tunables tlbp_tunables_get(void)
{
	return (struct tlbp_tunables){
		.cap = READ_ONCE(tlbp_policy.cap),
		.stock = READ_ONCE(tlbp_policy.stock),
		.enabled = READ_ONCE(tlbp_policy.enabled),
		.auto_mode = READ_ONCE(tlbp_auto),
		.use_model = READ_ONCE(tlbp_use_model),
	};
}

void tlbp_tunables_lock(void)
{
	mutex_lock(&tlbp_lock);
}

void tlbp_tunables_apply_unlock(void)
{
	apply();
	mutex_unlock(&tlbp_lock);
}

int tlbp_set_threshold(u32 t)
{
	if (!threshold_fits(t))
		return -EINVAL;
	tlbp_tunables_lock();
	WRITE_ONCE(tlbp_policy.threshold, t);
	WRITE_ONCE(tlbp_auto, false);
	tlbp_tunables_apply_unlock();
	return 0;
}

void tlbp_set_auto(void)
{
	tlbp_tunables_lock();
	WRITE_ONCE(tlbp_auto, true);
	tlbp_tunables_apply_unlock();
}

void tlbp_set_model(bool on)
{
	tlbp_tunables_lock();
	WRITE_ONCE(tlbp_use_model, on);
	tlbp_tunables_apply_unlock();
}

void tlbp_set_enabled(bool on)
{
	tlbp_tunables_lock();
	WRITE_ONCE(tlbp_policy.enabled, on);
	tlbp_tunables_apply_unlock();
}

int tlbp_tunables_init(void)
{
	if (cap < 1 || cap > TLBP_CAP_LIMIT) {
		pr_err("cap=%u is out of range (1-%u)\n", cap, TLBP_CAP_LIMIT);
		return -EINVAL;
	}
	tlbp_policy.cap = cap;
	if (threshold != -1 && !threshold_fits(threshold)) {
		pr_err("threshold=%d is out of range (-1 or 0-%u)\n", threshold, cap);
		return -EINVAL;
	}
	tlbp_policy.threshold = threshold >= 0 ? threshold : 0;
	tlbp_policy.enabled = enabled;
	tlbp_auto = threshold < 0;
	tlbp_use_model = model;
	return 0;
}

void tlbp_tunables_set_stock(unsigned long stock)
{
	tlbp_policy.stock = min_t(unsigned long, stock, U32_MAX);
}

void tlbp_tunables_start(void)
{
	mutex_lock(&tlbp_lock);
	WRITE_ONCE(tlbp_live, true);
	apply();
	mutex_unlock(&tlbp_lock);
}

void tlbp_tunables_stop(void)
{
	mutex_lock(&tlbp_lock);
	WRITE_ONCE(tlbp_live, false);
	tlbp_arch_restore();
	mutex_unlock(&tlbp_lock);
}
