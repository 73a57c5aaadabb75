#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/traces/first-look.sh: tlbsim on every trace of the corpus, for
# one CPU and both extremes of the loads' dependence, as a Markdown table
# on stdout: what stock (33), the best fixed threshold and tlbpath's
# default cost, and where 33 is wrong.  make sim is the full judgement;
# this is a first look.
#
#   CPU      a cpuid dump (default: tests/unit/cpuid's Sapphire Rapids), as
#            tlbsim's -c takes it (DUMP[@N][%WALKERS])
#   OPTS     more tlbsim options (a cost set: --costs FILE, --invlpg N ...)
#   TLBSIM   the simulator (default: bench/tlbsim/build/tlbsim); traces
#            reach it as text on its standard input, so one that reads
#            no binary traces works too
#   LOADS    "dep indep" (default, where tlbsim has --loads), or "trace"
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
CPU=${CPU:-$TOP/tests/unit/cpuid/GenuineIntel00806F8_SapphireRapids_06_CPUID.raw}
TLBSIM=${TLBSIM:-$TOP/bench/tlbsim/build/tlbsim}
TLBTRACE=$TOP/bench/tlbsim/build/tlbtrace

make -s -C "$TOP/bench/tlbsim" >/dev/null
if [ -z "${LOADS:-}" ]; then
	LOADS=trace
	"$TLBSIM" -h 2>&1 | grep -q -- '--loads' && LOADS="dep indep"
fi
list=$("$HERE/corpus.sh" list)
read -r -a opts <<<"${OPTS:-}"
csv=$(mktemp)
trap 'rm -f "$csv"' EXIT

echo "CPU: $(basename "$CPU"); tlbsim: $TLBSIM ${OPTS:-(its default costs)}"
echo
echo "| trace | loads | accesses | ranged flushes | stock Mcycles | best fixed (thr) / stock | tlbpath / stock | tlbpath / best | 33 is |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---|"
while IFS=$'\t' read -r name path; do
	for loads in $LOADS; do
		opt=()
		[ "$loads" = trace ] || opt=(--loads "$loads")
		"$TLBTRACE" text "$path" |
			"$TLBSIM" -w "$name" "${opt[@]}" "${opts[@]}" -c "$CPU" - >"$csv" ||
			{ echo "first-look: tlbsim failed on $name" >&2; exit 1; }
		acc=$("$TLBTRACE" stats -t x "$path" | cut -f2)
		awk -F, -v name="$name" -v loads="$loads" -v acc="$acc" '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		{ p = $col["policy"]; cyc[p] = $col["cycles"]; lo[p] = $col["threshold"]
		  hi[p] = $col["threshold_hi"]; calls = $col["calls"] }
		END {
			s = cyc["stock"]; b = cyc["best-fixed"]; t = cyc["tlbpath"]
			h = hi["best-fixed"]; l = lo["best-fixed"]
			thr = l == h ? l : l ".." h
			if (l <= 33 && (h == "inf" || h >= 33)) v = "right (a tie)"
			else if (l > 33) v = sprintf("too low: %.3fx best", s / b)
			else v = sprintf("too high: %.3fx best", s / b)
			if (s == b) v = "right"
			printf "| %s | %s | %d | %d | %.3f | %.3f (%s) | %.3f | %.3f | %s |\n",
				name, loads, acc, calls, s / 1e6, b / s, thr, t / s, t / b, v
		}' "$csv"
	done
done <<<"$list"
