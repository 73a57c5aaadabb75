#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/tlbsim/real.sh: the cost sets of the real machines under
# bench/results/real/ (README.md there), each derived by tlbpath-probe
# --from from what was measured there, into that machine's `costs`.
#
#   probe.txt   tlbpath-probe's own output: everything in ticks
#   raw.txt     the first measurements (../shared/real, the same lines,
#               made before the probe existed): tlbmiss's latencies are
#               in nanoseconds and the TSC's rate was not recorded, so it
#               is estimated (below)
#
#   bench/tlbsim/real.sh [--check]   --check: derive into a scratch folder
#                                    and fail where a committed `costs`
#                                    differs from what its data gives
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
REAL=$TOP/bench/results/real
check=0
[ "${1:-}" = --check ] && check=1
make -s -C "$TOP" tools/tlbpath-probe tools/tlbpath-geometry >/dev/null
probe=$TOP/tools/tlbpath-probe
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rc=0

# The TSC's rate where a run did not record it, from the mprotect
# benchmark it ran (bench/mprotect.c -n 64: ranges of 1..64 pages, the
# calls alternately flushing k = i and i - 1 pages, so k = 1, 1, 3, 3, ...
# 63, 63), priced by E1's two lines in ticks, against the nanoseconds
# the benchmark printed: ticks per ns, times 10^6.
estimate_khz() {	# RAW
	local fits ns
	ns=$(sed -n 's/.*ns_per_mprotect=\([0-9]*\).*/\1/p' "$1" | head -n1)
	[ -n "$ns" ] || return 1
	fits=$("$probe" --from "$1" --tsc-khz 1000000 | sed -n 's/^local: perpage \([0-9.]*\) + \([0-9.]*\) n, full \([0-9.]*\) + \([0-9.]*\) n$/\1 \2 \3 \4/p')
	ceiling=$("$probe" --from "$1" --tsc-khz 1000000 | sed -n 's/^ceiling=\([0-9]*\) .*/\1/p')
	[ -n "$fits" ] && [ -n "$ceiling" ] || return 1
	echo "$fits $ceiling $ns" | awk '{
		for (k = 1; k <= 63; k += 2) { t += k <= $5 ? $1 + $2 * k : $3 + $4 * k; n++ }
		printf "%d\n", t / n / $6 * 1e6 + 0.5 }'
}

for dir in "$REAL"/*/; do
	name=$(basename "$dir")
	out=$dir/costs
	[ $check = 1 ] && out=$tmp/$name.costs
	# Its CPU's TLBs, as tlbpath-probe would have read them there.
	geo=$("$TOP/tools/tlbpath-geometry" "$dir/cpuid.raw" | head -n1)
	if [ -f "$dir/probe.txt" ]; then
		{ echo "$geo"; cat "$dir/probe.txt"; } >"$tmp/in"
		khz=()
		note="measured by tlbpath-probe"
	elif [ -f "$dir/raw.txt" ]; then
		if ! k=$(estimate_khz "$dir/raw.txt"); then
			echo "real.sh: $name: no cost set: its ns cannot be turned into ticks" >&2
			continue
		fi
		{ echo "$geo"; cat "$dir/raw.txt"; } >"$tmp/in"
		khz=(--tsc-khz "$k")
		note="the first measurements; tsc_khz $k estimated by real.sh from the mprotect line"
	else
		continue
	fi
	"$probe" --from "$tmp/in" "${khz[@]}" -o "$tmp/$name.new" >"$tmp/$name.says"
	{
		echo "# $name: $note"
		cat "$tmp/$name.new"
	} >"$out"
	if [ $check = 1 ] && ! cmp -s "$out" "$dir/costs"; then
		echo "real.sh: $name: its costs differ from what its data gives:" >&2
		diff "$dir/costs" "$out" >&2 || true
		rc=1
	fi
	[ $check = 1 ] || echo "real.sh: $name: $(grep -v '^#' "$out" | tr '\n' ' ')"
done
exit $rc
