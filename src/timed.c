// SPDX-License-Identifier: GPL-2.0
/*
 * The time controller in the module (timed.h): one tlbpath/timectl.h
 * controller per CPU, fed by either architecture's hook.  A controller is
 * only touched on its own CPU with interrupts off (the hook's slow path,
 * the IPI that restarts it), so it needs no lock, and the fast limit it
 * leaves in tlbp_fast_keep is never older than its state.
 *
 * Its clock is the architecture's (x86: the TSC, in which calibration
 * measures; arm64: local_clock()), "who" a task's pid and its context
 * switches, and its counts this CPU's own counters of user requests: what
 * it kept one by one (pages; arm64: TLBI operations) and its full flushes.
 * Where the flushes of other CPUs run here (x86: IPIs), the tlb:tlb_flush
 * probe times them too (tlbp_timed_executed()).
 */
#include <linux/cpumask.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/sysfs.h>
#include "arch.h"
#include "counters.h"
#include "timed.h"
#include "tunables.h"

static char *controller = "time";
module_param(controller, charp, 0444);
MODULE_PARM_DESC(controller, "The adaptive default: time (refills measured as time, the default), walks (counted by the PMU; x86), or none (stock)");

static const char *const controller_names[] = {
	[TLBP_CTL_TIME] = "time", [TLBP_CTL_WALKS] = "walks", [TLBP_CTL_NONE] = "none",
};

DEFINE_PER_CPU(struct tlbp_tc, tlbp_cpu_tc);
enum tlbp_controller tlbp_controller;
bool tlbp_timed_on;

int tlbp_timed_init(bool walks)
{
	int c;

	for (c = 0; c < ARRAY_SIZE(controller_names); c++)
		if (!strcmp(controller, controller_names[c]) && (c != TLBP_CTL_WALKS || walks))
			break;
	if (c == ARRAY_SIZE(controller_names)) {
		pr_err("controller=%s is not time, %snone\n", controller, walks ? "walks or " : "");
		return -EINVAL;
	}
	tlbp_controller = c;
	return 0;
}

const char *tlbp_controller_name(void)
{
	return controller_names[tlbp_controller];
}

static struct tlbp_costs timed_costs;
bool tlbp_timed_peers_wanted;

/* Who runs: anything that changes when another task runs or this one is switched out. */
static u64 who_runs(void)
{
	return ((u64)current->pid << 40) ^ (current->nvcsw + current->nivcsw);
}

/* This CPU's clock, before the request at hand is counted. */
static void read_clock(struct tlbp_tc_clock *c)
{
	const struct tlbp_counters *k = this_cpu_ptr(&tlbp_stats);

	c->now = tlbp_arch_clock();
	c->who = who_runs();
	c->fulls = READ_ONCE(k->c[TLBP_USER_WIDENED]) + READ_ONCE(k->c[TLBP_USER_CALLER_FULL]);
	c->requests = READ_ONCE(k->c[TLBP_USER_PERPAGE]) + c->fulls;
	c->pages = READ_ONCE(k->c[TLBP_USER_PAGES]);
}

/*
 * This CPU's fast limits, and what the architecture must let the kernel
 * keep.  A quiet controller widens nothing on the fast path.
 */
static void publish(const struct tlbp_tc *t, bool on)
{
	this_cpu_write(tlbp_fast_keep, min(this_cpu_read(tlbp_policy_fast), tlbp_tc_fast(t)));
	this_cpu_write(tlbp_fast_widen[0], on ? tlbp_tc_fast_widen(t, false) : U32_MAX);
	this_cpu_write(tlbp_fast_widen[1], on ? tlbp_tc_fast_widen(t, true) : U32_MAX);
	tlbp_arch_allow(tlbp_tc_ceiling(t));
}

/*
 * The other CPUs of @reach, each with what it measured of its own refills
 * after the flushes it executed for others.  Asking for them also keeps
 * the probe that measures them registered (adaptive_x86.c).
 */
static void add_peers(struct tlbp_tc_peers *p, const struct cpumask *reach)
{
	unsigned int cpu, self = smp_processor_id();

	for_each_cpu(cpu, reach)
		if (cpu != self)
			tlbp_tc_peer_add(p, per_cpu_ptr(&tlbp_cpu_tc, cpu));
	if (!READ_ONCE(tlbp_timed_peers_wanted))
		WRITE_ONCE(tlbp_timed_peers_wanted, true);
}

bool tlbp_timed_decide(unsigned long entries, bool remote, const struct cpumask *reach,
		       enum tlbp_tc_reason *why)
{
	bool read = false, keep = false;
	struct tlbp_tc_peers peers = { 0 };
	struct tlbp_tc_clock c;
	unsigned long flags;
	struct tlbp_tc *t;

	local_irq_save(flags);
	t = this_cpu_ptr(&tlbp_cpu_tc);
	*why = t->why == TLBP_TC_OK ? TLBP_TC_R_TIMED : TLBP_TC_R_STOCK;
	if (t->left <= 0) {
		read_clock(&c);
		read = true;
		tlbp_tc_tick(t, &c);
	}
	if (entries != TLBP_FLUSH_ALL) {
		keep = entries <= tlbp_tc_fast(t);
		if (!keep) {
			if (tlbp_tc_wants_clock(t) && !read)
				read_clock(&c);
			if (remote && reach)
				add_peers(&peers, reach);
			keep = tlbp_tc_decide(t, entries, remote ? &peers : NULL, &c, why);
		}
	}
	publish(t, true);
	local_irq_restore(flags);
	return keep;
}

void tlbp_timed_executed(unsigned long pages, u64 generation)
{
	struct tlbp_tc_clock c = { .now = tlbp_arch_clock(), .who = who_runs() ^ generation };

	tlbp_tc_executed(this_cpu_ptr(&tlbp_cpu_tc), pages, &c);
}

u32 tlbp_timed_ceiling(unsigned int cpu)
{
	return tlbp_tc_ceiling(per_cpu_ptr(&tlbp_cpu_tc, cpu));
}

/* IPI, on each CPU: a fresh controller, or a quiet one. */
static void restart_cpu(void *on)
{
	struct tlbp_tc *t = this_cpu_ptr(&tlbp_cpu_tc);

	tlbp_tc_init(t, &timed_costs, tlbp_policy.stock, tlbp_policy.cap, smp_processor_id());
	if (!on)
		t->left = TLBP_TC_IDLE;
	publish(t, on);
}

void tlbp_timed_apply(bool on, const struct tlbp_costs *costs)
{
	on = on && tlbp_controller == TLBP_CTL_TIME && costs && costs->invlpg && costs->full;
	if (!on && READ_ONCE(tlbp_timed_on)) {
		WRITE_ONCE(tlbp_timed_on, false);
		/* No hook in flight may still decide by them after this. */
		synchronize_rcu();
	}
	if (costs)
		timed_costs = *costs;
	on_each_cpu(restart_cpu, (void *)on, 1);
	WRITE_ONCE(tlbp_timed_on, on);
}

/* Read racily, a field at a time. */
int tlbp_timed_show_cpu(char *buf, int len, unsigned int cpu)
{
	const struct tlbp_tc *t = per_cpu_ptr(&tlbp_cpu_tc, cpu);
	const struct tlbp_tc_fit *x = &t->remote.fit;
	bool on = READ_ONCE(tlbp_timed_on);
	u8 why = READ_ONCE(t->why);

	return len + sysfs_emit_at(buf, len,
				   "cpu=%u mode=%s why=%s keep=%u remote_keep=%u refill=%d refill_lo=%d refill_hi=%d samples=%u probes=%u epochs=%u voided=%u decisions=%u remote_refill=%d remote_refill_lo=%d remote_refill_hi=%d remote_samples=%u remote_voided=%u free=%s remote_free=%s probed_refill_lo=%d remote_probed=%u\n",
				   cpu, on && why == TLBP_TC_OK ? "time" : "stock",
				   on ? tlbp_tc_why_name(why) : "off",
				   READ_ONCE(t->thr[0]), READ_ONCE(t->thr[1]), READ_ONCE(t->fit.r),
				   READ_ONCE(t->fit.r_lo), READ_ONCE(t->fit.r_hi),
				   READ_ONCE(t->stats.samples), READ_ONCE(t->stats.probes),
				   READ_ONCE(t->stats.epochs), READ_ONCE(t->stats.voided),
				   READ_ONCE(t->stats.decisions), READ_ONCE(x->r),
				   READ_ONCE(x->r_lo), READ_ONCE(x->r_hi),
				   READ_ONCE(t->remote.samples), READ_ONCE(t->remote.voided),
				   READ_ONCE(t->confounded) ? "given-up" : "used",
				   READ_ONCE(t->remote.confounded) ? "given-up" : "used",
				   READ_ONCE(t->exp.r_lo), READ_ONCE(t->rboot));
}
