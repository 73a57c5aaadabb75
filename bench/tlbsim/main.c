// SPDX-License-Identifier: GPL-2.0
/*
 * tlbsim: replay a trace on simulated TLBs of real CPUs under several
 * TLB flush policies, and print what each costs (README.md).
 *
 *   tlbsim -c CPU [-c CPU...] [options] TRACE
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tlbsim.h"
#include "tlbpath/timectl.h"

#define CAP_DEFAULT	512	/* the module's default cap (TLBP_CAP_DEFAULT) */

static void usage(FILE *f)
{
	fprintf(f,
"usage: tlbsim -c CPU [-c CPU...] [options] TRACE\n"
"  -c, --cpu SPEC        a CPU to simulate (repeatable), optionally ending in #LABEL:\n"
"                          DUMP[@N][%%P]  CPU N of a `cpuid -r` dump (default: the first),\n"
"                                        P page walkers (default 1)\n"
"                          live[@N][%%P]  CPU N of this machine\n"
"                          geom:l1d_4k=E[/W],l2_4k=E[/W],...,walkers=P  by hand\n"
"                                        (W ways; none: fully associative)\n"
"  -p, --policies LIST   comma-separated: stock, 2012, geometry, tlbpath (the default: the\n"
"                        time controller), tlbpath-time (the same), tlbpath-pmu (walks),\n"
"                        tlbpath-both (time, and walks for remote ranges), tlbpath-model,\n"
"                        fixed:N, sweep (default: all but tlbpath-time and fixed; sweep:\n"
"                        the best fixed threshold, every one that can matter)\n"
"  -n, --noise SEED      the controllers' clock gets noise from SEED (default 0: none)\n"
"  -a, --all-thresholds  with sweep, print a row for every threshold run\n"
"  -w, --workload NAME   label of the trace in the output (default: its file name)\n"
"  -l, --loads MODE      trace (as its 'l' lines say), dep or indep: every access\n"
"                        dependent on the load before it, or none (default trace)\n"
"      --epoch N         the epochs, epoch_sd and epoch_mad columns: epochs of N flush\n"
"                        events a CPU (default 16, the time controller's tick)\n"
"  -r, --repeat N        replay the trace N times over, one run after the other\n"
"      --costs FILE      a cost set (tlbpath-probe -o); options after it override\n"
"      --invlpg N        cycles per INVLPG, per CPU reached             (default %" PRIu64 ")\n"
"      --full N          cycles per full flush, per CPU reached         (default %" PRIu64 ")\n"
"      --stlb-hit N      cycles per L1 dTLB miss that hits the STLB     (default %" PRIu64 ")\n"
"      --walk N          cycles per page walk (miss in every level)     (default %" PRIu64 ")\n"
"      --issue N         cycles an independent access takes anyway      (default %" PRIu64 ")\n"
"      --div N           the 2012 rule's FLUSHALL_BAR                   (default 16)\n"
"      --cap N           tlbpath's cap                                  (default %d)\n"
"  -H, --human           a readable table instead of CSV\n"
"      --no-header       CSV without its header line\n"
"  -g, --geometry        print each CPU model (entries/ways) and exit\n",
		sim_default_costs.invlpg, sim_default_costs.full,
		sim_default_costs.stlb_hit, sim_default_costs.walk, sim_default_costs.issue,
		CAP_DEFAULT);
}

static const char csv_header[] =
	"workload,cpu,source,l1d_4k,l1d_ways,l2_4k,l2_ways,walkers,costs,loads,policy,threshold,threshold_hi,"
	"cycles,cyc_stlb,cyc_walk,cyc_invlpg,cyc_full,accesses,l1_hits,stlb_hits,walks,"
	"calls,perpage,widened,caller_full,invlpg,full_flushes,epochs,epoch_sd,epoch_mad\n";

struct out {
	const char *workload;
	const char *loads;
	const struct sim_cpu_model *m;
	const struct sim_costs *c;
	bool human;
	uint64_t stock_cycles;
};

static void row(const struct out *o, const char *policy, uint32_t thr, uint32_t thr_hi,
		bool has_hi, const struct sim_result *r)
{
	const struct sim_cpu_model *m = o->m;
	char hi[16] = "";

	if (has_hi) {
		if (thr_hi == UINT32_MAX)
			snprintf(hi, sizeof(hi), "inf");
		else
			snprintf(hi, sizeof(hi), "%u", thr_hi);
	}
	if (o->human) {
		printf("  %-14s %5u%s%-5s %14" PRIu64 " %7.3f  stlb %-12" PRIu64 " walk %-12" PRIu64
		       " invlpg %-12" PRIu64 " full %-10" PRIu64 " kept %" PRIu64 "/%" PRIu64 "\n",
		       policy, thr, has_hi ? ".." : "  ", hi, r->cycles,
		       o->stock_cycles ? (double)r->cycles / o->stock_cycles : 0.0,
		       r->cyc_stlb, r->cyc_walk, r->cyc_invlpg, r->cyc_full,
		       r->perpage_calls, r->calls);
		return;
	}
	printf("%s,%s,%s,%u,%u,%u,%u,%u,%" PRIu64 "/%" PRIu64 "/%" PRIu64 "/%" PRIu64 "/%" PRIu64
	       ",%s,%s,%u,%s,"
	       "%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
	       ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
	       ",%" PRIu64 ",%" PRIu64 ",%.0f,%.0f\n",
	       o->workload, m->label, tlbp_geo_source_name(m->geo.source),
	       m->l1[TLBP_4K].entries, m->l1[TLBP_4K].ways, m->l2[TLBP_4K].entries,
	       m->l2[TLBP_4K].ways, m->walkers, o->c->invlpg, o->c->full, o->c->stlb_hit,
	       o->c->walk, o->c->issue, o->loads, policy, thr, hi, r->cycles, r->cyc_stlb, r->cyc_walk, r->cyc_invlpg, r->cyc_full,
	       r->accesses, r->l1_hits, r->stlb_hits, r->walks, r->calls, r->perpage_calls,
	       r->widened_calls, r->caller_full_calls, r->invlpg, r->full_flushes, r->epochs,
	       r->epoch_pairs ? sqrt(r->epoch_d2 / (double)r->epoch_pairs) : 0.0,
	       sim_epoch_mad(r));
}

static void sweep_row(void *ctx, uint32_t thr, const struct sim_result *r)
{
	row(ctx, "fixed", thr, 0, false, r);
}

static bool number(const char *s, uint64_t *v)
{
	char *end;

	if (!*s || *s == '-')
		return false;
	*v = strtoull(s, &end, 10);
	return !*end;
}

#define MAX_POLICIES	64

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cpu", required_argument, NULL, 'c' },
		{ "policies", required_argument, NULL, 'p' },
		{ "all-thresholds", no_argument, NULL, 'a' },
		{ "workload", required_argument, NULL, 'w' },
		{ "invlpg", required_argument, NULL, 1 },
		{ "full", required_argument, NULL, 2 },
		{ "stlb-hit", required_argument, NULL, 3 },
		{ "walk", required_argument, NULL, 4 },
		{ "div", required_argument, NULL, 5 },
		{ "cap", required_argument, NULL, 6 },
		{ "no-header", no_argument, NULL, 7 },
		{ "issue", required_argument, NULL, 8 },
		{ "costs", required_argument, NULL, 9 },
		{ "loads", required_argument, NULL, 'l' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "noise", required_argument, NULL, 'n' },
		{ "epoch", required_argument, NULL, 10 },
		{ "human", no_argument, NULL, 'H' },
		{ "geometry", no_argument, NULL, 'g' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct sim_costs costs = sim_default_costs;
	struct sim_policy pol[MAX_POLICIES];
	const char *policies = "stock,2012,geometry,tlbpath,tlbpath-pmu,tlbpath-both,tlbpath-model,sweep";
	const char *workload = NULL;
	struct sim_cpu_model *models = NULL;
	unsigned int nmodels = 0, npol = 0, i, j;
	uint64_t v, div = 16, cap = CAP_DEFAULT, noise = 0, repeat = 1, epoch = TLBP_TC_TICK;
	bool human = false, header = true, geometry = false, all = false, sweep = false;
	enum sim_loads loads = SIM_LOADS_TRACE;
	char err[512], buf[512], *tok, *save = NULL;
	struct sim_trace t;
	int c;

	while ((c = getopt_long(argc, argv, "c:p:aw:l:n:r:Hgh", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			models = realloc(models, (nmodels + 1) * sizeof(*models));
			if (!models || sim_model_parse(&models[nmodels], optarg, err, sizeof(err))) {
				fprintf(stderr, "tlbsim: %s\n", models ? err : "out of memory");
				return 1;
			}
			nmodels++;
			break;
		case 'p':
			policies = optarg;
			break;
		case 'a':
			all = true;
			break;
		case 'w':
			workload = optarg;
			break;
		case 'l':
			if (sim_loads_parse(optarg, &loads)) {
				fprintf(stderr, "tlbsim: --loads is trace, dep or indep, not \"%s\"\n",
					optarg);
				return 2;
			}
			break;
		case 'n':
			if (!number(optarg, &noise) || noise > UINT32_MAX) {
				fprintf(stderr, "tlbsim: bad noise seed \"%s\"\n", optarg);
				return 2;
			}
			break;
		case 10:
			if (!number(optarg, &epoch) || !epoch || epoch > 1U << 20) {
				fprintf(stderr, "tlbsim: --epoch is 1 to 1048576, not \"%s\"\n", optarg);
				return 2;
			}
			break;
		case 'r':
			if (!number(optarg, &repeat) || !repeat || repeat > 1024) {
				fprintf(stderr, "tlbsim: --repeat is 1 to 1024, not \"%s\"\n", optarg);
				return 2;
			}
			break;
		case 9:
			if (sim_costs_load(&costs, optarg, err, sizeof(err))) {
				fprintf(stderr, "tlbsim: %s\n", err);
				return 2;
			}
			break;
		case 1: case 2: case 3: case 4: case 5: case 6: case 8:
			if (!number(optarg, &v) || v > (1ull << 32) || ((c == 5 || c == 6) && !v)) {
				fprintf(stderr, "tlbsim: bad number \"%s\"\n", optarg);
				return 2;
			}
			if (c == 1)
				costs.invlpg = v;
			else if (c == 2)
				costs.full = v;
			else if (c == 3)
				costs.stlb_hit = v;
			else if (c == 4)
				costs.walk = v;
			else if (c == 8)
				costs.issue = v;
			else if (c == 5)
				div = v;
			else
				cap = v;
			break;
		case 7:
			header = false;
			break;
		case 'H':
			human = true;
			break;
		case 'g':
			geometry = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!nmodels) {
		fprintf(stderr, "tlbsim: no CPU (-c)\n");
		usage(stderr);
		return 2;
	}
	if (geometry) {
		for (i = 0; i < nmodels; i++) {
			struct sim_policy tp = { .kind = POL_TLBPATH, .cap = cap };
			struct sim_policy r12 = { .kind = POL_2012, .div = div };

			sim_model_print(stdout, &models[i]);
			printf("  thresholds: stock 33, 2012 %u (before the footprint cap), tlbpath %u\n",
			       sim_policy_threshold(&r12, &models[i], &costs),
			       sim_policy_threshold(&tp, &models[i], &costs));
		}
		return 0;
	}
	if (optind + 1 != argc) {
		usage(stderr);
		return 2;
	}

	snprintf(buf, sizeof(buf), "%s", policies);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		struct sim_policy p = { .div = div, .cap = cap, .noise = noise, .epoch = epoch };

		if (!strcmp(tok, "sweep")) {
			sweep = true;
			continue;
		} else if (!strcmp(tok, "stock")) {
			p.kind = POL_STOCK;
		} else if (!strcmp(tok, "2012")) {
			p.kind = POL_2012;
		} else if (!strcmp(tok, "tlbpath")) {
			p.kind = POL_TLBPATH;
		} else if (!strcmp(tok, "tlbpath-pmu")) {
			p.kind = POL_TLBPATH_PMU;
		} else if (!strcmp(tok, "tlbpath-time")) {
			p.kind = POL_TLBPATH_TIME;
		} else if (!strcmp(tok, "tlbpath-both")) {
			p.kind = POL_TLBPATH_BOTH;
		} else if (!strcmp(tok, "tlbpath-model")) {
			p.kind = POL_TLBPATH_MODEL;
		} else if (!strcmp(tok, "geometry")) {
			p.kind = POL_GEOMETRY;
		} else if (!strncmp(tok, "fixed:", 6) && number(tok + 6, &v) && v < UINT32_MAX) {
			p.kind = POL_FIXED;
			p.threshold = v;
		} else {
			fprintf(stderr, "tlbsim: unknown policy \"%s\"\n", tok);
			return 2;
		}
		if (npol == MAX_POLICIES) {
			fprintf(stderr, "tlbsim: at most %d policies\n", MAX_POLICIES);
			return 2;
		}
		pol[npol++] = p;
	}

	if (sim_trace_load(&t, argv[optind], err, sizeof(err))) {
		fprintf(stderr, "tlbsim: %s\n", err);
		return 1;
	}
	sim_trace_set_loads(&t, loads);
	if (sim_trace_repeat(&t, (unsigned int)repeat))
		goto fail;
	if (!workload) {
		const char *base = strrchr(argv[optind], '/');

		snprintf(buf, sizeof(buf), "%s", base ? base + 1 : argv[optind]);
		buf[strcspn(buf, ".")] = 0;
		workload = buf;
	}
	if (human)
		printf("%s: %zu events, %" PRIu64 " accesses, %" PRIu64 " ranged flushes (%zu sizes, "
		       "%" PRIu64 "..%" PRIu64 " entries), %" PRIu64 " full, %u CPUs, %" PRIu64
		       " dependent accesses (loads %s); costs invlpg %" PRIu64 " full %" PRIu64
		       " stlb_hit %" PRIu64 " walk %" PRIu64 " issue %" PRIu64 "\n",
		       workload, t.n * (t.runs ? t.runs : 1), t.accesses, t.flushes, t.nsizes,
		       t.nsizes ? t.sizes[0] : 0, t.nsizes ? t.sizes[t.nsizes - 1] : 0,
		       t.full_flushes, t.ncpus, t.dep_accesses, sim_loads_name(loads), costs.invlpg,
		       costs.full, costs.stlb_hit, costs.walk, costs.issue);
	else if (header)
		fputs(csv_header, stdout);

	for (i = 0; i < nmodels; i++) {
		struct out o = { .workload = workload, .m = &models[i], .c = &costs, .human = human,
				 .loads = sim_loads_name(loads) };
		struct sim_policy stock = { .kind = POL_STOCK };
		struct sim_result r;

		if (human) {
			sim_model_print(stdout, &models[i]);
			printf("  %-14s %-12s %14s %7s\n", "policy", "threshold", "cycles", "/stock");
		}
		if (sim_run(&t, &models[i], &stock, &costs, &r))
			goto fail;
		o.stock_cycles = r.cycles;
		for (j = 0; j < npol; j++) {
			if (sim_run(&t, &models[i], &pol[j], &costs, &r)) {
				if (pol[j].kind == POL_TLBPATH_MODEL) {
					fprintf(stderr, "tlbsim: %s: tlbpath-model: this policy.c has no "
						"calibrated model, skipped\n", models[i].label);
					continue;
				}
				goto fail;
			}
			/* The controllers: the keep they ended with. */
			row(&o, sim_policy_name(pol[j].kind),
			    pol[j].kind == POL_TLBPATH || pol[j].kind == POL_TLBPATH_PMU ||
			    pol[j].kind == POL_TLBPATH_TIME || pol[j].kind == POL_TLBPATH_BOTH ?
			    r.adapt_keep :
			    sim_policy_threshold(&pol[j], &models[i], &costs), 0, false, &r);
		}
		if (sweep) {
			uint32_t lo, hi;

			if (sim_best_fixed(&t, &models[i], &costs, &r, &lo, &hi,
					   all ? sweep_row : NULL, &o))
				goto fail;
			row(&o, "best-fixed", lo, hi, true, &r);
		}
		fflush(stdout);
	}
	sim_trace_free(&t);
	free(models);
	return 0;
fail:
	fprintf(stderr, "tlbsim: out of memory\n");
	return 1;
}
