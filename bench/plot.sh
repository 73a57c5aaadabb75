#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# plot.sh RESULTS_DIR [LABEL]
#
# PNGs from RESULTS_DIR/summary.csv (gnuplot):
#   WORKLOAD-METRIC.png  the median against the threshold, as a ratio to
#                        the stock kernel's median, one line per setup
#                        (kernel/CPU model/vCPUs), bars from min to max;
#                        stock (at its ceiling) and default (at its
#                        threshold) marked
#   tlbmiss-ns_per_access.png  ns per access against the footprint
# LABEL goes into every title (default: QEMU TCG emulation).
set -eu

[ $# -ge 1 ] || { echo "usage: $0 RESULTS_DIR [LABEL]" >&2; exit 2; }
dir=$1
label=${2:-QEMU TCG emulation, not hardware}
sum="$dir/summary.csv"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The figures against the threshold: workload metric direction.
FIGURES="mprotect ns_per_call lower
mprotect ns_per_mprotect lower
mprotect ns_per_access lower
munmap ns_per_munmap lower
munmap ns_per_thread_access lower
munmap ns_per_loop lower"
for w in $(cut -d, -f6 "$sum" | grep '^stress-ng-' | sort -u); do
	FIGURES="$FIGURES
$w bogo_ops_per_s higher"
done

# Data blocks (one gnuplot index per setup) for workload $1, metric $2.
# Writes sweep.dat, stock.dat, default.dat and names under $tmp; prints
# the number of setups and the largest threshold.
threshold_data() {
	awk -F, -v w="$1" -v m="$2" -v t="$tmp" '
	NR > 1 && $6 == w && $8 == m {
		s = $1 "," $2 "," $3
		if (!(s in seen)) { seen[s] = 1; order[++ns] = s }
		if ($4 == "stock") { sm[s] = $10; slo[s] = $11; shi[s] = $12; sx[s] = $5 }
		else if ($4 == "default") { dm[s] = $10; dx[s] = $5 }
		else if ($4 == "sweep") {
			k = ++nsw[s]
			wx[s, k] = $5; wm[s, k] = $10; wlo[s, k] = $11; whi[s, k] = $12
			if ($5 + 0 > max) max = $5 + 0
		}
	}
	function x(v) { return v == 0 ? 0.5 : v }	# 0 on a log axis
	function name(s,    f) {
		split(s, f, ",")
		sub(/-amd64$/, "", f[1]); sub(/\+deb[0-9]+$/, "", f[1])
		return f[1] "/" f[2] "/" f[3] "cpu"
	}
	END {
		n = 0
		for (i = 1; i <= ns; i++) {
			s = order[i]
			if (!(s in sm) || sm[s] == 0 || !nsw[s])
				continue
			n++
			for (k = 1; k <= nsw[s]; k++)
				printf "%s %g %g %g\n", x(wx[s, k]), wm[s, k] / sm[s],
					wlo[s, k] / sm[s], whi[s, k] / sm[s] > (t "/sweep.dat")
			printf "\n\n" > (t "/sweep.dat")
			printf "%s 1 %g %g\n\n\n", x(sx[s]), slo[s] / sm[s], shi[s] / sm[s] > (t "/stock.dat")
			if (s in dm)
				printf "%s %g\n\n\n", x(dx[s]), dm[s] / sm[s] > (t "/default.dat")
			else
				printf "NaN NaN\n\n\n" > (t "/default.dat")
			names = names " " name(s)
		}
		print names > (t "/names")
		print n, max + 0
	}' "$sum"
}

plot_threshold() {	# plot_threshold WORKLOAD METRIC DIRECTION
	local n max tics v out="$dir/$1-$2.png"
	rm -f "$tmp"/*.dat
	set -- "$1" "$2" "$3" $(threshold_data "$1" "$2")
	n=$4 max=$5
	[ "$n" -gt 0 ] || return 0
	tics='"0" 0.5'
	v=1
	while [ $v -le "$max" ]; do
		tics="$tics, \"$v\" $v"
		v=$((v * 2))
	done
	gnuplot <<EOF
set terminal pngcairo size 1100,650 font ",10" noenhanced
set output "$out"
set title "$1: $2 against the flush threshold, relative to stock ($3 is better)\n$label; median of the repetitions, bars min..max"
set logscale x 2
set xrange [0.35:$max * 1.5]
set xtics ($tics)
set xlabel "tlbpath threshold (pages kept per-page; 0: every range flushed in full)"
set ylabel "$2 / stock median"
set grid
set key outside right top
names = "$(cat "$tmp/names")"
plot for [i=1:$n] "$tmp/sweep.dat" index (i-1) using 1:2:3:4 with yerrorlines lc i pt 7 ps 0.7 title word(names, i), \
	for [i=1:$n] "$tmp/stock.dat" index (i-1) using 1:2:3:4 with yerrorbars lc i pt 5 ps 1.6 notitle, \
	for [i=1:$n] "$tmp/default.dat" index (i-1) using 1:2 with points lc i pt 6 ps 3 lw 2 notitle, \
	1 with lines dt 2 lc "black" title "stock = 1", \
	NaN with points pt 5 ps 1.6 lc "black" title "stock, at its ceiling", \
	NaN with points pt 6 ps 3 lw 2 lc "black" title "tlbpath default"
EOF
	echo "$out"
}

# tlbmiss: ns per access against the footprint, stock (solid) and default
# (dashed), one colour per setup.
plot_tlbmiss() {
	local out="$dir/tlbmiss-ns_per_access.png" n
	n=$(awk -F, -v t="$tmp" '
	NR > 1 && $6 == "tlbmiss" && $8 == "ns_per_access" && ($4 == "stock" || $4 == "default") {
		s = $1 "," $2 "," $3
		if (!(s in seen)) { seen[s] = 1; order[++ns] = s }
		p = $7; sub(/^pages=/, "", p)
		rows[s, $4] = rows[s, $4] sprintf("%s %s %s %s\n", p, $10, $11, $12)
	}
	END {
		for (i = 1; i <= ns; i++) {
			s = order[i]
			split(s, f, ",")
			sub(/-amd64$/, "", f[1]); sub(/\+deb[0-9]+$/, "", f[1])
			names = names " " f[1] "/" f[2] "/" f[3] "cpu"
			printf "%s\n\n", rows[s, "stock"] > (t "/tlb-stock.dat")
			printf "%s\n\n", ((s, "default") in rows ? rows[s, "default"] : "NaN NaN NaN NaN\n") > (t "/tlb-default.dat")
		}
		print names > (t "/names")
		print ns + 0
	}' "$sum")
	[ "$n" -gt 0 ] || return 0
	gnuplot <<EOF
set terminal pngcairo size 1100,650 font ",10" noenhanced
set output "$out"
set title "tlbmiss: ns per access against the footprint (one access per page, data always cached)\n$label; median, bars min..max"
set logscale x 2
set xlabel "footprint (4 KiB pages)"
set ylabel "ns per access"
set logscale y
set grid
set key outside right top
names = "$(cat "$tmp/names")"
plot for [i=1:$n] "$tmp/tlb-stock.dat" index (i-1) using 1:2:3:4 with yerrorlines lc i pt 7 ps 0.7 title word(names, i), \
	for [i=1:$n] "$tmp/tlb-default.dat" index (i-1) using 1:2 with lines lc i dt 2 notitle, \
	NaN with lines lc "black" title "stock", \
	NaN with lines dt 2 lc "black" title "tlbpath default"
EOF
	echo "$out"
}

echo "$FIGURES" | while read -r w m d; do
	plot_threshold "$w" "$m" "$d"
done
if grep -q ',tlbmiss,' "$sum"; then
	plot_tlbmiss
fi
