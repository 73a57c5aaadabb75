// SPDX-License-Identifier: GPL-2.0
/*
 * tlbpath: an alternative TLB flush decision for a running distro kernel.
 *
 * Load order: read the TLB geometry of every CPU, hook the flush functions
 * (passive), make the kernel call both to prove the hooks run and learn
 * where the functions are, find the kernel's flush ceiling in the code of
 * the first, publish sysfs, and only then let the hooks decide and move
 * the ceiling.  Unload undoes it in reverse and leaves the ceiling as it
 * was found.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include "tlbpath.h"
#include "arch.h"
#include "adaptive.h"

static int threshold = -1;
module_param(threshold, int, 0444);
MODULE_PARM_DESC(threshold, "Most pages flushed one by one (-1: derive from the TLB geometry)");

static bool enabled = true;
module_param(enabled, bool, 0444);
MODULE_PARM_DESC(enabled, "Apply the policy (0: decide as the stock kernel, still counting)");

static unsigned int cap = TLBP_CAP_DEFAULT;
module_param(cap, uint, 0444);
MODULE_PARM_DESC(cap, "Hard limit for threshold, in pages (1-" __stringify(TLBP_CAP_LIMIT) ")");

static bool calibrate = true;
module_param(calibrate, bool, 0444);
MODULE_PARM_DESC(calibrate, "Measure flush and refill costs at load");

static bool model;
module_param(model, bool, 0444);
MODULE_PARM_DESC(model, "In auto mode, let the calibrated model keep ranges above the stock ceiling");

static char *walk_event = "hw";
module_param(walk_event, charp, 0444);
MODULE_PARM_DESC(walk_event, "Page walks counted for the adaptive default: hw, none, or sw (tests: the cpu-clock software event)");

/* Only the refusal tests change this: a name that cannot be found. */
static char *ceiling_symbol = "tlb_single_page_flush_ceiling";
module_param(ceiling_symbol, charp, 0444);
MODULE_PARM_DESC(ceiling_symbol, "For tests only: the ceiling variable to look for");

DEFINE_PER_CPU(struct tlbp_counters, tlbp_stats);
DEFINE_PER_CPU(u32, tlbp_fast_keep);
DEFINE_PER_CPU(u32, tlbp_policy_fast);
struct tlbp_policy tlbp_policy;
bool tlbp_auto;
bool tlbp_use_model;

/* Serialises the writers of tlbp_policy and of the kernel's ceiling. */
static DEFINE_MUTEX(tlbp_lock);

/* Set once the hooks are live: only then does tlbpath move the ceiling. */
bool tlbp_live;

unsigned long tlbp_counter_sum(enum tlbp_counter c)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(tlbp_stats.c[c], cpu);
	return sum;
}

/* Not atomic against concurrent increments: a reset may miss a few. */
void tlbp_counters_reset(void)
{
	int cpu, c;

	for_each_possible_cpu(cpu)
		for (c = 0; c < TLBP_NR_COUNTERS; c++)
			per_cpu(tlbp_stats.c[c], cpu) = 0;
}

/*
 * Keep the kernel's ceiling equal to the largest per-page count the policy
 * can choose now, so that the kernel keeps every range we keep, and paths
 * we do not hook (cpa_flush(), for one) follow the same threshold.
 */
static void tlbp_apply_policy(void)
{
	struct tlbp_policy p = tlbp_policy;
	int cpu;

	lockdep_assert_held(&tlbp_lock);
	if (!tlbp_live)
		return;
	for_each_possible_cpu(cpu) {
		struct tlbp_policy now;

		u32 fast;

		tlbp_policy_now(&now, &per_cpu(tlbp_cpu_model, cpu));
		fast = tlbp_policy_fast_keep(&now);
		WRITE_ONCE(per_cpu(tlbp_policy_fast, cpu), fast);
		WRITE_ONCE(per_cpu(tlbp_fast_keep, cpu), fast);
	}
	p.threshold = tlbp_threshold_now();
	p.model = NULL;
	/* In auto, where a CPU counts walks, the controllers may keep more. */
	if (IS_ENABLED(CONFIG_X86))
		tlbp_adaptive_apply(tlbp_auto && tlbp_policy.enabled && !tlbp_use_model);
	tlbp_ceiling_write(tlbp_policy_ceiling(&p));
}

/* The most entries @cpu may keep in one call now, were tlbpath enabled. */
u32 tlbp_cpu_limit(unsigned int cpu)
{
	struct tlbp_policy p;

	tlbp_policy_now(&p, &per_cpu(tlbp_cpu_model, cpu));
	p.enabled = true;
	return tlbp_policy_ceiling(&p);
}

/* The threshold in force: the largest limit of any online CPU. */
u32 tlbp_threshold_now(void)
{
	u32 max = 0;
	int cpu;

	for_each_online_cpu(cpu)
		max = max(max, tlbp_cpu_limit(cpu));
	return max;
}

/* A CPU came online (or was read at load), or went: its model may be new. */
void tlbp_geometry_changed(unsigned int cpu)
{
	mutex_lock(&tlbp_lock);
	tlbp_model_refresh_cpu(cpu);
	tlbp_apply_policy();
	mutex_unlock(&tlbp_lock);
}

/* Measure again (sysfs calibration/run), and follow the new costs. */
int tlbp_recalibrate(void)
{
	int ret;

	mutex_lock(&tlbp_lock);
	ret = tlbp_calibrate();
	tlbp_apply_policy();
	mutex_unlock(&tlbp_lock);
	return ret;
}

int tlbp_set_threshold(u32 t)
{
	if (t > tlbp_policy.cap)
		return -EINVAL;
	mutex_lock(&tlbp_lock);
	WRITE_ONCE(tlbp_policy.threshold, t);
	WRITE_ONCE(tlbp_auto, false);
	tlbp_apply_policy();
	mutex_unlock(&tlbp_lock);
	return 0;
}

void tlbp_set_auto(void)
{
	mutex_lock(&tlbp_lock);
	WRITE_ONCE(tlbp_auto, true);
	tlbp_apply_policy();
	mutex_unlock(&tlbp_lock);
}

void tlbp_set_model(bool on)
{
	mutex_lock(&tlbp_lock);
	WRITE_ONCE(tlbp_use_model, on);
	tlbp_apply_policy();
	mutex_unlock(&tlbp_lock);
}

void tlbp_set_enabled(bool on)
{
	mutex_lock(&tlbp_lock);
	WRITE_ONCE(tlbp_policy.enabled, on);
	tlbp_apply_policy();
	mutex_unlock(&tlbp_lock);
}

static int __init tlbp_init(void)
{
	const struct tlbp_geometry *boot;
	enum tlbp_walk_event ev;
	int ret;

	if (cap < 1 || cap > TLBP_CAP_LIMIT) {
		pr_err("cap=%u is out of range (1-%u)\n", cap, TLBP_CAP_LIMIT);
		return -EINVAL;
	}
	if (threshold < -1 || (threshold >= 0 && threshold > cap)) {
		pr_err("threshold=%d is out of range (-1 or 0-%u)\n", threshold, cap);
		return -EINVAL;
	}

	tlbp_policy.cap = cap;
	tlbp_policy.threshold = threshold >= 0 ? threshold : 0;
	tlbp_policy.enabled = enabled;
	tlbp_auto = threshold < 0;
	tlbp_use_model = model;

	for (ev = TLBP_WALKS_HW; ev <= TLBP_WALKS_NONE; ev++)
		if (!strcmp(walk_event, tlbp_walk_event_name(ev)))
			break;
	if (ev > TLBP_WALKS_NONE) {
		pr_err("walk_event=%s is not hw, sw or none\n", walk_event);
		return -EINVAL;
	}
	/* Before the geometry: a CPU coming online has its counter first. */
	if (IS_ENABLED(CONFIG_X86)) {
		ret = tlbp_adaptive_init(ev);
		if (ret) {
			pr_err("cannot set up the page-walk counters (%d)\n", ret);
			return ret;
		}
	}

	ret = tlbp_geometry_init();
	if (ret) {
		pr_err("cannot read CPUID on every CPU (%d)\n", ret);
		goto fail_adaptive;
	}

	if (calibrate) {
		mutex_lock(&tlbp_lock);
		ret = tlbp_calibrate();
		mutex_unlock(&tlbp_lock);
		if (ret)
			pr_warn("calibration failed (%d): no model\n", ret);
	}

	/* Passive until tlbp_live: the hooks only note where they run. */
	ret = tlbp_hooks_register();
	if (ret)
		goto fail_geometry;

	ret = tlbp_hooks_selftest();
	if (ret) {
		pr_err("the ftrace hooks never run (is kernel.ftrace_enabled 0?)\n");
		goto fail_hooks;
	}

	ret = tlbp_ceiling_resolve(ceiling_symbol);
	if (ret) {
		pr_err("cannot find %s in flush_tlb_mm_range() or flush_tlb_kernel_range()\n",
		       ceiling_symbol);
		goto fail_hooks;
	}
	tlbp_policy.stock = min_t(unsigned long, tlbp_ceiling_original(), U32_MAX);

	ret = tlbp_sysfs_init();
	if (ret) {
		pr_err("cannot create /sys/kernel/tlbpath (%d)\n", ret);
		goto fail_hooks;
	}

	mutex_lock(&tlbp_lock);
	WRITE_ONCE(tlbp_live, true);
	tlbp_apply_policy();
	mutex_unlock(&tlbp_lock);

	if (IS_ENABLED(CONFIG_ARM64)) {
		tlbp_arm64_report(true);
		return 0;
	}
	boot = &per_cpu(tlbp_cpu_geo, tlbp_boot_cpu());
	pr_info("loaded: geometry %s%s (l1d_4k=%u l2_4k=%u), threshold %u%s, stock ceiling %u, cap %u%s\n",
		tlbp_geo_source_name(boot->source),
		boot->hypervisor ? " under a hypervisor" : "",
		boot->l1d[TLBP_4K], boot->l2[TLBP_4K], tlbp_threshold_now(),
		!tlbp_auto ? "" : tlbp_use_model && tlbp_calibrated ?
		" (auto, model at the largest footprint)" : " (auto: stock)",
		tlbp_policy.stock, cap, enabled ? "" : ", disabled");
	if (tlbp_calibrated)
		pr_info("calibrated on CPU %u: invlpg %u, full flush %u, refill %u, hit %u TSC cycles; reach %u pages\n",
			tlbp_cal.cpu, tlbp_costs.invlpg, tlbp_costs.full, tlbp_costs.refill,
			tlbp_cal.hit, tlbp_costs.reach);
	return 0;

fail_hooks:
	tlbp_hooks_unregister();
fail_geometry:
	tlbp_geometry_exit();
fail_adaptive:
	if (IS_ENABLED(CONFIG_X86))
		tlbp_adaptive_exit();
	return ret;
}

static void __exit tlbp_exit(void)
{
	unsigned long now;

	/* No sysfs writer can run past this point. */
	tlbp_sysfs_exit();

	/* No hotplug callback either: the models stay as they are. */
	tlbp_geometry_exit();

	/* No controller raises the ceiling any more. */
	if (IS_ENABLED(CONFIG_X86))
		tlbp_adaptive_exit();

	mutex_lock(&tlbp_lock);
	now = tlbp_ceiling_read();
	if (tlbp_ceiling_tampered())
		pr_warn("tlb_single_page_flush_ceiling was changed behind our back (%lu); restoring %lu\n",
			now, tlbp_ceiling_original());
	WRITE_ONCE(tlbp_live, false);
	tlbp_ceiling_restore();
	mutex_unlock(&tlbp_lock);

	/* Waits until no callback is running any more. */
	tlbp_hooks_unregister();
	if (IS_ENABLED(CONFIG_ARM64)) {
		tlbp_arm64_report(false);
		return;
	}
	pr_info("unloaded: tlb_single_page_flush_ceiling back to %lu\n",
		tlbp_ceiling_original());
}

module_init(tlbp_init);
module_exit(tlbp_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("The tlbpath authors");
MODULE_DESCRIPTION("Geometry-aware choice between per-page and full TLB flushes");
MODULE_VERSION(TLBPATH_VERSION);
