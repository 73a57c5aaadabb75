#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/traces/make-slice.sh [NAME [EVENTS]]: the slice of the corpus
# that make check uses (tests/unit/traces.t): of the cached trace NAME (go),
# the window of EVENTS (20000) accesses and flushes with the most flushes,
# after the trace's "p" lines that precede it, as bench/traces/slice-NAME.tbt,
# and its checksum and statistics in bench/traces/slice.tsv.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
CACHE=${TRACES_CACHE:-/var/cache/tlbpath/traces}
name=${1:-go}
events=${2:-20000}
src=$CACHE/$name.tbt
t=$TOP/bench/tlbsim/build/tlbtrace

[ -f "$src" ] || { echo "make-slice: $src is missing (make traces)" >&2; exit 1; }
make -s -C "$TOP/bench/tlbsim" >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sum=$(sha256sum <"$src" | cut -d' ' -f1)
"$t" text "$src" "$tmp/all.txt"
# Event n: the n-th r/w/f/F line.  The window [a, a + events) with the most f/F.
a=$(awk -v w="$events" '
	/^[rwfF] / { n++; fl[n] = /^[fF] / }
	END {
		for (i = 1; i <= n; i++) { c[i] = c[i - 1] + fl[i] }
		best = 1; bc = -1
		for (i = 1; i + w - 1 <= n; i++) if (c[i + w - 1] - c[i - 1] > bc) { bc = c[i + w - 1] - c[i - 1]; best = i }
		print best
	}' "$tmp/all.txt")
awk -v a="$a" -v w="$events" -v name="$name" -v sum="$sum" '
	NR == 1 { print; printf "# slice of the corpus trace %s (sha256 %s): its events %d..%d, after its p lines before them\n", name, sum, a, a + w - 1; next }
	/^[rwfF] / { n++; if (n >= a && n < a + w) print; next }
	/^p / { if (n < a + w) print; next }
	/^[vl] / { if (n >= a - 1 && n < a + w) print; next }' "$tmp/all.txt" >"$tmp/slice.txt"
"$t" bin "$tmp/slice.txt" "$HERE/slice-$name.tbt"
{
	printf 'source\t%s\t%s\n' "$name" "$sum"
	printf 'sha256\t%s\n' "$(sha256sum <"$HERE/slice-$name.tbt" | cut -d' ' -f1)"
	printf 'stats\t%s\n' "$("$t" stats -t "slice-$name" "$HERE/slice-$name.tbt" | cut -f2-)"
} >"$HERE/slice.tsv"
cat "$HERE/slice.tsv"
ls -l "$HERE/slice-$name.tbt"
