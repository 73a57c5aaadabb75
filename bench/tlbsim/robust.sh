#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/tlbsim/robust.sh: how far make sim's criteria rest on its one
# noise seed, and on traces that start from nothing.  Replays the default
# (tlbpath) on every synthetic cell of a make sim run (RESULTS/sim.csv,
# its CPUs from RESULTS/run.txt, its traces still in build/traces) and
# prints, for each setting, the four criteria of results.md: misses of
# default/stock <= 1.02, of default/best fixed <= 1.10, of default/stock
# <= 0.90 where stock/best >= 1.2, and of default/stock <= 0.75 on emr-vm's
# independent mprotect-seed and mprotect-bench cells.
#
# Settings (environment):
#   SEEDS    noise seeds, one setting each (default "1 2 3 4 5 6 7 8");
#            stock and the best fixed threshold are sim.csv's (no clock)
#   REPEAT   N: instead, the Nth of N runs of each trace back to back, the
#            controller keeping what it learnt (tlbsim --repeat N less
#            --repeat N-1), against stock's and sim.csv's best fixed
#            threshold's Nth run; at the first seed of SEEDS
#   RESULTS  the make sim run (default bench/tlbsim/results)
#   TRACES   its traces (default bench/tlbsim/build/traces; a QUICK run's:
#            build/traces-quick)
#   JOBS     parallel tlbsim runs (default 2)
#   MISSES   a file to append each missed cell to: setting, criterion
#            (1-4), cost set|workload|CPU|loads, default/stock, default/best
#   APPS=1   the real programs' cells instead, on their traces (make traces);
#            with REPEAT, what a CPU that has run the program before does
set -euo pipefail
SIM=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$SIM/../.." && pwd)
RESULTS=${RESULTS:-$SIM/results}
SEEDS=${SEEDS:-"1 2 3 4 5 6 7 8"}
REPEAT=${REPEAT:-}
JOBS=${JOBS:-2}
CPUID_CORPUS=${CPUID_CORPUS:-$TOP/../shared/cpuid}
csv=$RESULTS/sim.csv
traces=${TRACES:-$SIM/build/traces}

die() { echo "robust: $*" >&2; exit 1; }
if [ ! -f "$csv" ] || [ ! -f "$RESULTS/run.txt" ]; then
	die "no make sim run in $RESULTS"
fi
[[ -z $REPEAT || $REPEAT =~ ^[0-9]+$ && $REPEAT -ge 2 ]] || die "REPEAT is 2 or more"
make -s -C "$SIM" >/dev/null || die "building tlbsim failed"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The CPUs: "  NAME source=... (DUMP.raw[@N]%P)" lines of run.txt.
declare -A spec_of
while read -r name spec; do
	spec_of[$name]=$spec
done < <(sed -n 's/^  \([^ ]*\) source=.*(\(.*\))$/\1 \2/p' "$RESULTS/run.txt")
# The cells: cost set, its costs, workload, CPU, loads, best fixed threshold.
apps=${APPS:-0}
awk -F, -v apps="$apps" '$12 == "best-fixed" && ($2 ~ /^app-/) == (apps == 1) {
	print $1, $10, $2, $3, $11, $13 }' "$csv" > "$work/cells"
[ -s "$work/cells" ] || die "no $([ "$apps" = 1 ] && echo app || echo synthetic) cells in $csv"
declare -A trace_of
if [ "$apps" = 1 ]; then
	list=$("$TOP/bench/traces/corpus.sh" list) || die "the trace corpus is incomplete: make traces"
	while IFS=$'\t' read -r name path; do
		trace_of[app-$name]=$path
	done <<< "$list"
fi

# One tlbsim command a cell: "cost,workload,cpu,loads,runs," before each row.
commands() { # SEED RUNS POLICIES
	while read -r set costs w cpu loads best; do
		spec=${spec_of[$cpu]}
		dump=${spec%%[@%]*}
		path=$TOP/tests/unit/cpuid/$dump
		[ -f "$path" ] || path=$CPUID_CORPUS/$dump
		IFS=/ read -r inv full hit walk issue <<< "$costs"
		pol=${3/BEST/$best}
		printf '%s\n' "$set,$w,$cpu,$loads,$2, $SIM/build/tlbsim --no-header -r $2 \
-n $1 -l $loads -p $pol --invlpg $inv --full $full --stlb-hit $hit --walk $walk \
--issue ${issue:-0} -c ${path}${spec#"$dump"}#$cpu ${trace_of[$w]:-$traces/$w.trace}"
	done < "$work/cells"
}
replay() { # FILE: the rows, each after its prefix
	tr '\n' '\0' < "$1" | xargs -0 -P "$JOBS" -n 1 sh -c \
		'p=${0%%, *}; $(echo "${0#*, }") | sed "s/^/$p,/"'
}

# The criteria, from rows "cost,workload,cpu,loads,runs,<tlbsim's columns>":
# the policy is field 16 (workload..cpu repeated), the threshold 17, cycles 19.
criteria() { # LABEL ROWS
	awk -F, -v label="$1" -v n="$REPEAT" -v misses="${MISSES:-}" '
	function miss(c, k, xs, xb) {
		if (misses != "")
			printf "%s %d %s %.3f %.3f\n", label, c, k, xs, xb >> misses
	}
	FNR == NR { if ($12 == "stock" || $12 == "best-fixed") c[$1 "|" $2 "|" $3 "|" $11, $12] = $15
		    next }
	{ k = $1 "|" $2 "|" $3 "|" $4; p = $16 == "fixed" ? "best-fixed" : $16
	  if (n == "") { d[k] = $19; keys[k] = 1; next }
	  v[k, p] += ($5 == n ? 1 : -1) * $19; keys[k] = 1 }
	END {
		for (k in keys) {
			if (n == "") { s = c[k, "stock"]; b = c[k, "best-fixed"]; x = d[k] }
			else { s = v[k, "stock"]; b = v[k, "best-fixed"]; x = v[k, "tlbpath"] }
			split(k, a, "|"); cells++
			if (x > 1.02 * s) { c1++; if (x / s > w) w = x / s; miss(1, k, x / s, x / b) }
			if (x > 1.10 * b) { c2++; miss(2, k, x / s, x / b) }
			if (s >= 1.2 * b) { n3++; if (x > 0.90 * s) { c3++; miss(3, k, x / s, x / b) } }
			if (a[1] == "emr-vm" && a[4] == "indep" &&
			    (a[2] == "mprotect-seed" || a[2] == "mprotect-bench")) {
				n4++; if (x > 0.75 * s) { c4++; miss(4, k, x / s, x / b) } }
			g += log(x / s)
		}
		printf "%-12s %5d cells: <= 1.02 stock: %d miss%s; <= 1.10 best: %d miss; " \
		       "<= 0.90 stock: %d of %d miss; <= 0.75 stock: %d of %d miss; " \
		       "geomean / stock %.3f\n", label, cells, c1,
		       c1 ? sprintf(" (worst %.3f)", w) : "", c2, c3, n3, c4, n4, exp(g / cells)
	}' "$csv" "$2"
}

if [ -z "$REPEAT" ]; then
	for seed in $SEEDS; do
		commands "$seed" 1 tlbpath > "$work/cmds"
		replay "$work/cmds" > "$work/rows"
		criteria "seed $seed" "$work/rows"
	done
else
	seed=${SEEDS%% *}
	for runs in $((REPEAT - 1)) "$REPEAT"; do
		commands "$seed" "$runs" tlbpath,stock,fixed:BEST
	done > "$work/cmds"
	replay "$work/cmds" > "$work/rows"
	criteria "run $REPEAT" "$work/rows"
fi
