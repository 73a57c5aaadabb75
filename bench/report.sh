#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# report.sh SUMMARY.csv [LABEL] > results.md
#
# A markdown table from summarize.sh's output: for each setup and each
# workload metric, the stock median and its spread, and the ratios of the
# tlbpath default and of the best swept threshold to stock.  LABEL says
# where the numbers come from (default: QEMU TCG emulation, not hardware).
set -eu

[ $# -ge 1 ] || { echo "usage: $0 SUMMARY.csv [LABEL]" >&2; exit 2; }
sum=$1
label=${2:-QEMU TCG emulation, not hardware}

# What both tables' awk programs share.  row(): the key of this summary
# line (setup, workload, param, metric), noted in order[] the first time,
# with the stock median and spread and, for tlbmiss, the footprint.
# shown(k): whether row k is printed: tlbmiss only at its smallest and
# largest footprint.
rows='
function row(   k, s, p) {
	k = $1 "," $2 "," $3 "," $6 "," $7 "," $8
	if (!(k in seen)) { seen[k] = 1; order[++n] = k }
	if ($4 == "stock") { sm[k] = $10; sp[k] = $10 > 0 ? ($12 - $11) / $10 : 0 }
	if ($6 == "tlbmiss") {
		s = $1 "," $2 "," $3
		p = substr($7, index($7, "=") + 1) + 0
		if (!(s in pmin) || p < pmin[s]) pmin[s] = p
		if (!(s in pmax) || p > pmax[s]) pmax[s] = p
		pg[k] = p
	}
	return k
}
function shown(k,   f, s) {
	split(k, f, ",")
	s = f[1] "," f[2] "," f[3]
	return !(k in pg) || pg[k] == pmin[s] || pg[k] == pmax[s]
}
'

cat <<EOF
## Benchmark results ($label)

Generated $(date -u +%Y-%m-%d) from \`$(basename "$sum")\`; $(awk -F, 'NR > 1 { print $9; exit }' "$sum") repetitions
per configuration.  Each ratio is a median over the repetitions divided by
the stock kernel's median (tlbpath not loaded) in the same boot.  For
\`ns_*\` metrics lower is better (a ratio below 1 is faster); for
\`bogo_ops_per_s\` higher is better.  *spread* is the stock runs' (max - min)
/ median: a ratio closer to 1 than that is noise.  *best sweep* is the
swept threshold with the best median, chosen after the fact, so it flatters.
EOF
case $label in
*QEMU*) cat <<EOF

These are **emulated** times under QEMU TCG: they model the trade-off
(INVLPG drops one softmmu TLB entry, a CR3 write drops them all, refills
walk the page tables in C) but no real CPU's costs.  Compare ratios within
one run only; say nothing about hardware from them.
EOF
	;;
esac
echo
echo "| kernel | CPU model | vCPUs | workload | param | metric | stock median | spread | default (threshold) / stock | best sweep (threshold) / stock | worst sweep (threshold) / stock |"
echo "|---|---|---|---|---|---|---:|---:|---:|---:|---:|"

# summary: kernel,cpu,vcpus,config,threshold,workload,param,metric,n,median,min,max,q1,q3
awk -F, "$rows"'
function ratio(v, s) { return s > 0 ? sprintf("%.2f", v / s) : "-" }
NR > 1 && $8 !~ /^ctr_/ {
	k = row()
	if ($4 == "default") { dm[k] = $10; dt[k] = $5 }
	else if ($4 == "sweep") {
		hi = $8 ~ /per_s$/	# throughput: higher is better
		if (!(k in bm) || (hi ? $10 > bm[k] : $10 < bm[k])) { bm[k] = $10; bt[k] = $5 }
		if (!(k in wm) || (hi ? $10 < wm[k] : $10 > wm[k])) { wm[k] = $10; wt[k] = $5 }
	}
}
END {
	for (i = 1; i <= n; i++) {
		k = order[i]
		if (!(k in sm))
			continue
		if (!shown(k))
			continue
		split(k, f, ",")
		printf "| %s | %s | %s | %s | %s | %s | %s | %.0f%% | %s | %s | %s |\n",
			f[1], f[2], f[3], f[4], f[5], f[6], sm[k], 100 * sp[k],
			k in dm ? ratio(dm[k], sm[k]) " (" dt[k] ")" : "-",
			k in bm ? ratio(bm[k], sm[k]) " (" bt[k] ")" : "-",
			k in wm ? ratio(wm[k], sm[k]) " (" wt[k] ")" : "-"
	}
}' "$sum"

cat <<EOF

### The default policy against stock and against the best fixed threshold

One figure per workload: mprotect's \`ns_per_call\` (the call and the
accesses after it), munmap's \`ns_per_loop\`, tlbmiss's \`ns_per_access\`,
stress-ng's \`bogo_ops_per_s\`.  Written as a **cost ratio**, above 1 is
worse (for throughput it is stock / default).  The goal (issue #6): default
/ stock <= 1.02 or within the stock runs' spread; default / best fixed
<= 1.05.  *best fixed* is the sweep's best median for that workload.
*model* is the opt-in calibrated model (threshold: its largest limit).

| kernel | CPU model | vCPUs | workload | param | default threshold | default / stock | stock spread | default / best fixed (threshold) | vs stock | vs best | model / stock (threshold) | model / best fixed |
|---|---|---|---|---|---:|---:|---:|---:|---|---|---:|---:|
EOF
awk -F, "$rows"'
function cost(v, ref, hi) { return hi ? (v > 0 ? ref / v : 0) : (ref > 0 ? v / ref : 0) }
NR > 1 && ($8 == "ns_per_call" || $8 == "ns_per_loop" || $8 == "ns_per_access" || $8 == "bogo_ops_per_s") {
	if ($6 == "mprotect" && $8 != "ns_per_call") next
	if ($6 == "munmap" && $8 != "ns_per_loop") next
	k = row()
	hi[k] = $8 ~ /per_s$/
	if ($4 == "default") { dm[k] = $10; dt[k] = $5 }
	else if ($4 == "model") { mm[k] = $10; mt[k] = $5 }
	else if ($4 == "sweep") {
		if (!(k in bm) || (hi[k] ? $10 > bm[k] : $10 < bm[k])) { bm[k] = $10; bt[k] = $5 }
	}
}
END {
	for (i = 1; i <= n; i++) {
		k = order[i]
		if (!(k in sm) || !(k in dm))
			continue
		if (!shown(k))
			continue
		split(k, f, ",")
		rs = cost(dm[k], sm[k], hi[k])
		vs = rs <= 1.02 ? "met" : (rs - 1 <= sp[k] ? "within noise" : "**worse**")
		ns++
		if (vs != "**worse**") okS++
		best = "-"; vb = "-"
		if (k in bm) {
			nb++
			rb = cost(dm[k], bm[k], hi[k])
			vb = rb <= 1.05 ? "met" : "**missed**"
			if (rb <= 1.05) okB++
			best = sprintf("%.2f (%s)", rb, bt[k])
		}
		ms = (k in mm) ? sprintf("%.2f (%s)", cost(mm[k], sm[k], hi[k]), mt[k]) : "-"
		mb = (k in mm) && (k in bm) ? sprintf("%.2f", cost(mm[k], bm[k], hi[k])) : "-"
		printf "| %s | %s | %s | %s | %s | %s | %.2f | %.0f%% | %s | %s | %s | %s | %s |\n",
			f[1], f[2], f[3], f[4], f[5], dt[k], rs, 100 * sp[k], best, vs, vb, ms, mb
	}
	printf "\nNot worse than stock (met, or within noise): %d of %d; within 5%% of the best fixed threshold: %d of %d.\n", okS + 0, ns + 0, okB + 0, nb + 0
}' "$sum"
