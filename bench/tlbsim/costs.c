// SPDX-License-Identifier: GPL-2.0
/*
 * Cost sets from files: what tlbpath-probe measured on a machine
 * (tools/tlbpath-probe.c writes them; README.md, "Cost sets").
 *
 *   # comments
 *   invlpg N      cycles of one INVLPG
 *   full N        of one full flush, without its refills
 *   stlb_hit N    of a dependent access that misses L1 and hits the STLB
 *   walk N        of a dependent access that walks
 *   issue N       of an independent access, TLB hit or not
 *
 * Every key once, each a decimal number; anything else is refused.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tlbsim.h"

static const char *const keys[] = { "invlpg", "full", "stlb_hit", "walk", "issue" };
#define NKEYS	(sizeof(keys) / sizeof(keys[0]))

static uint64_t *slot(struct sim_costs *c, unsigned int i)
{
	uint64_t *v[NKEYS] = { &c->invlpg, &c->full, &c->stlb_hit, &c->walk, &c->issue };

	return v[i];
}

int sim_costs_load(struct sim_costs *c, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	unsigned int seen = 0, i;
	unsigned long lineno = 0;
	size_t cap = 0;
	char *line = NULL;
	int ret = -1;

	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	memset(c, 0, sizeof(*c));
	while (getline(&line, &cap, f) > 0) {
		char key[32], rest[2];
		unsigned long long v;
		int n;

		lineno++;
		if (line[strspn(line, " \t\r\n")] == 0 || line[0] == '#')
			continue;
		n = sscanf(line, "%31s %llu %1s", key, &v, rest);
		for (i = 0; n == 2 && i < NKEYS && strcmp(key, keys[i]); i++)
			;
		if (n != 2 || i == NKEYS || strchr(line, '-') || v > (1ull << 32)) {
			line[strcspn(line, "\r\n")] = 0;
			snprintf(err, errlen, "%s:%lu: bad line \"%.60s\" (KEY NUMBER, KEY one of invlpg full stlb_hit walk issue)",
				 path, lineno, line);
			goto out;
		}
		if (seen & (1u << i)) {
			snprintf(err, errlen, "%s:%lu: %s given twice", path, lineno, key);
			goto out;
		}
		seen |= 1u << i;
		*slot(c, i) = v;
	}
	for (i = 0; i < NKEYS; i++)
		if (!(seen & (1u << i))) {
			snprintf(err, errlen, "%s: no %s", path, keys[i]);
			goto out;
		}
	ret = 0;
out:
	free(line);
	fclose(f);
	return ret;
}
