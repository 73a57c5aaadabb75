#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/tlbsim/report.sh's "What evidence can reach", on a sim.csv made
# by hand: cells the default misses alike (stock 1000 cycles, best 500,
# default 1000).  Of 100 epochs (an epoch saves 5) that differ under
# stock by 0, 6 and 100 (the best threshold's by 0, as a sweep's without
# noise): reachable; reachable, but not within 1.10 of best (need
# (3 x 6 / 5)^2 = 12.96 pairs: 500 + 64.8 = 1.13x); out of reach (need
# 3600 pairs of the 50 there are).  Of 2 epochs: out of reach (one pair
# says nothing of the spread).  A cell the default does not miss is no
# miss.  The robust learner takes the spread as epoch_mad says: 0 for
# the epochs that differ by 100 (a few long gaps), which it reaches.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/unit/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "1..3"

make -s -C "$top/bench/tlbsim" >/dev/null 2>&1
printf '# tlbsim trace 1\nr 0 0x1000\n' >"$tmp/one.trace"
header=$("$top/bench/tlbsim/build/tlbsim" -c geom:l1d_4k=1 -p stock "$tmp/one.trace" | head -n 1)
# One row: workload, policy, cycles, epochs, epoch_sd, epoch_mad; the rest zeros.
row() {
	echo "set,$1,cpu0,leaf2,64,4,1536,6,1,100/100/7/45/0,indep,$2,33,,$3,0,0,0,0,1,0,0,0,10,10,0,0,0,0,$4,$5,$6"
}
{
	echo "cost_set,$header"
	for w in w-zero:0:0 w-six:6:6 w-noisy:100:0; do
		IFS=: read -r name sd mad <<< "$w"
		row "$name" stock 1000 100 "$sd" "$mad"
		row "$name" best-fixed 500 100 0 0
		row "$name" tlbpath 1000 100 "$sd" "$mad"
	done
	row w-short stock 1000 2 0 0
	row w-short best-fixed 500 2 0 0
	row w-short tlbpath 1000 2 0 0
	row w-met stock 1000 100 100 100
	row w-met best-fixed 500 100 100 100
	row w-met tlbpath 520 100 100 100
} >"$tmp/sim.csv"

out=$("$top/bench/tlbsim/report.sh" "$tmp" 2>&1) && grep -q ",epochs,epoch_sd,epoch_mad$" <<< "$header"
ok $? "report.sh on a sim.csv of 5 cells, tlbsim's columns" "$header $out"
got=$(grep '^| default / ' "$tmp/results.md")
grep -qx '| default / best fixed <= 1.10 | 4 | 3 | 2 | w-noisy 1, w-short 1, w-six 1 |' <<< "$got"
ok $? "1.10 of best: 4 misses, 3 out of reach (epochs that differ by 6 and by 100, one pair), 2 robustly (not by 100)" "$got"
grep -qx '| default / stock <= 0.90 where stock / best fixed >= 1.2 | 4 | 2 | 1 | w-noisy 1, w-short 1 |' <<< "$got"
ok $? "0.90 of stock: 4 misses, 2 out of reach (by 100, one pair), 1 robustly (one pair)" "$got"
