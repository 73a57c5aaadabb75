#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# report.sh RESULTS_DIR
#
# From RESULTS_DIR/sim.csv (run.sh), write RESULTS_DIR/results.md: per
# cost set and workload, each CPU's simulated cycles under the stock
# ceiling and the other policies as ratios to stock, and the best fixed
# threshold; a summary per workload; and, with gnuplot,
# RESULTS_DIR/best-threshold-vs-stlb.png (first cost set).
set -eu

[ $# = 1 ] || { echo "usage: $0 RESULTS_DIR" >&2; exit 2; }
dir=$1
csv=$dir/sim.csv
[ -s "$csv" ] || { echo "report.sh: $csv missing or empty" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

awk -F, -v plotdir="$tmp" '
function ratio(a, b) { return b ? sprintf("%.3f", a / b) : "-" }
function thr(lo, hi) {
	if (hi == "") return lo
	if (hi == "inf") return lo "..inf"
	return lo == hi ? lo : lo ".." hi
}
NR == 1 { next }
{
	cs = $1; w = $2; c = $3; pol = $10
	if (!(cs in seen_cs)) { seen_cs[cs] = 1; ncs++; cs_list[ncs] = cs; cost[cs] = $9 }
	if (!((cs, w) in seen_w)) { seen_w[cs, w] = 1; nw[cs]++; w_list[cs, nw[cs]] = w }
	if (!((cs, w, c) in seen_c)) {
		seen_c[cs, w, c] = 1; nc[cs, w]++; c_list[cs, w, nc[cs, w]] = c
		l1[c] = $5 "/" ($6 == $5 ? "fa" : $6 "w"); l2[c] = $7 ($7 ? "/" $8 "w" : ""); stlb[c] = $7
	}
	k = cs SUBSEP w SUBSEP c
	cyc[k, pol] = $13; th[k, pol] = thr($11, $12)
	if (pol == "best-fixed") { lo[k] = $11; hi[k] = $12 }
	if (pol == "stock") { calls[cs, w] = $22; acc[cs, w] = $18 }
}
END {
	for (i = 1; i <= ncs; i++) {
		cs = cs_list[i]
		split(cost[cs], p, "/")
		printf "### Cost set `%s`: INVLPG %s, full flush %s, STLB hit %s, page walk %s cycles\n\n", cs, p[1], p[2], p[3], p[4]
		for (j = 1; j <= nw[cs]; j++) {
			w = w_list[cs, j]
			printf "#### %s (%d accesses, %d ranged flushes)\n\n", w, acc[cs, w], calls[cs, w]
			print "| CPU | L1d 4K | STLB 4K | stock Mcycles | 2012 / stock (thr) | geometry / stock (thr) | tlbpath / stock (keep) | tlbpath-model / stock (limit) | best fixed / stock (thr) |"
			print "|---|---|---|---:|---:|---:|---:|---:|---:|"
			n = 0; sx = sy = sxx = syy = sxy = 0
			for (m = 1; m <= nc[cs, w]; m++) {
				c = c_list[cs, w, m]; k = cs SUBSEP w SUBSEP c; s = cyc[k, "stock"]
				model = ((k, "tlbpath-model") in cyc) ? ratio(cyc[k, "tlbpath-model"], s) " (" th[k, "tlbpath-model"] ")" : "n/a"
				printf "| %s | %s | %s | %.3f | %s (%s) | %s (%s) | %s (%s) | %s | %s (%s) |\n", c, l1[c], l2[c], s / 1e6,
					ratio(cyc[k, "2012"], s), th[k, "2012"], ratio(cyc[k, "geometry"], s), th[k, "geometry"],
					ratio(cyc[k, "tlbpath"], s), th[k, "tlbpath"],
					model, ratio(cyc[k, "best-fixed"], s), th[k, "best-fixed"]
				# summary
				r = s ? cyc[k, "best-fixed"] / s : 1
				if (r >= 0.9995) stockbest[cs, w]++
				if (!((cs, w) in worst) || r < worst[cs, w]) { worst[cs, w] = r; worstc[cs, w] = c }
				tr = s ? cyc[k, "tlbpath"] / s : 1
				if (!((cs, w) in tpmax) || tr > tpmax[cs, w]) tpmax[cs, w] = tr
				if (!((cs, w) in tpmin) || tr < tpmin[cs, w]) tpmin[cs, w] = tr
				# the criteria of issue 16, per cell
				tb = cyc[k, "best-fixed"] ? cyc[k, "tlbpath"] / cyc[k, "best-fixed"] : 1
				sb = cyc[k, "best-fixed"] ? s / cyc[k, "best-fixed"] : 1
				cell = cs " / " w " / " c
				ncell++
				if (!(1 in cw) || tr > cw[1]) { cw[1] = tr; cc[1] = cell }
				if (!(2 in cw) || tb > cw[2]) { cw[2] = tb; cc[2] = cell }
				if (!((cs, w) in tbmax) || tb > tbmax[cs, w]) { tbmax[cs, w] = tb; tbc[cs, w] = c }
				if (tr > 1.02) { nbad[1]++; bad[1] = bad[1] sprintf("%s %.3f; ", cell, tr) }
				if (tb > 1.10) { nbad[2]++; bad[2] = bad[2] sprintf("%s %.3f; ", cell, tb) }
				if (sb >= 1.2) {
					n3++
					if (!(3 in cw) || tr > cw[3]) { cw[3] = tr; cc[3] = cell }
					if (tr > 0.90) { nbad[3]++; bad[3] = bad[3] sprintf("%s %.3f; ", cell, tr) }
				}
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
	print "### The adaptive default (tlbpath) against the criteria of issue 16\n"
	printf "Over %d cells (cost set x workload x CPU); *default* is `tlbpath`, the module'"'"'s default with the adaptive controller.\n\n", ncell
	print "| criterion | cells | worst cell | worst | holds |"
	print "|---|---:|---|---:|---|"
	name[1] = "default / stock <= 1.02"; lim[1] = 1.02
	name[2] = "default / best fixed <= 1.10"; lim[2] = 1.10
	name[3] = "default / stock <= 0.90 where stock / best fixed >= 1.2"; lim[3] = 0.90
	for (q = 1; q <= 3; q++) {
		ncq = q == 3 ? n3 : ncell
		printf "| %s | %d | %s | %s | %s |\n", name[q], ncq, (q in cc) ? cc[q] : "-", (q in cw) ? sprintf("%.3f", cw[q]) : "-", nbad[q] ? "**no**: " nbad[q] " cells" : "yes"
		printf "%s %s %d %s\n", nbad[q] ? "FAIL" : "PASS", name[q], nbad[q] + 0, bad[q] > (plotdir "/criteria")
	}
	print ""
	printf "Best cell: default / stock %.3f (%s); geometric mean over all cells: default / stock %.3f, default / best fixed %.3f.\n", cw[4], cc[4], exp(lsum / ncell), exp(lbest / ncell)
	for (q = 1; q <= 3; q++)
		if (nbad[q]) printf "\nCells failing \"%s\": %s\n", name[q], bad[q]
	for (i = 1; i <= ncs; i++) {
		printf "%d %s %s\n", i, cs_list[i], cost[cs_list[i]] > (plotdir "/costsets")
		for (j = 1; j <= nw[cs_list[i]]; j++)
			printf "%d %d %s\n", i, j, w_list[cs_list[i], j] > (plotdir "/workloads")
	}
}' "$csv" >"$tmp/tables.md"

{
	cat <<EOF
## Simulated TLB flush policies (simulated, cost model from a5102476a24b and LKML measurements)

Generated $(date -u +%Y-%m-%d) by \`bench/tlbsim/run.sh\` from \`sim.csv\`
(what ran: \`run.txt\`).  **Simulated**, not measured: each bench
workload's own trace (its accesses and the ranges its calls flush) is
replayed on per-CPU first-level and second-level data TLBs sized by
tlbpath's CPUID parser for that CPU, set-associative with LRU, and costed
with the published per-event cycle counts of the cost set (README.md,
sim.c).  Ratios are to the stock kernel (per-page iff entries <= 33);
below 1 is cheaper.  *2012* is Alex Shi's rule (entries <= min(last-level
dTLB, total_vm) / 16); *geometry* tlbpath's first default (l1d_4k / 2 + 1),
retired on these numbers; *tlbpath* the module's default decision now: the
adaptive controller (src/adapt.c, Documentation/adaptive.md) on every
simulated CPU, fed that CPU's simulated page-walk count (its column: the
largest break-even it ended with); *tlbpath-model* its calibrated model fed the cost set's
numbers (n/a where this policy.c has none); *best fixed* the cheapest
single threshold for that workload and CPU, found after the fact (every
threshold in the range gives the same decisions), so it flatters.
Deterministic: the same traces give the same numbers.

EOF
	cat "$tmp/tables.md"
} >"$dir/results.md"
cp "$tmp/criteria" "$dir/criteria.txt"

# One panel per cost set: each workload's best threshold (point: the
# smallest; bar: every threshold as good, up to the top for "any above").
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
		while read -r i cs cost; do
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
