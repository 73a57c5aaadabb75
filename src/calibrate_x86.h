/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Calibration on x86 (calibrate_x86.c): the measured costs, from which
 * cpu_x86.c builds each CPU's model.
 */
#ifndef _TLBPATH_CALIBRATE_X86_H
#define _TLBPATH_CALIBRATE_X86_H

#include <linux/sysfs.h>
#include "tlbpath/policy.h"

struct tlbp_cal_info {
	int status;		/* 0 or the -errno of the last run */
	unsigned int runs;	/* 0: never calibrated (calibrate=0) */
	unsigned int cpu;	/* where it ran */
	u32 hit;		/* cycles per access that hits the TLB */
	u32 refill_invlpg;	/* refill after INVLPG: a cross-check */
};

extern struct tlbp_costs tlbp_costs;
extern struct tlbp_cal_info tlbp_cal;

/* At load, unless calibrate=0: measure (a failure only costs the model). */
void tlbp_calibrate_load(void);

/* The model file at the top, and calibration/. */
extern const struct attribute_group tlbp_model_group;
extern const struct attribute_group tlbp_calibration_group;

#endif /* _TLBPATH_CALIBRATE_X86_H */
