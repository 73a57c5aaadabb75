// SPDX-License-Identifier: GPL-2.0
/*
 * The per-path counters (counters.h): summed over every possible CPU,
 * so that a CPU gone offline still counts.
 */
#include <linux/cpumask.h>
#include "counters.h"

DEFINE_PER_CPU(struct tlbp_counters, tlbp_stats);

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
