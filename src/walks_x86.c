// SPDX-License-Identifier: GPL-2.0
/*
 * The page-walk counter of every CPU, for the adaptive policy: what a
 * full flush costs is the walks that follow it.  One pinned kernel perf
 * event per CPU, made in a CPU hotplug state (so a CPU that comes online
 * later gets one too) and stopped when its CPU goes.
 *
 * perf_event_read_local() is not exported, and perf_event_read_value()
 * may sleep; tlbp_walks_read() does what the first does for a CPU-bound
 * event read on its own CPU: the PMU's read callback, then the count.
 */
#include <linux/cpuhotplug.h>
#include <linux/err.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/perf_event.h>
#include <linux/percpu.h>
#include "walks_x86.h"

/*
 * A counter's event, and its place on the list of those that wait to be
 * released: releasing an event can take the CPU hotplug lock, which a
 * hotplug callback must not, so a CPU going offline only stops its event
 * (as the hardlockup detector does), and unload releases them all.
 */
struct walk_slot {
	struct perf_event *event;
	struct walk_slot *next;
};

struct walk_counter {
	struct walk_slot *slot;
	int error;
	unsigned int fails;	/* reads in a row that found it stopped */
};

/* A pinned event the PMU cannot schedule stays in error: give up on it. */
#define WALK_READ_FAILS	64

static DEFINE_PER_CPU(struct walk_counter, walk_counter) = { .error = -ENODEV };
static DEFINE_MUTEX(parked_lock);
static struct walk_slot *parked;
static enum cpuhp_state hp_state;
static enum tlbp_walk_event walk_event;

static struct perf_event_attr walk_attr(enum tlbp_walk_event ev)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.pinned = 1,
		.exclude_hv = 1,
	};

	if (ev == TLBP_WALKS_SW) {
		/* It counts time, but needs no PMU and no static key. */
		attr.type = PERF_TYPE_SOFTWARE;
		attr.config = PERF_COUNT_SW_CPU_CLOCK;
	} else {
		/*
		 * Intel: dTLB load misses that cause a walk; AMD Zen: L2 dTLB
		 * misses.  User and kernel alike: a flush's refills are both.
		 */
		attr.type = PERF_TYPE_HW_CACHE;
		attr.config = PERF_COUNT_HW_CACHE_DTLB |
			      (PERF_COUNT_HW_CACHE_OP_READ << 8) |
			      (PERF_COUNT_HW_CACHE_RESULT_MISS << 16);
	}
	return attr;
}

static int walks_online(unsigned int cpu)
{
	struct walk_counter *wc = per_cpu_ptr(&walk_counter, cpu);
	struct perf_event_attr attr = walk_attr(walk_event);
	struct walk_slot *slot;
	struct perf_event *e;

	slot = kzalloc(sizeof(*slot), GFP_KERNEL);
	if (!slot) {
		WRITE_ONCE(wc->error, -ENOMEM);
		return 0;	/* that CPU decides as stock; not a failure */
	}
	e = perf_event_create_kernel_counter(&attr, cpu, NULL, NULL, NULL);
	if (IS_ERR(e)) {
		kfree(slot);
		WRITE_ONCE(wc->error, PTR_ERR(e));
		return 0;
	}
	slot->event = e;
	wc->fails = 0;
	WRITE_ONCE(wc->slot, slot);
	WRITE_ONCE(wc->error, 0);
	return 0;
}

static int walks_offline(unsigned int cpu)
{
	struct walk_counter *wc = per_cpu_ptr(&walk_counter, cpu);
	struct walk_slot *slot = wc->slot;

	WRITE_ONCE(wc->slot, NULL);
	WRITE_ONCE(wc->error, -ENODEV);
	if (!slot)
		return 0;
	perf_event_disable(slot->event);
	mutex_lock(&parked_lock);
	slot->next = parked;
	parked = slot;
	mutex_unlock(&parked_lock);
	return 0;
}

int tlbp_walks_init(enum tlbp_walk_event ev)
{
	int ret;

	if (ev == TLBP_WALKS_NONE)
		return 0;
	walk_event = ev;
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "tlbpath/walks:online",
				walks_online, walks_offline);
	if (ret < 0) {
		tlbp_walks_exit();
		return ret;
	}
	hp_state = ret;
	return 0;
}

/* Stops every counter (the teardown runs on each CPU), then releases them. */
void tlbp_walks_exit(void)
{
	struct walk_slot *slot;

	if (hp_state)
		cpuhp_remove_state(hp_state);
	hp_state = 0;
	while (parked) {
		slot = parked;
		parked = slot->next;
		perf_event_release_kernel(slot->event);
		kfree(slot);
	}
}

/*
 * Interrupts off, so that the event cannot be scheduled out or move
 * between the check and the read; callers run on the CPU they read.
 */
bool tlbp_walks_read(u64 *count)
{
	struct walk_slot *slot = this_cpu_read(walk_counter.slot);
	struct perf_event *e;
	unsigned long flags;
	bool ok = false;

	if (!slot)
		return false;
	e = slot->event;
	local_irq_save(flags);
	if (e->state == PERF_EVENT_STATE_ACTIVE &&
	    READ_ONCE(e->oncpu) == smp_processor_id()) {
		e->pmu->read(e);
		*count = local64_read(&e->count);
		ok = true;
	}
	local_irq_restore(flags);
	if (ok)
		this_cpu_write(walk_counter.fails, 0);
	else if (this_cpu_inc_return(walk_counter.fails) >= WALK_READ_FAILS)
		this_cpu_write(walk_counter.error, -EBUSY);
	return ok;
}

int tlbp_walks_error(unsigned int cpu)
{
	return READ_ONCE(per_cpu(walk_counter.error, cpu));
}
