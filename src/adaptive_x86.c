// SPDX-License-Identifier: GPL-2.0
/*
 * The adaptive default: one controller per CPU, of the kind the
 * controller parameter names.  "time" (timed.c, the default): it learns
 * what a full flush costs in refills from the time the workload takes
 * between flush requests, and needs the calibration only.  "walks"
 * (adapt.c): it learns it from that CPU's page-walk counter (walks_x86.c),
 * read wherever the CPU executes a flush: the tlb:tlb_flush tracepoint
 * fires on the CPU that flushes, local and remote alike, so the refills
 * of every thread of a process count.  The hook consults the controller
 * above its fast limit.
 *
 * A controller is only touched on its own CPU with interrupts off: in the
 * tracepoint probe (flush_tlb_func() and switch_mm_irqs_off() run with
 * interrupts off), in the hook's slow path and in the IPI that restarts
 * it.  So it needs no lock, and the fast limit it leaves in
 * tlbp_fast_keep is never older than its state.
 *
 * The kernel's ceiling follows the controllers: raised at once when one
 * may keep more (so that the kernel does not widen what it kept), lowered
 * back once a second when none does, so that the paths tlbpath does not
 * hook (cpa_flush()) see the stock ceiling unless a measurement says more.
 */
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/mm_types.h>
#include <linux/moduleparam.h>
#include <linux/smp.h>
#include <linux/sysfs.h>
#include <linux/tracepoint.h>
#include <linux/workqueue.h>
#include <asm/msr.h>
#include "adaptive_x86.h"
#include "calibrate_x86.h"
#include "ceiling_x86.h"
#include "cpu_x86.h"
#include "timed.h"
#include "tunables.h"

static char *walk_event = "hw";
module_param(walk_event, charp, 0444);
MODULE_PARM_DESC(walk_event, "With controller=walks, the walks counted: hw, none, or sw (tests: the cpu-clock software event)");

static bool by_walks;

DEFINE_PER_CPU(struct tlbp_adapt, tlbp_cpu_adapt);
bool tlbp_adapting;

static bool walks_started, walks_any;
static enum tlbp_walk_event walk_ev = TLBP_WALKS_NONE;
static struct tracepoint *tlb_flush_tp;
static bool probe_on;

/*
 * Every queueing of these works goes to one workqueue: from 6.17,
 * schedule_delayed_work() queues on system_percpu_wq, apart from
 * system_wq, and a work queued on two may run twice at once.
 */
#ifdef TLBP_HAVE_SYSTEM_PERCPU_WQ
#define tlbp_wq system_percpu_wq
#else
#define tlbp_wq system_wq
#endif

static void ceiling_work_fn(struct work_struct *w);
static DECLARE_DELAYED_WORK(ceiling_work, ceiling_work_fn);

/*
 * The time controller's probe on tlb:tlb_flush times, on each CPU, the
 * flushes other CPUs ask it to execute (timectl.h: tlbp_tc_executed()).
 * A registered probe costs every flush of every CPU a call, local ones
 * too, so it is registered only once a range reaching other CPUs has been
 * decided, and unregistered PEERS_IDLE seconds after the last.
 */
#define PEERS_IDLE	10
static bool peers_on;
static unsigned int peers_idle;
static u64 peers_gen;
static void peers_work_fn(struct work_struct *w);
static DECLARE_DELAYED_WORK(peers_work, peers_work_fn);

/* On this CPU, interrupts off: what the hook keeps without asking. */
static void publish_fast(const struct tlbp_adapt *a)
{
	u32 fast = this_cpu_read(tlbp_policy_fast);

	if (READ_ONCE(tlbp_adapting)) {
		fast = min(fast, tlbp_adapt_fast(a));
		if (tlbp_adapt_ceiling(a) > tlbp_ceiling_read())
			tlbp_ceiling_raise(tlbp_adapt_ceiling(a));
	}
	this_cpu_write(tlbp_fast_keep, fast);
}

/* IPI, on each CPU: a fresh controller from this CPU's geometry. */
static void restart_cpu(void *unused)
{
	unsigned int cpu = smp_processor_id();
	struct tlbp_adapt *a = this_cpu_ptr(&tlbp_cpu_adapt);

	tlbp_adapt_init(a, per_cpu_ptr(&tlbp_cpu_geo, cpu), &tlbp_costs,
			tlbp_policy.stock, tlbp_policy.cap,
			walks_started && !tlbp_walks_error(cpu));
	publish_fast(a);
}

static void notrace tlb_flush_probe(void *data, int reason, unsigned long pages)
{
	struct tlbp_adapt *a = this_cpu_ptr(&tlbp_cpu_adapt);
	u64 walks = 0, now = 0;
	bool counted = false;

	/*
	 * The sender's record of an IPI (the flush runs elsewhere), and a
	 * context switch that flushed nothing: nothing executed here.
	 */
	if (reason == TLB_REMOTE_SEND_IPI || !pages || !READ_ONCE(tlbp_adapting))
		return;
	if (tlbp_adapt_wants_count(a, pages)) {
		counted = tlbp_walks_read(&walks);
		now = rdtsc();
		/* A counter that exists but never counts: stock from now on. */
		if (!counted && tlbp_walks_error(smp_processor_id())) {
			restart_cpu(NULL);
			return;
		}
	}
	tlbp_adapt_executed(a, pages, walks, now, counted);
	publish_fast(a);
}

/* Only what another CPU asked for and this one flushed: its refills are this one's to time. */
static void notrace timed_flush_probe(void *data, int reason, unsigned long pages)
{
	if (reason == TLB_REMOTE_SHOOTDOWN && pages && READ_ONCE(tlbp_timed_on))
		tlbp_timed_executed(pages, READ_ONCE(peers_gen));
}

/*
 * Once a second while the time controller decides, outside any lock (a
 * probe's registration takes the CPU hotplug lock): the probe on while
 * remote ranges are decided, off when they have not been for a while.
 */
static void peers_work_fn(struct work_struct *w)
{
	bool on = READ_ONCE(tlbp_timed_on);
	bool want = on && READ_ONCE(tlbp_timed_peers_wanted);

	if (want) {
		WRITE_ONCE(tlbp_timed_peers_wanted, false);
		peers_idle = 0;
	}
	if (want && !peers_on) {
		/* No epoch spans the time it was off. */
		WRITE_ONCE(peers_gen, peers_gen + 1);
		peers_on = !tracepoint_probe_register(tlb_flush_tp, (void *)timed_flush_probe,
						      NULL);
	} else if (!want && peers_on && (!on || ++peers_idle >= PEERS_IDLE)) {
		tracepoint_probe_unregister(tlb_flush_tp, (void *)timed_flush_probe, NULL);
		peers_on = false;
	}
	if (on || peers_on)
		queue_delayed_work(tlbp_wq, &peers_work, HZ);
}

static void find_tlb_flush(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "tlb_flush"))
		tlb_flush_tp = tp;
}

/*
 * Registering a tracepoint probe takes the CPU hotplug lock, which
 * tlbp_lock, held by hotplug callbacks, must never wait for: the probe is
 * registered once at load, outside any lock, and does nothing while the
 * controllers are off.  Whether any CPU counts is settled then too; a CPU
 * that comes later without a counter decides as stock.
 */
void tlbp_adaptive_apply(bool want)
{
	if (!by_walks) {
		tlbp_timed_apply(want && tlbp_model_ready && tlbp_controller == TLBP_CTL_TIME,
				 &tlbp_costs);
		if (READ_ONCE(tlbp_timed_on))
			mod_delayed_work(tlbp_wq, &ceiling_work, HZ);
		/* On: it watches for remote ranges; off: it unregisters the probe. */
		if (tlb_flush_tp)
			mod_delayed_work(tlbp_wq, &peers_work, READ_ONCE(tlbp_timed_on) ? HZ : 0);
		return;
	}
	want = want && probe_on && tlbp_model_ready;
	if (!want && READ_ONCE(tlbp_adapting)) {
		WRITE_ONCE(tlbp_adapting, false);
		/* No probe or hook in flight may raise the ceiling after this. */
		synchronize_rcu();
		cancel_delayed_work_sync(&ceiling_work);
	}
	on_each_cpu(restart_cpu, NULL, 1);
	if (want) {
		WRITE_ONCE(tlbp_adapting, true);
		on_each_cpu(restart_cpu, NULL, 1);
		mod_delayed_work(tlbp_wq, &ceiling_work, HZ);
	}
}

/* Once a second: the ceiling down to what the controllers keep now. */
static void ceiling_work_fn(struct work_struct *w)
{
	unsigned long now = tlbp_ceiling_read(), most = tlbp_policy.stock;
	int cpu;

	if (!READ_ONCE(tlbp_adapting) && !READ_ONCE(tlbp_timed_on))
		return;
	for_each_online_cpu(cpu)
		most = max_t(unsigned long, most, by_walks ?
			     tlbp_adapt_ceiling(per_cpu_ptr(&tlbp_cpu_adapt, cpu)) :
			     tlbp_timed_ceiling(cpu));
	if (most < now)
		tlbp_ceiling_lower(now, most);
	queue_delayed_work(tlbp_wq, &ceiling_work, HZ);
}

bool tlbp_adaptive_decide(struct mm_struct *mm, unsigned long entries,
			  enum tlbp_reason *why)
{
	unsigned int cpu, self = smp_processor_id();
	u32 peers = 0, peer_sum = 0;
	enum tlbp_adapt_reason r;
	unsigned long flags;
	bool keep;

	/* Every CPU the flush reaches refills what it loses too. */
	if (mm) {
		for_each_cpu(cpu, mm_cpumask(mm)) {
			if (cpu == self)
				continue;
			peers++;
			peer_sum += tlbp_adapt_keep(per_cpu_ptr(&tlbp_cpu_adapt, cpu));
		}
	}
	local_irq_save(flags);
	keep = tlbp_adapt_decide(this_cpu_ptr(&tlbp_cpu_adapt), entries,
				 peer_sum, peers, &r);
	publish_fast(this_cpu_ptr(&tlbp_cpu_adapt));
	local_irq_restore(flags);
	switch (r) {
	case TLBP_AR_MEASURED:
		*why = TLBP_WHY_MEASURED;
		break;
	case TLBP_AR_EXPLORE:
		*why = TLBP_WHY_EXPLORE;
		break;
	case TLBP_AR_CAP:
		*why = TLBP_WHY_CAP;
		break;
	default:
		*why = TLBP_WHY_THRESHOLD;
	}
	/* The kernel widens what its ceiling does not allow: more, never less. */
	return keep;
}

static int setup(enum tlbp_walk_event ev)
{
	static const struct tlbp_geometry none;
	static const struct tlbp_costs unmeasured;
	int cpu, ret;

	/* Until its restart, every CPU decides as stock. */
	for_each_possible_cpu(cpu)
		tlbp_adapt_init(per_cpu_ptr(&tlbp_cpu_adapt, cpu), &none, &unmeasured,
				TLBP_STOCK_CEILING, TLBP_CAP_LIMIT, false);
	for_each_kernel_tracepoint(find_tlb_flush, NULL);
	walk_ev = ev;
	if (ev == TLBP_WALKS_NONE || !tlb_flush_tp)
		return 0;
	ret = tlbp_walks_init(ev);
	if (ret)
		return ret;
	walks_started = true;
	cpus_read_lock();
	for_each_online_cpu(cpu)
		walks_any |= !tlbp_walks_error(cpu);
	cpus_read_unlock();
	if (walks_any) {
		ret = tracepoint_probe_register(tlb_flush_tp, (void *)tlb_flush_probe, NULL);
		if (ret) {
			tlbp_adaptive_exit();
			return ret;
		}
		probe_on = true;
	}
	return 0;
}

int tlbp_adaptive_init(void)
{
	enum tlbp_walk_event ev;
	int ret;

	by_walks = tlbp_controller == TLBP_CTL_WALKS;
	for (ev = TLBP_WALKS_HW; ev <= TLBP_WALKS_NONE; ev++)
		if (!strcmp(walk_event, tlbp_walk_event_name(ev)))
			break;
	if (ev > TLBP_WALKS_NONE) {
		pr_err("walk_event=%s is not hw, sw or none\n", walk_event);
		return -EINVAL;
	}
	/* The time controller counts nothing: no perf event is made for it. */
	ret = setup(by_walks ? ev : TLBP_WALKS_NONE);
	if (ret)
		pr_err("cannot set up the page-walk counters (%d)\n", ret);
	return ret;
}

/* Under no lock: the tracepoint unhooked, no probe left running. */
void tlbp_adaptive_exit(void)
{
	WRITE_ONCE(tlbp_adapting, false);
	WRITE_ONCE(tlbp_timed_on, false);
	if (probe_on)
		tracepoint_probe_unregister(tlb_flush_tp, (void *)tlb_flush_probe, NULL);
	probe_on = false;
	/* Nothing registers the time controller's probe after this. */
	cancel_delayed_work_sync(&peers_work);
	if (peers_on)
		tracepoint_probe_unregister(tlb_flush_tp, (void *)timed_flush_probe, NULL);
	peers_on = false;
	tracepoint_synchronize_unregister();
	/* And the hook's slow path, which raises the ceiling with preemption off. */
	synchronize_rcu();
	cancel_delayed_work_sync(&ceiling_work);
	tlbp_walks_exit();
	walks_started = false;
	walks_any = false;
}

/* adapt/: whether the controllers decide, and each CPU's state */

static ssize_t active_show(struct kobject *k, struct kobj_attribute *at, char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(tlbp_adapting) || READ_ONCE(tlbp_timed_on));
}

static ssize_t controller_show(struct kobject *k, struct kobj_attribute *at, char *buf)
{
	return sysfs_emit(buf, "%s\n", tlbp_controller_name());
}

static ssize_t walk_event_show(struct kobject *k, struct kobj_attribute *at, char *buf)
{
	return sysfs_emit(buf, "%s\n", tlbp_walk_event_name(walk_ev));
}

static ssize_t explorations_show(struct kobject *k, struct kobj_attribute *at, char *buf)
{
	unsigned long n = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		const struct tlbp_adapt *a = per_cpu_ptr(&tlbp_cpu_adapt, cpu);

		n += READ_ONCE(a->stats.explore_widen) + READ_ONCE(a->stats.explore_keep);
	}
	return sysfs_emit(buf, "%lu\n", n);
}

/* One line per online CPU; read racily, a field at a time. */
static ssize_t by_cpu_show(struct kobject *k, struct kobj_attribute *at, char *buf)
{
	int cpu, len = 0;

	for_each_online_cpu(cpu) {
		const struct tlbp_adapt *a = per_cpu_ptr(&tlbp_cpu_adapt, cpu);
		bool on = READ_ONCE(a->mode) == TLBP_ADAPT_ON;

		/* One page: stop at a whole line, and say so. */
		if (len > PAGE_SIZE - TLBP_TIMED_LINE_MAX) {
			len += sysfs_emit_at(buf, len, "...\n");
			break;
		}
		if (!by_walks) {
			len = tlbp_timed_show_cpu(buf, len, cpu);
			continue;
		}
		len += sysfs_emit_at(buf, len,
				     "cpu=%d mode=%s why=%s counter=%d fast=%u keep=%u ceiling=%u refills=%u windows=%u explore_widened=%u explore_kept=%u decisions=%u\n",
				     cpu, on ? "pmu" : "stock",
				     tlbp_adapt_why_name(READ_ONCE(a->why)),
				     walks_started ? tlbp_walks_error(cpu) : -ENODEV,
				     READ_ONCE(a->fast), READ_ONCE(a->keep),
				     READ_ONCE(a->ceiling), tlbp_adapt_refills(a),
				     READ_ONCE(a->stats.windows),
				     READ_ONCE(a->stats.explore_widen),
				     READ_ONCE(a->stats.explore_keep),
				     READ_ONCE(a->stats.decisions));
	}
	return len;
}

static struct kobj_attribute active_attr = __ATTR_RO(active);
static struct kobj_attribute controller_attr = __ATTR_RO(controller);
static struct kobj_attribute walk_event_attr = __ATTR_RO(walk_event);
static struct kobj_attribute explorations_attr = __ATTR_RO(explorations);
static struct kobj_attribute adapt_by_cpu_attr = __ATTR(by_cpu, 0444, by_cpu_show, NULL);

static struct attribute *adapt_attrs[] = {
	&active_attr.attr, &controller_attr.attr, &walk_event_attr.attr,
	&explorations_attr.attr, &adapt_by_cpu_attr.attr, NULL,
};

const struct attribute_group tlbp_adaptive_group = {
	.name = "adapt",
	.attrs = adapt_attrs,
};
