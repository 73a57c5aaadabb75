#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/tlbsim/real-compare.sh MACHINE: what bench/tlbsim predicts for
# tlbpath-probe's own experiments on a real machine of
# bench/results/real/, against what the probe measured there.  The
# experiments are written as traces (bench/tlbsim/gen reread, gen chain),
# replayed on that machine's TLBs (its CPUID, its page walkers, README.md)
# with its cost set.  One line per point:
#
#   KEY MEASURED MODEL WITHIN WHAT
#
#   E2:W   one call at the ceiling minus one above it, W pages re-read by
#          independent loads after each (W = 0: the ceiling's INVLPGs
#          against one full flush), for every W the second-level TLB holds
#   E3:W   the same with dependent loads (where the probe ran E3)
#   chain:F  a dependent chain's ticks per access over F pages
#
# WITHIN is 1 when the model is within 15% of the measurement.  The
# syscall's own work is outside the model: the measured difference gets
# back the one page of PTE work the larger call does (the slope of E1
# above the ceiling), as the probe's fit takes it out.  LOADS=dep|indep
# replays every access as that kind (tlbsim --loads): LOADS=dep is the
# model before misses overlapped.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
SIM=$TOP/bench/tlbsim
[ $# = 1 ] || { echo "usage: $0 MACHINE" >&2; exit 2; }
dir=$TOP/bench/results/real/$1
# Each machine's CPU as tlbsim takes it, with its page walkers.
case $1 in
emr-vm) cpu="$TOP/tests/unit/cpuid/GenuineIntel00806F8_SapphireRapids_06_CPUID.raw%4" ;;
zen5-vm) cpu="$dir/cpuid.raw%6" ;;
*) echo "real-compare: no CPU model for $1" >&2; exit 2 ;;
esac
costs=$dir/costs data=$dir/probe.txt
[ -f "$data" ] || data=$dir/raw.txt
[ -f "$costs" ] && [ -f "$data" ] || { echo "real-compare: $dir: no costs or no data" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
make -s -C "$SIM" >/dev/null
make -s -C "$TOP" tools/tlbpath-probe >/dev/null
gcc -O2 -Wall -Wextra -Werror -o "$tmp/gen" "$SIM/gen.c"

khz=$(sed -n 's/.*tsc_khz \([0-9]*\);.*/\1/p' "$costs")
l2=$("$SIM/build/tlbsim" -g -c "$cpu" | sed -n 's/.* l2_4k=\([0-9]*\)\/.*/\1/p')
"$TOP/tools/tlbpath-probe" --from "$data" --tsc-khz "$khz" >"$tmp/says"
pte=$(sed -n 's/^invlpg=.* pte=\([0-9]*\) .*/\1/p' "$tmp/says")
ceiling=$(sed -n 's/^ceiling=\([0-9]*\) .*/\1/p' "$tmp/says")
[ -n "$pte" ] && [ -n "$ceiling" ] && [ -n "$l2" ] || { cat "$tmp/says" >&2; exit 1; }

# model TRACE-ARGS...: tlbsim's cycles for the trace gen writes.
model() {
	"$tmp/gen" "$@" >"$tmp/t.trace"
	"$SIM/build/tlbsim" --no-header -p stock --loads "${LOADS:-trace}" --costs "$costs" -c "$cpu" \
		"$tmp/t.trace" | cut -d, -f14
}

point() {	# point KEY MEASURED MODEL WHAT
	awk -v k="$1" -v m="$2" -v s="$3" -v w="$4" 'BEGIN { d = s - m; if (d < 0) d = -d
		a = m < 0 ? -m : m; printf "%s %s %s %d %s\n", k, m, s, d <= 0.15 * a, w }'
}

# E2/E3: per call, (cycles of 3 pairs - 2 pairs) / 2, at the ceiling and above.
for e in E2:indep E3:dep; do
	kind=${e#*:} e=${e%:*}
	while read -r _ w at above _; do
		[ "$w" -le "$l2" ] || continue
		cyc=()
		for c in "$ceiling" $((ceiling + 1)); do
			for p in 2 3; do
				cyc+=("$(model reread "$c" "$w" "$kind" "$p")")
			done
		done
		m=$(awk -v a="$at" -v b="$above" -v p="$pte" 'BEGIN { printf "%.0f", a - b + p }')
		s=$(( (cyc[1] - cyc[0]) / 2 - (cyc[3] - cyc[2]) / 2 ))
		point "$e:$w" "$m" "$s" "$kind re-read of $w pages: a call at $ceiling minus one at $((ceiling + 1)), ticks"
	done < <(awk -v e="$e" '/^==/ { remote = /remote/ } !remote && $1 == e && $2 ~ /^[0-9]+$/' "$data")
done

# The chain: ticks per access, the model's above the fastest measured.
grep -E '^(chain|tlbmiss) pages=' "$data" |
	sed -E 's/.*pages=([0-9]+).*(ticks|ns)_per_access=([0-9.]+).*/\1 \2 \3/' |
	awk -v k="$khz" '{ printf "%s %.1f\n", $1, $2 == "ns" ? $3 * k / 1e6 : $3 }' >"$tmp/chain"
fastest=$(awk '!m || $2 < m { m = $2 } END { print m }' "$tmp/chain")
while read -r f t; do
	a1=$(model chain "$f" 65536)
	a2=$(model chain "$f" 131072)
	s=$(awk -v a="$a1" -v b="$a2" -v f="$fastest" 'BEGIN { printf "%.1f", (b - a) / 65536 + f }')
	point "chain:$f" "$t" "$s" "a dependent chain over $f pages, ticks per access"
done <"$tmp/chain"
