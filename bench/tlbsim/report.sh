#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# report.sh RESULTS_DIR [CORPUS_TSV]
#
# From RESULTS_DIR/sim.csv (run.sh), write RESULTS_DIR/results.md: per
# cost set and workload, each CPU's simulated cycles under the stock
# ceiling and the other policies as ratios to stock, and the best fixed
# threshold; a summary per workload; the real programs' (workloads named
# app-*, with their flushes by size from CORPUS_TSV); and, with gnuplot,
# RESULTS_DIR/best-threshold-vs-stlb.png and RESULTS_DIR/programs.png.
set -eu

[ $# = 1 ] || [ $# = 2 ] || { echo "usage: $0 RESULTS_DIR [CORPUS_TSV]" >&2; exit 2; }
dir=$1
corpus_tsv=${2:-/dev/null}
csv=$dir/sim.csv
[ -s "$csv" ] || { echo "report.sh: $csv missing or empty" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Each generated workload's CPUs, from its trace (tlbsim's own count):
# one CPU's own ranges, or ranges that reach others.  The real programs
# (app-*) are a kind of their own.
sim=$(dirname "$0")
for t in "$sim"/build/traces/*.trace; do
	[ -e "$t" ] || continue
	n=$("$sim/build/tlbsim" -H -p stock -c geom:l1d_4k=64 "$t" 2>/dev/null | head -n 1 |
		sed -n 's/.* \([0-9]*\) CPUs.*/\1/p')
	echo "$(basename "$t" .trace) ${n:-0}"
done >"$tmp/cpus"

awk -F, -v plotdir="$tmp" -v corpus_tsv="$corpus_tsv" -v cpus_txt="$tmp/cpus" '
function ratio(a, b) { return b ? sprintf("%.3f", a / b) : "-" }
# The real programs: their flushes by size, then per cost set and loads
# what stock, the best fixed threshold and the default cost, over the CPUs.
# The default by kind of workload: geometric means of default / stock
# and / best fixed, and how many cells reach 0.90 and 0.75 of stock or
# go above 1.02 of it.
function kinds(   line, f, k, kk, cs, w, c, s, b, d, kind, nk, ls, lb, n90, n75, n102, label) {
	while ((getline line < cpus_txt) > 0) {
		split(line, f, " ")
		wcpus[f[1]] = f[2]
	}
	label[1] = "one CPU'"'"'s own ranges"
	label[2] = "ranges that reach other CPUs"
	label[3] = "real programs"
	for (kk in cellkey) {
		split(kk, f, SUBSEP); cs = f[1]; w = f[2]; c = f[3]
		s = cyc[kk, "stock"]; b = cyc[kk, "best-fixed"]; d = cyc[kk, "tlbpath"]
		if (!s || !b || d == "") continue
		kind = w ~ /^app-/ ? 3 : !(w in wcpus) || !wcpus[w] ? 0 : wcpus[w] > 1 ? 2 : 1
		if (!kind) continue
		nk[kind]++; ls[kind] += log(d / s); lb[kind] += log(d / b)
		n90[kind] += d / s <= 0.90; n75[kind] += d / s <= 0.75; n102[kind] += d / s > 1.02
	}
	print "\n### By kind of workload\n"
	print "The default (tlbpath), geometric means over the cells of each kind (a workload'"'"'s kind: its trace'"'"'s CPUs, or a real program):\n"
	print "| workloads | cells | tlbpath / stock | cells <= 0.90 | cells <= 0.75 | cells above 1.02 | tlbpath / best fixed |"
	print "|---|---:|---:|---:|---:|---:|---:|"
	for (k = 1; k <= 3; k++)
		if (nk[k])
			printf "| %s | %d | %.3f | %d | %d | %d | %.3f |\n", label[k], nk[k], exp(ls[k] / nk[k]), n90[k], n75[k], n102[k], exp(lb[k] / nk[k])
}

function programs(   line, f, h, i, j, cs, w, m, c, k, st, b, d, nn, lg, lgb, tmin, tmax, bmax, lo2, hi2, more, less, right, verdict, np, sum) {
	np = 0
	for (i = 1; i <= ncs; i++)
		for (j = 1; j <= nw[cs_list[i]]; j++)
			if (w_list[cs_list[i], j] ~ /^app-/ && !(w_list[cs_list[i], j] in isprog)) {
				isprog[w_list[cs_list[i], j]] = 1; prog[++np] = w_list[cs_list[i], j]
			}
	if (!np) return
	print "### Real programs (bench/traces)\n"
	print "Each program'"'"'s own trace (bench/traces/README.md: what ran), on the CPUs `run.txt` names.  Ranged flushes by size, in entries (pages, or 2M pages for a 2M stride), from corpus.tsv:\n"
	while ((getline line < corpus_tsv) > 0) {
		n_f = split(line, f, "\t")
		if (f[1] == "name") { for (i = 1; i <= n_f; i++) h[f[i]] = i; continue }
		for (i = 1; i <= n_f; i++) tsv[f[1], i] = f[i]
	}
	print "| program | tasks | vCPUs | accesses | ranged flushes | 1 | 2-4 | 5-16 | 17-33 | 34-64 | 65-256 | 257-1024 | >1024 | 2M stride |"
	print "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	for (m = 1; m <= np; m++) {
		w = substr(prog[m], 5)
		if (!("accesses" in h) || !((w, 1) in tsv)) { printf "| %s | (not in corpus.tsv) |\n", w; continue }
		printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", w, tsv[w, h["tasks"]], tsv[w, h["cpus"]], tsv[w, h["accesses"]], tsv[w, h["flushes"]],
			tsv[w, h["f_1"]], tsv[w, h["f_2-4"]], tsv[w, h["f_5-16"]], tsv[w, h["f_17-33"]], tsv[w, h["f_34-64"]],
			tsv[w, h["f_65-256"]], tsv[w, h["f_257-1024"]], tsv[w, h["f_>1024"]], tsv[w, h["f_2m_stride"]]
	}
	print ""
	print "Per cost set and loads, over the CPUs: each CPU'"'"'s best fixed threshold (the smallest of the equally good ones: lowest..highest over the CPUs), stock and the default against it (geometric mean, worst CPU), and which way 33 is wrong: *right* where 33 is within 2% of the best on every CPU, else *too high* where a smaller threshold (more full flushes) is cheaper on most CPUs where it is wrong, *too low* where a larger one (more ranges kept) is.\n"
	print "| program | cost set, loads | stock Mcycles | best threshold | stock / best (worst) | tlbpath / stock (range) | tlbpath / best (worst) | 33 is |"
	print "|---|---|---:|---:|---:|---:|---:|---|"
	for (m = 1; m <= np; m++) {
		w = prog[m]
		for (i = 1; i <= ncs; i++) {
			cs = cs_list[i]
			if (!((cs, w) in nc)) continue
			nn = lg = lgb = sum = bmax = tmax = hi2 = more = less = right = 0
			tmin = 1e9; lo2 = 1e9; hi_b = 0
			for (j = 1; j <= nc[cs, w]; j++) {
				c = c_list[cs, w, j]; k = cs SUBSEP w SUBSEP c
				st = cyc[k, "stock"]; b = cyc[k, "best-fixed"]; d = cyc[k, "tlbpath"]
				if (!b || !st) continue
				nn++; sum += st
				lg += log(st / b); lgb += log(d / b)
				if (st / b > bmax) bmax = st / b
				if (d / b > tmax) tmax = d / b
				if (d / st < tmin) tmin = d / st
				if (d / st > hi2) hi2 = d / st
				if (lo[k] + 0 < lo2) lo2 = lo[k] + 0
				if (lo[k] + 0 > hi_b) hi_b = lo[k] + 0
				if (st / b <= 1.02) right++
				else if (lo[k] + 0 > 33) more++
				else less++
			}
			if (!nn) continue
			verdict = right == nn ? "right" : (less >= more ? "too high" : "too low") " on " (nn - right) " of " nn " CPUs"
			printf "| %s | %s | %.3f | %s | %.3f (%.3f) | %.3f..%.3f | %.3f (%.3f) | %s |\n", substr(w, 5), cs, sum / nn / 1e6, (lo2 == hi_b ? lo2 : lo2 ".." hi_b),
				exp(lg / nn), bmax, tmin, hi2, exp(lgb / nn), tmax, verdict
			printf "%d %d %s %.4f %.4f\n", i, m, substr(w, 5), exp(-lg / nn), exp(lgb / nn - lg / nn) >> (plotdir "/programs.dat")
		}
	}
	print ""
}
# Whether criterion @q (END'"'"'s lim[] and name[]) applies to a cell.
function applies(q, cs, w, s, b) {
	if (q == 3) return s / b >= 1.2
	if (q == 4) return cs ~ /^emr-vm, indep/ && w ~ /^mprotect-(seed|bench|quick)$/
	return 1
}
# What evidence can reach: a learner that knows the best fixed threshold
# and times whole epochs (TLBP_TC_TICK flush events per CPU), switching
# between it and stock, tells the two apart at 3 standard errors after
# need = (3 sd / delta)^2 pairs of epochs: delta, what an epoch saves
# (stock - best over stock'"'"'s epochs), sd, what two epochs differ by
# anyway (tlbsim'"'"'s epoch_sd of stock'"'"'s run; the sweep'"'"'s have no
# noise).  Until then it pays stock and best alternately, after it best:
# best + need x delta at the least, or stock where the trace holds fewer
# than need pairs (or than 2: one says nothing of the spread).  A miss of
# a criterion is out of reach of evidence where even that is beyond it;
# and out of reach of a robust learner where it is with sd the spread
# that leaves the long gaps out (tlbsim'"'"'s epoch_mad).
function reach(q, s, b, e, sd,   delta, need, a) {
	delta = e ? (s - b) / e : 0
	need = delta > 0 ? (3 * sd / delta) ^ 2 : 1e30
	# Two pairs at the least: one difference says nothing of its spread.
	need = need < 2 ? 2 : need
	a = need <= e / 2 ? b + need * delta : s
	return (q == 2 ? a / b : a / s) <= lim[q]
}
function learnable(   kk, f, cs, w, c, s, b, d, e, q, v, nout, nrob, miss, any, byw, ww, names, nn, i2, j2, t, line) {
	for (kk in cellkey)
		if ((kk, "stock") in ep) { any = 1; break }
	if (!any) return
	print "\n### What evidence can reach\n"
	print "A learner that knew the best fixed threshold and switched whole epochs (16 flush events a CPU, as the time controller'"'"'s) between it and stock would tell the two apart at 3 standard errors after *need* = (3 sd / delta)^2 pairs: delta is what an epoch saves, sd what two epochs differ by anyway (the workload'"'"'s own variation and the clock'"'"'s noise: tlbsim'"'"'s `epoch_sd` of stock'"'"'s run). It pays stock and best alternately until then: at the least best + need x delta, or stock where the trace holds fewer than *need* pairs (2 at the least). A miss is *out of reach* where even that misses the criterion; no controller that waits for that evidence meets it there. *Robust*: the same learner, its sd taken as if it left out the long gaps of the workload'"'"'s own time (`epoch_mad`: 1.4826 x the median difference).\n"
	print "| criterion | misses (default) | out of reach of evidence | robust, out of reach too | of them, by workload |"
	print "|---|---:|---:|---:|---|"
	for (q = 2; q <= 3; q++) {
		delete byw; miss = 0; nout = 0; nrob = 0
		for (kk in cellkey) {
			split(kk, f, SUBSEP); cs = f[1]; w = f[2]; c = f[3]
			s = cyc[kk, "stock"]; b = cyc[kk, "best-fixed"]; d = cyc[kk, "tlbpath"]; e = ep[kk, "stock"] + 0
			if (!s || !b || d == "") continue
			v = q == 2 ? d / b : d / s
			if (!applies(q, cs, w, s, b) || v <= lim[q]) continue
			miss++
			if (reach(q, s, b, e, esd[kk, "stock"])) continue
			nout++; byw[w]++
			nrob += !reach(q, s, b, e, emad[kk, "stock"])
		}
		# By count, then name: awk'"'"'s own order is no order.
		nn = 0
		for (ww in byw) names[++nn] = ww
		for (i2 = 2; i2 <= nn; i2++)
			for (j2 = i2; j2 > 1 && (byw[names[j2]] > byw[names[j2 - 1]] ||
			     byw[names[j2]] == byw[names[j2 - 1]] && names[j2] < names[j2 - 1]); j2--) {
				t = names[j2]; names[j2] = names[j2 - 1]; names[j2 - 1] = t
			}
		line = ""
		for (i2 = 1; i2 <= nn; i2++) line = line (i2 > 1 ? ", " : "") names[i2] " " byw[names[i2]]
		printf "| default %s | %d | %d | %s | %s |\n", name[q], miss, nout,
		       robust ? nrob : "-", line
	}
}
function thr(lo, hi) {
	if (hi == "") return lo
	if (hi == "inf") return lo "..inf"
	return lo == hi ? lo : lo ".." hi
}
# Columns by name (the header of tlbsim, with the cost set first).
NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
{
	# A cost set with each kind of loads is a column of tables of its own.
	cs = $col["cost_set"] ", " $col["loads"] " loads"; w = $col["workload"]; c = $col["cpu"]
	pol = $col["policy"]
	if (!(cs in seen_cs)) { seen_cs[cs] = 1; ncs++; cs_list[ncs] = cs; cost[cs] = $col["costs"] }
	if (!((cs, w) in seen_w)) { seen_w[cs, w] = 1; nw[cs]++; w_list[cs, nw[cs]] = w }
	if (!((cs, w, c) in seen_c)) {
		seen_c[cs, w, c] = 1; nc[cs, w]++; c_list[cs, w, nc[cs, w]] = c
		l1e = $col["l1d_4k"]; l1w = $col["l1d_ways"]; l2e = $col["l2_4k"]; l2w = $col["l2_ways"]
		l1[c] = l1e "/" (l1w == l1e ? "fa" : l1w "w"); l2[c] = l2e (l2e ? "/" l2w "w" : "")
		stlb[c] = l2e; walkers[c] = $col["walkers"]
	}
	k = cs SUBSEP w SUBSEP c
	cyc[k, pol] = $col["cycles"]; th[k, pol] = thr($col["threshold"], $col["threshold_hi"])
	if ("epoch_sd" in col) { ep[k, pol] = $col["epochs"]; esd[k, pol] = $col["epoch_sd"] }
	if ("epoch_mad" in col) { robust = 1; emad[k, pol] = $col["epoch_mad"] }
	if (pol == "best-fixed") { lo[k] = $col["threshold"]; hi[k] = $col["threshold_hi"] }
	if (pol == "stock") { calls[cs, w] = $col["calls"]; acc[cs, w] = $col["accesses"] }
}
END {
	for (i = 1; i <= ncs; i++) {
		cs = cs_list[i]
		split(cost[cs], p, "/")
		printf "### Cost set `%s`: INVLPG %s, full flush %s, STLB hit %s, page walk %s, issue %s cycles\n\n", cs, p[1], p[2], p[3], p[4], p[5]
		for (j = 1; j <= nw[cs]; j++) {
			w = w_list[cs, j]
			printf "#### %s (%d accesses, %d ranged flushes)\n\n", w, acc[cs, w], calls[cs, w]
			print "| CPU | L1d 4K | STLB 4K | walkers | stock Mcycles | 2012 / stock (thr) | geometry / stock (thr) | tlbpath / stock (keep) | tlbpath-pmu / stock | tlbpath-both / stock | best fixed / stock (thr) |"
			print "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
			n = 0; sx = sy = sxx = syy = sxy = 0
			for (m = 1; m <= nc[cs, w]; m++) {
				c = c_list[cs, w, m]; k = cs SUBSEP w SUBSEP c; s = cyc[k, "stock"]
				printf "| %s | %s | %s | %s | %.3f | %s (%s) | %s (%s) | %s (%s) | %s | %s | %s (%s) |\n", c, l1[c], l2[c], walkers[c], s / 1e6,
					ratio(cyc[k, "2012"], s), th[k, "2012"], ratio(cyc[k, "geometry"], s), th[k, "geometry"],
					ratio(cyc[k, "tlbpath"], s), th[k, "tlbpath"],
					ratio(cyc[k, "tlbpath-pmu"], s), ratio(cyc[k, "tlbpath-both"], s),
					ratio(cyc[k, "best-fixed"], s), th[k, "best-fixed"]
				# summary
				r = s ? cyc[k, "best-fixed"] / s : 1
				if (r >= 0.9995) stockbest[cs, w]++
				if (!((cs, w) in worst) || r < worst[cs, w]) { worst[cs, w] = r; worstc[cs, w] = c }
				tr = s ? cyc[k, "tlbpath"] / s : 1
				if (!((cs, w) in tpmax) || tr > tpmax[cs, w]) tpmax[cs, w] = tr
				if (!((cs, w) in tpmin) || tr < tpmin[cs, w]) tpmin[cs, w] = tr
				tb = cyc[k, "best-fixed"] ? cyc[k, "tlbpath"] / cyc[k, "best-fixed"] : 1
				sb = cyc[k, "best-fixed"] ? s / cyc[k, "best-fixed"] : 1
				cell = cs " / " w " / " c
				ncell++
				cellkey[k] = 1
				if (!((cs, w) in tbmax) || tb > tbmax[cs, w]) { tbmax[cs, w] = tb; tbc[cs, w] = c }
				if (!(4 in cw) || tr < cw[4]) { cw[4] = tr; cc[4] = cell }
				lsum += log(tr); lbest += log(tb)
				gr = s ? cyc[k, "geometry"] / s : 1
				if (!((cs, w) in grmax) || gr > grmax[cs, w]) grmax[cs, w] = gr
				mr = ((k, "tlbpath-model") in cyc) && s ? cyc[k, "tlbpath-model"] / s : 1
				if (!((cs, w) in mrmax) || mr > mrmax[cs, w]) mrmax[cs, w] = mr
				if (!((cs, w) in mrmin) || mr < mrmin[cs, w]) mrmin[cs, w] = mr
				r12 = s ? cyc[k, "2012"] / s : 1
				if (!((cs, w) in r12max) || r12 > r12max[cs, w]) r12max[cs, w] = r12
				x = stlb[c]; y = lo[k]; n++; sx += x; sy += y; sxx += x * x; syy += y * y; sxy += x * y
				printf "%s %s %s %s\n", x, y, y, (hi[k] == "inf" ? 140 : hi[k]) >> (plotdir "/" i "-" j ".dat")
			}
			vx = n * sxx - sx * sx; vy = n * syy - sy * sy
			corr[cs, w] = (vx > 0 && vy > 0) ? sprintf("%+.2f", (n * sxy - sx * sy) / sqrt(vx * vy)) : "n/a"
			ncpu[cs, w] = n
			print ""
		}
	}
	print "### Summary\n"
	print "| cost set | workload | CPUs where stock (33) is already best | stock / best, worst CPU | tlbpath / stock, range | tlbpath / best, worst CPU | geometry / stock, worst | tlbpath-model / stock, range | 2012 / stock, worst | corr(best threshold, STLB entries) |"
	print "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
	for (i = 1; i <= ncs; i++) {
		cs = cs_list[i]
		for (j = 1; j <= nw[cs]; j++) {
			w = w_list[cs, j]
			printf "| %s | %s | %d of %d | %.3f (%s) | %.3f..%.3f | %.3f (%s) | %.3f | %.3f..%.3f | %.3f | %s |\n", cs, w, stockbest[cs, w] + 0, ncpu[cs, w],
				1 / worst[cs, w], worstc[cs, w], tpmin[cs, w], tpmax[cs, w], tbmax[cs, w], tbc[cs, w], grmax[cs, w],
				mrmin[cs, w], mrmax[cs, w], r12max[cs, w], corr[cs, w]
		}
	}
	print ""
	programs()
	print "### The adaptive default (tlbpath) against the criteria\n"
	printf "Over %d cells (cost set x loads x workload x CPU).  *default* is `tlbpath`, the module'"'"'s default, the time controller, which is also what a machine without a PMU gets; `tlbpath-pmu` (walks counted) and `tlbpath-both` (time, and walks for the ranges that reach other CPUs) for comparison.\n\n", ncell
	print "| policy | criterion | cells | worst cell | worst | holds |"
	print "|---|---|---:|---|---:|---|"
	np = split("tlbpath tlbpath-pmu tlbpath-both", P, " ")
	lim[1] = 1.02; lim[2] = 1.10; lim[3] = 0.90; lim[4] = 0.75
	name[1] = "/ stock <= 1.02"
	name[2] = "/ best fixed <= 1.10"
	name[3] = "/ stock <= 0.90 where stock / best fixed >= 1.2"
	name[4] = "/ stock <= 0.75 on emr-vm, independent loads, mprotect-seed and mprotect-bench"
	for (q = 1; q <= np; q++) {
		pol = P[q]
		delete nb; delete wv; delete wc; delete bl; delete nq
		for (kk in cellkey) {
			split(kk, f, SUBSEP); cs = f[1]; w = f[2]; c = f[3]
			s = cyc[kk, "stock"]; b = cyc[kk, "best-fixed"]; d = cyc[kk, pol]
			if (!s || !b || d == "") continue
			cell = cs " / " w " / " c
			v[1] = d / s; v[2] = d / b; v[3] = d / s; v[4] = d / s
			for (c2 = 1; c2 <= 4; c2++) {
				if (!applies(c2, cs, w, s, b)) continue
				nq[c2]++
				if (!(c2 in wv) || v[c2] > wv[c2]) { wv[c2] = v[c2]; wc[c2] = cell }
				if (v[c2] > lim[c2]) { nb[c2]++; bl[c2] = bl[c2] sprintf("%s %.3f; ", cell, v[c2]) }
			}
		}
		for (c2 = 1; c2 <= 4; c2++) {
			printf "| %s | %s %s | %d | %s | %s | %s |\n", pol, pol, name[c2], nq[c2], (c2 in wc) ? wc[c2] : "-", (c2 in wv) ? sprintf("%.3f", wv[c2]) : "-", nb[c2] ? "**no**: " nb[c2] " cells" : (nq[c2] ? "yes" : "-")
			printf "%s %s %s %d %s\n", nb[c2] ? "FAIL" : "PASS", pol, name[c2], nb[c2] + 0, bl[c2] > (plotdir "/criteria")
		}
	}
	print ""
	printf "Best cell: default / stock %.3f (%s); geometric mean over all cells: default / stock %.3f, default / best fixed %.3f.\n", cw[4], cc[4], exp(lsum / ncell), exp(lbest / ncell)
	kinds()
	learnable()
	for (i = 1; i <= ncs; i++) {
		printf "%d\t%s\t%s\n", i, cs_list[i], cost[cs_list[i]] > (plotdir "/costsets")
		for (j = 1; j <= nw[cs_list[i]]; j++)
			printf "%d %d %s\n", i, j, w_list[cs_list[i], j] > (plotdir "/workloads")
	}
}' "$csv" >"$tmp/tables.md"

{
	cat <<EOF
## Simulated TLB flush policies (simulated; published and measured cost sets)

Generated $(date -u +%Y-%m-%d) by \`bench/tlbsim/run.sh\` from \`sim.csv\`
(what ran: \`run.txt\`).  **Simulated**, not measured: each workload's
own trace (its accesses and the ranges its calls flush; the bench
programs', gen.c's, and the real programs' of bench/traces) is replayed on
per-CPU first-level and second-level data TLBs sized by tlbpath's CPUID
parser for that CPU, set-associative with LRU, with independent misses
overlapping up to the CPU's page walkers, and costed with the cost set's
cycles: published (hansen2014, molnar2015) or measured by tlbpath-probe
(emr-vm, zen5-vm; Documentation/tlbsim-real.md).  Every cell runs with
all loads independent, then all dependent.  Ratios are to the stock
kernel (per-page iff entries <= 33); below 1 is cheaper.  *2012* is Alex
Shi's rule (entries <= min(last-level dTLB, total_vm) / 16); *geometry*
tlbpath's first default (l1d_4k / 2 + 1), retired on these numbers;
*tlbpath* the module's default: the time controller (src/timectl.c,
Documentation/adaptive.md) on every simulated CPU, on a clock made of
the simulated cycles plus seeded noise (its column: the local threshold
it ended with); *tlbpath-pmu* the walk controller (controller=walks) fed
the simulated walks; *tlbpath-both* time for local ranges, walks for
remote ones; *tlbpath-model* the calibrated model fed the cost set's
numbers; *best fixed* the cheapest single threshold for that workload
and CPU, found after the fact (every threshold in the range gives the
same decisions), so it flatters.
Deterministic: the same traces give the same numbers.

EOF
	cat "$tmp/tables.md"
} >"$dir/results.md"
cp "$tmp/criteria" "$dir/criteria.txt"

# One panel per cost set: each workload's best threshold (point: the
# smallest; bar: every threshold as good, up to the top for "any above").
tab=$(printf '\t')
if command -v gnuplot >/dev/null && [ -s "$tmp/costsets" ]; then
	ncs=$(wc -l <"$tmp/costsets")
	{
		echo "set terminal pngcairo size 1100,$((420 * ncs)) font ',10' noenhanced"
		echo "set output '$dir/best-threshold-vs-stlb.png'"
		echo "set multiplot layout $ncs,1"
		echo "set logscale x 2; set xrange [96:6144]; set yrange [0:140]; set grid"
		echo "set key outside right top"
		echo "set xlabel 'second-level dTLB entries, 4K pages (points spread apart a little)'"
		echo "set ylabel 'best fixed threshold'"
		while IFS="$tab" read -r i cs cost; do
			plot=""
			while read -r ci j w; do
				[ "$ci" = "$i" ] || continue
				plot="$plot${plot:+, }'$tmp/$i-$j.dat' using (\$1 * (1 + 0.025 * ($j - 3.5))):2:3:4 with yerrorbars pt 7 ps 0.8 title '$w'"
			done <"$tmp/workloads"
			echo "set title 'Best fixed threshold against STLB size, simulated, cost set $cs (INVLPG/full/STLB hit/walk = $cost cycles)'"
			echo "plot $plot, 33 with lines dt 2 lc rgb 'black' title 'stock (33)'"
		done <"$tmp/costsets"
		echo "unset multiplot"
	} >"$tmp/plot.gp"
	gnuplot "$tmp/plot.gp" || echo "report.sh: gnuplot failed" >&2
fi

# The real programs: per cost set and loads, the best fixed threshold's
# and the default's cost against stock (geometric means over the CPUs).
if command -v gnuplot >/dev/null && [ -s "$tmp/programs.dat" ]; then
	ncs=$(wc -l <"$tmp/costsets")
	rows=$(((ncs + 1) / 2))
	{
		echo "set terminal pngcairo size 1200,$((330 * rows)) font ',9' noenhanced"
		echo "set output '$dir/programs.png'"
		echo "set multiplot layout $rows,2"
		echo "set logscale y; set grid ytics; set key bottom left"
		echo "set ylabel 'cost / stock (simulated)'"
		awk '{ print $2, $3 }' "$tmp/programs.dat" | sort -un | awk '
			{ t = t (t ? ", " : "") "\"" $2 "\" " $1; n = $1 }
			END { print "set xtics rotate by -30 (" t ")"; print "set xrange [0.5:" n + 0.5 "]" }'
		while IFS="$tab" read -r i cs cost; do
			echo "set title 'Real programs, cost set $cs'"
			echo "plot '$tmp/programs.dat' using (\$1 == $i ? \$2 : 1/0):4 with points pt 9 ps 1.3 title 'best fixed', '' using (\$1 == $i ? \$2 : 1/0):5 with points pt 7 title 'tlbpath (default)', 1 with lines dt 2 lc rgb 'black' title 'stock (33)'"
		done <"$tmp/costsets"
		echo "unset multiplot"
	} >"$tmp/programs.gp"
	gnuplot "$tmp/programs.gp" || echo "report.sh: gnuplot failed for programs.png" >&2
fi
