// SPDX-License-Identifier: GPL-2.0
/*
 * Calibration: what invalidating one entry, flushing everything and
 * refilling a translation cost on this machine, measured at load.
 *
 * The 2012 geometry rule assumed these costs; this measures them, on one
 * CPU, on a buffer of the module's own.  The buffer is mapped without
 * _PAGE_GLOBAL, so that a CR3 write drops its translations the way it
 * drops a process's.  Each round runs with interrupts off in one
 * smp_call_function_single() on the calibrating CPU:
 *
 *	touch all pages			warm: every translation present
 *	touch all pages			-> hot, the cost of an access that hits
 *	INVLPG every page		-> invlpg
 *	touch all pages			-> refill_invlpg (minus hot)
 *	write CR3 (same value)		-> full: the flush itself
 *	touch all pages			-> refill (minus hot)
 *
 * The median of the rounds is kept.  A probe then touches 64, 128, ...
 * pages in a cycle and reports the largest set whose accesses still cost
 * less than half a refill more than a hit: how many translations the TLB
 * held (reach).  The decision uses it only where CPUID describes no TLB
 * (a VM); elsewhere it is shown next to the geometry as a cross-check.
 *
 * Costs are in TSC cycles.  Under emulation (QEMU TCG) they are the
 * emulator's costs, which is what the decision then has to weigh there.
 */
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/sort.h>
#include <linux/vmalloc.h>
#include <asm/cpufeature.h>
#include <asm/msr.h>
#include <asm/special_insns.h>
#include "arch.h"
#include "calibrate_x86.h"
#include "cpu_x86.h"
#include "sysfs.h"
#include "tunables.h"

#define CAL_PAGES	64	/* pages per timed pass */
#define CAL_ROUNDS	9	/* rounds; the median is kept */
#define PROBE_MIN	64	/* the probe's smallest and largest sets */
#define PROBE_MAX	2048
#define CAL_BUDGET_MS	200	/* the whole calibration, interrupts on between steps */

enum { T_HOT, T_INVLPG, T_REFILL_INVLPG, T_FULL, T_REFILL, T_NR };

struct cal_round {
	const char *buf;
	unsigned int pages;
	u64 t[T_NR];
};

static bool calibrate = true;
module_param(calibrate, bool, 0444);
MODULE_PARM_DESC(calibrate, "Measure flush and refill costs at load");

struct tlbp_costs tlbp_costs;
struct tlbp_cal_info tlbp_cal;

/*
 * One load per page, each on a different cache line so they do not alias.
 * Not inlined: the warming passes also warm the code the timed pass runs
 * (under TCG, the first run of a block includes translating it).
 */
static noinline void touch(const char *buf, unsigned int pages)
{
	unsigned int i;

	for (i = 0; i < pages; i++)
		(void)READ_ONCE(*(const unsigned long *)(buf + i * PAGE_SIZE +
					((i * L1_CACHE_BYTES) & ~PAGE_MASK)));
}

static __always_inline u64 timed_touch(const char *buf, unsigned int pages)
{
	u64 t0 = rdtsc_ordered();

	touch(buf, pages);
	return rdtsc_ordered() - t0;
}

/* Interrupts are off: this runs as a cross-call, or locally with irqs off. */
static void cal_round(void *arg)
{
	struct cal_round *r = arg;
	unsigned int i;
	u64 t0;

	touch(r->buf, r->pages);
	r->t[T_HOT] = timed_touch(r->buf, r->pages);

	t0 = rdtsc_ordered();
	for (i = 0; i < r->pages; i++)
		asm volatile("invlpg (%0)" : : "r" (r->buf + i * PAGE_SIZE) : "memory");
	r->t[T_INVLPG] = rdtsc_ordered() - t0;
	r->t[T_REFILL_INVLPG] = timed_touch(r->buf, r->pages);

	/* What flush_tlb_local() does for the kernel's half of a PCID pair. */
	t0 = rdtsc_ordered();
	native_write_cr3(__native_read_cr3());
	r->t[T_FULL] = rdtsc_ordered() - t0;
	r->t[T_REFILL] = timed_touch(r->buf, r->pages);
}

/*
 * Touch and flush twice, warm twice, then one timed pass over @r->pages
 * pages.  The flushes cost nothing on hardware; an emulator that sizes
 * its software TLB from the use it saw before a flush (QEMU does) gets
 * the chance to grow it to the set, as it would for a process.
 */
static void probe_round(void *arg)
{
	struct cal_round *r = arg;
	int i;

	for (i = 0; i < 2; i++) {
		touch(r->buf, r->pages);
		native_write_cr3(__native_read_cr3());
	}
	touch(r->buf, r->pages);
	touch(r->buf, r->pages);
	r->t[T_HOT] = timed_touch(r->buf, r->pages);
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static u64 median(u64 *v, int n)
{
	sort(v, n, sizeof(*v), cmp_u64, NULL);
	return v[n / 2];
}

static u32 per_page(u64 t, unsigned int pages)
{
	return min_t(u64, div_u64(t, pages), U32_MAX);
}

/* Largest probed set that still hits (see the top of the file); 0: none. */
static u32 probe_reach(int cpu, const char *buf, u32 hot, u32 refill,
		       ktime_t deadline)
{
	struct cal_round r = { .buf = buf, .pages = PROBE_MIN };
	u32 reach = 0;

	/* A first run, discarded: it pays for cold code (and TCG's translation). */
	if (smp_call_function_single(cpu, probe_round, &r, 1))
		return 0;
	for (r.pages = PROBE_MIN; r.pages <= PROBE_MAX; r.pages <<= 1) {
		if (ktime_after(ktime_get(), deadline) ||
		    smp_call_function_single(cpu, probe_round, &r, 1))
			break;
		if (per_page(r.t[T_HOT], r.pages) > hot + refill / 2)
			break;
		reach = r.pages;
	}
	return reach;
}

static void *map_buffer(struct page **pages, unsigned int n)
{
	pgprot_t prot = PAGE_KERNEL;
	unsigned int i;

	for (i = 0; i < n; i++) {
		pages[i] = alloc_page(GFP_KERNEL);
		if (!pages[i])
			return NULL;
	}
	/* Not global: a full flush must drop these as it drops a process's. */
	pgprot_val(prot) &= ~_PAGE_GLOBAL;
	return vmap(pages, n, VM_MAP, prot);
}

static void unmap_buffer(void *buf, struct page **pages, unsigned int n)
{
	unsigned int i;

	if (buf)
		vunmap(buf);
	for (i = 0; i < n && pages[i]; i++)
		__free_page(pages[i]);
}

static int measure(int cpu, const char *buf, struct tlbp_costs *c)
{
	u64 t[T_NR][CAL_ROUNDS];
	ktime_t deadline = ktime_add_ms(ktime_get(), CAL_BUDGET_MS);
	struct cal_round r = { .buf = buf, .pages = CAL_PAGES };
	u64 hot;
	int i, k, ret;

	for (i = 0; i < CAL_ROUNDS; i++) {
		if (ktime_after(ktime_get(), deadline))
			return -ETIMEDOUT;
		ret = smp_call_function_single(cpu, cal_round, &r, 1);
		if (ret)
			return ret;
		for (k = 0; k < T_NR; k++)
			t[k][i] = r.t[k];
	}
	for (k = 0; k < T_NR; k++)
		median(t[k], CAL_ROUNDS);

	hot = t[T_HOT][CAL_ROUNDS / 2];
	c->invlpg = per_page(t[T_INVLPG][CAL_ROUNDS / 2], CAL_PAGES);
	c->full = min_t(u64, t[T_FULL][CAL_ROUNDS / 2], U32_MAX);
	c->refill = per_page(t[T_REFILL][CAL_ROUNDS / 2] - min(hot, t[T_REFILL][CAL_ROUNDS / 2]),
			     CAL_PAGES);
	tlbp_cal.refill_invlpg =
		per_page(t[T_REFILL_INVLPG][CAL_ROUNDS / 2] -
			 min(hot, t[T_REFILL_INVLPG][CAL_ROUNDS / 2]), CAL_PAGES);
	tlbp_cal.hit = per_page(hot, CAL_PAGES);
	c->reach = probe_reach(cpu, buf, tlbp_cal.hit, c->refill, deadline);
	return 0;
}

/*
 * Measure on one CPU and rebuild every CPU's model.  Sleeps; the caller
 * holds the tunables' lock, and re-applies the policy afterwards.
 */
static int measure_all(void)
{
	struct tlbp_costs c = { 0 };
	struct page **pages;
	void *buf = NULL;
	int cpu, ret;

	if (cpu_feature_enabled(X86_FEATURE_XENPV)) {
		/* CR3 belongs to the hypervisor there. */
		tlbp_cal.status = -EOPNOTSUPP;
		return -EOPNOTSUPP;
	}
	pages = kcalloc(PROBE_MAX, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return -ENOMEM;
	buf = map_buffer(pages, PROBE_MAX);
	ret = -ENOMEM;
	if (buf) {
		cpu = get_cpu();
		put_cpu();
		ret = measure(cpu, buf, &c);
		tlbp_cal.cpu = cpu;
	}
	unmap_buffer(buf, pages, PROBE_MAX);
	kfree(pages);

	tlbp_cal.status = ret;
	tlbp_cal.runs++;
	if (!ret) {
		tlbp_costs = c;
		WRITE_ONCE(tlbp_model_ready, c.invlpg && c.full);
	}
	tlbp_models_rebuild(&tlbp_costs);
	return ret;
}

/* Measure, and let the policy follow the new costs. */
static int recalibrate(void)
{
	int ret;

	tlbp_tunables_lock();
	ret = measure_all();
	tlbp_tunables_apply_unlock();
	return ret;
}

void tlbp_calibrate_load(void)
{
	int ret;

	if (!calibrate)
		return;
	ret = recalibrate();
	if (ret)
		pr_warn("calibration failed (%d): no model\n", ret);
}

/* model: auto follows each CPU's calibrated model */

TLBP_ATTR_BOOL(model, tlbp_tunables_get().use_model, tlbp_set_model);

static struct attribute *model_attrs[] = {
	&model_attr.attr, NULL,
};

const struct attribute_group tlbp_model_group = {
	.attrs = model_attrs,
};

/* calibration/: the costs, the boot CPU's model limits, and run */

#define BOOT_MODEL	(&per_cpu(tlbp_cpu_model, tlbp_boot_cpu()))

TLBP_ATTR_RO_U32(invlpg_cycles, tlbp_costs.invlpg);
TLBP_ATTR_RO_U32(full_cycles, tlbp_costs.full);
TLBP_ATTR_RO_U32(refill_cycles, tlbp_costs.refill);
TLBP_ATTR_RO_U32(refill_invlpg_cycles, tlbp_cal.refill_invlpg);
TLBP_ATTR_RO_U32(hit_cycles, tlbp_cal.hit);
TLBP_ATTR_RO_U32(reach, tlbp_costs.reach);
TLBP_ATTR_RO_U32(cpu, tlbp_cal.cpu);
TLBP_ATTR_RO_U32(runs, tlbp_cal.runs);
TLBP_ATTR_RO_U32(limit_4k, BOOT_MODEL->limit[TLBP_4K]);
TLBP_ATTR_RO_U32(limit_2m, BOOT_MODEL->limit[TLBP_2M]);
TLBP_ATTR_RO_U32(limit_1g, BOOT_MODEL->limit[TLBP_1G]);

static ssize_t status_show(struct kobject *k, struct kobj_attribute *a, char *buf)
{
	if (!tlbp_cal.runs)
		return sysfs_emit(buf, "off\n");
	if (tlbp_cal.status)
		return sysfs_emit(buf, "failed %d\n", tlbp_cal.status);
	return sysfs_emit(buf, "ok\n");
}

/* Write 1: measure again. */
static ssize_t run_store(struct kobject *k, struct kobj_attribute *a,
			 const char *buf, size_t len)
{
	u32 v;
	int ret;

	if (tlbp_sysfs_parse_u32(buf, len, 1, &v) || v != 1)
		return -EINVAL;
	ret = recalibrate();
	return ret ? ret : len;
}

static struct kobj_attribute status_attr = __ATTR_RO(status);
static struct kobj_attribute run_attr = __ATTR_WO(run);

static struct attribute *calibration_attrs[] = {
	&invlpg_cycles_attr.attr, &full_cycles_attr.attr,
	&refill_cycles_attr.attr, &refill_invlpg_cycles_attr.attr,
	&hit_cycles_attr.attr, &reach_attr.attr, &cpu_attr.attr,
	&runs_attr.attr, &limit_4k_attr.attr, &limit_2m_attr.attr,
	&limit_1g_attr.attr, &status_attr.attr, &run_attr.attr,
	NULL,
};

const struct attribute_group tlbp_calibration_group = {
	.name = "calibration",
	.attrs = calibration_attrs,
};
