/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tlbpath internals shared by the module's source files.
 */
#ifndef _TLBPATH_INTERNAL_H
#define _TLBPATH_INTERNAL_H

#include <linux/percpu.h>
#include "tlbpath/geometry.h"
#include "tlbpath/policy.h"

/*
 * 6.15+ kernels built with CONFIG_BROADCAST_TLB_FLUSH flush an mm that
 * has a global ASID with AMD's INVLPGB broadcast instead of IPIs: a path
 * of its own, counted only where it exists.
 */
#if defined(CONFIG_BROADCAST_TLB_FLUSH)
#define TLBP_HAVE_BROADCAST 1
#endif

enum tlbp_counter {
	TLBP_USER_PERPAGE,
	TLBP_USER_WIDENED,
	TLBP_USER_CALLER_FULL,
	TLBP_USER_PAGES,
	TLBP_USER_REMOTE,
	TLBP_USER_LOCAL,
#ifdef TLBP_HAVE_BROADCAST
	TLBP_USER_BROADCAST,
#endif
	TLBP_KERNEL_PERPAGE,
	TLBP_KERNEL_WIDENED,
	TLBP_KERNEL_CALLER_FULL,
	TLBP_KERNEL_PAGES,
	TLBP_KEPT_WHERE_STOCK_FULL,
	TLBP_FULL_WHERE_STOCK_KEPT,
	TLBP_NR_COUNTERS,
};

struct tlbp_counters {
	unsigned long c[TLBP_NR_COUNTERS];
};

DECLARE_PER_CPU(struct tlbp_counters, tlbp_stats);

static __always_inline void tlbp_count(enum tlbp_counter c)
{
	this_cpu_inc(tlbp_stats.c[c]);
}

static __always_inline void tlbp_count_add(enum tlbp_counter c, unsigned long n)
{
	this_cpu_add(tlbp_stats.c[c], n);
}

unsigned long tlbp_counter_sum(enum tlbp_counter c);
void tlbp_counters_reset(void);

/*
 * The live policy.  The hook reads each field once with READ_ONCE(); the
 * writers (sysfs, under tlbp_lock) change one field at a time.  Every mix
 * of old and new values is safe, because every decision is: a kept range
 * is exactly what the caller asked for, and a widened one is a superset.
 *
 * While tlbp_auto is set, tlbp_policy.threshold is unused: each CPU
 * keeps what the stock ceiling keeps, or, with tlbp_use_model (and a
 * calibration), decides by its own model.
 */
extern struct tlbp_policy tlbp_policy;
extern bool tlbp_auto;
extern bool tlbp_use_model;

struct tlbp_model;
extern bool tlbp_calibrated;

/* The policy a CPU applies now; @m is that CPU's model. */
static __always_inline void tlbp_policy_now(struct tlbp_policy *p,
					    const struct tlbp_model *m)
{
	p->cap = READ_ONCE(tlbp_policy.cap);
	p->stock = READ_ONCE(tlbp_policy.stock);
	p->enabled = READ_ONCE(tlbp_policy.enabled);
	p->model = NULL;
	if (READ_ONCE(tlbp_auto)) {
		p->threshold = p->stock;
		if (READ_ONCE(tlbp_use_model) && READ_ONCE(tlbp_calibrated))
			p->model = m;
	} else {
		p->threshold = READ_ONCE(tlbp_policy.threshold);
	}
}

u32 tlbp_cpu_limit(unsigned int cpu);

/*
 * Per CPU: the most entries its policy keeps exactly as the stock kernel
 * does (tlbp_policy_fast_keep()); the hook counts such a call and returns.
 */
DECLARE_PER_CPU(u32, tlbp_fast_keep);
/* The same, by the policy alone; the adaptive controllers may lower it. */
DECLARE_PER_CPU(u32, tlbp_policy_fast);

DECLARE_PER_CPU(struct tlbp_geometry, tlbp_cpu_geo);

int tlbp_geometry_init(void);
void tlbp_geometry_exit(void);
unsigned int tlbp_boot_cpu(void);
void tlbp_geometry_changed(unsigned int cpu);
u32 tlbp_threshold_now(void);

/* The kernel's tlb_single_page_flush_ceiling, resolved at load. */
int tlbp_ceiling_resolve(const char *sym);
unsigned long tlbp_ceiling_read(void);
void tlbp_ceiling_write(unsigned long val);
void tlbp_ceiling_raise(unsigned long val);
void tlbp_ceiling_lower(unsigned long old, unsigned long val);
bool tlbp_ceiling_tampered(void);
void tlbp_ceiling_restore(void);
unsigned long tlbp_ceiling_original(void);

/*
 * The hooks are registered passive (they only note where they were
 * called from) and start deciding once tlbp_live is set.
 */
extern bool tlbp_live;

enum tlbp_hook_id { TLBP_HOOK_MM, TLBP_HOOK_KERNEL, TLBP_NR_HOOKS };

int tlbp_hooks_register(void);
int tlbp_hooks_selftest(void);
unsigned long tlbp_hook_ip(enum tlbp_hook_id id);
void tlbp_hooks_unregister(void);

/*
 * Calibration (calibrate.c): the measured costs, and each CPU's model
 * built from them and its geometry.  The hook uses the model while
 * tlbp_auto and tlbp_calibrated are set.
 */
struct tlbp_cal_info {
	int status;		/* 0 or the -errno of the last run */
	unsigned int runs;	/* 0: never calibrated (calibrate=0) */
	unsigned int cpu;	/* where it ran */
	u32 hit;		/* cycles per access that hits the TLB */
	u32 refill_invlpg;	/* refill after INVLPG: a cross-check */
};

extern struct tlbp_costs tlbp_costs;
extern struct tlbp_cal_info tlbp_cal;
DECLARE_PER_CPU(struct tlbp_model, tlbp_cpu_model);

int tlbp_calibrate(void);
void tlbp_model_refresh_cpu(unsigned int cpu);
int tlbp_recalibrate(void);

int tlbp_set_threshold(u32 t);
void tlbp_set_auto(void);
void tlbp_set_model(bool on);
void tlbp_set_enabled(bool on);

int tlbp_sysfs_init(void);
void tlbp_sysfs_exit(void);

#endif /* _TLBPATH_INTERNAL_H */
