#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/tlbsim/robust.sh on a QUICK make sim run of its own: at the run's
# noise seed it must replay exactly the default's rows of sim.csv (the
# four counts and the geometric mean, computed here apart), at another
# seed still judge every cell, name in MISSES the cells each criterion
# misses, and with REPEAT=2 judge every cell's second run.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/unit/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "1..5"

out=$(QUICK=1 RESULTS=$tmp "$top/bench/tlbsim/run.sh" 2>&1)
ok $? "a QUICK make sim run" "$out"
export RESULTS=$tmp TRACES=$top/bench/tlbsim/build/traces-quick

# The counts robust.sh prints, from sim.csv's own default rows, and the
# cells each criterion misses.
want=$(awk -F, '
	function miss(crit, k) { print crit, k > misses; return 1 }
	$2 ~ /^app-/ { next }
	{ k = $1 "|" $2 "|" $3 "|" $11 }
	$12 == "stock" || $12 == "best-fixed" || $12 == "tlbpath" { c[k, $12] = $15; keys[k] = 1 }
	END {
		for (k in keys) {
			s = c[k, "stock"]; b = c[k, "best-fixed"]; x = c[k, "tlbpath"]; split(k, a, "|")
			n++
			if (x > 1.02 * s) c1 += miss(1, k)
			if (x > 1.10 * b) c2 += miss(2, k)
			if (s >= 1.2 * b) { n3++; if (x > 0.90 * s) c3 += miss(3, k) }
			if (a[1] == "emr-vm" && a[4] == "indep" && a[2] ~ /^mprotect-(seed|bench)$/) {
				n4++; if (x > 0.75 * s) c4 += miss(4, k) }
			g += log(x / s)
		}
		printf "%d cells: <= 1.02 stock: %d miss; <= 1.10 best: %d miss; <= 0.90 stock: %d of %d miss; <= 0.75 stock: %d of %d miss; geomean / stock %.3f\n",
		       n, c1, c2, c3, n3, c4, n4, exp(g / n)
	}' misses="$tmp/want-misses" "$tmp/sim.csv")
seed=$(sed -n 's/.*noise seed: \([0-9]*\).*/\1/p' "$tmp/run.txt")
got=$(MISSES=$tmp/misses SEEDS="$seed 7" "$top/bench/tlbsim/robust.sh" 2>&1)
first=$(sed -n 1p <<< "$got" | sed 's/^seed [0-9]* *//; s/ miss (worst [0-9.]*);/ miss;/')
[ -n "$seed" ] && [ "$first" = "$want" ]
ok $? "at the run's seed ($seed) it replays the default's rows: $want" "$got"
cells=${want%% cells*}
grep -q "^seed 7 *$cells cells: " <<< "$got"
ok $? "at seed 7 it judges the same $cells cells" "$got"
sort "$tmp/want-misses" > "$tmp/want"
sed -n "s/^seed $seed \([1-4]\) \([^ ]*\) .*/\1 \2/p" "$tmp/misses" | sort > "$tmp/got"
[ -n "$seed" ] && [ -f "$tmp/misses" ] && cmp -s "$tmp/want" "$tmp/got"
ok $? "MISSES names the $(wc -l < "$tmp/want") cells the criteria miss at seed $seed" \
	"$(diff "$tmp/want" "$tmp/got" | head)"
got=$(REPEAT=2 "$top/bench/tlbsim/robust.sh" 2>&1)
grep -Eq "^run 2 *$cells cells: .*geomean / stock [0-9.]+$" <<< "$got"
ok $? "REPEAT=2 judges their second runs" "$got"
