#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The trace corpus (bench/traces), the part that needs no guest: the
# committed slice of a real program's trace (its checksum, its statistics,
# a round trip through the text format, tlbsim on it), corpus.tsv's form,
# the cached traces' checksums where make traces left them, and the
# tracer's build where QEMU 10's plugin header is unpacked.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tr=$top/bench/traces
sim=$top/bench/tlbsim
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$top/tests/unit/tap.sh"
skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }

echo "1..8"
out=$(make -s -C "$sim" all 2>&1)
ok $? "tlbsim and tlbtrace build" "$out"

slice=$tr/slice-go.tbt
want=$(sed -n 's/^sha256\t//p' "$tr/slice.tsv")
have=$(sha256sum <"$slice" | cut -d' ' -f1)
[ -n "$want" ] && [ "$have" = "$want" ]
ok $? "slice-go.tbt: the checksum of slice.tsv" "have $have, want $want"

want=$(sed -n 's/^stats\t//p' "$tr/slice.tsv")
have=$("$sim/build/tlbtrace" stats -t slice-go "$slice" 2>&1 | cut -f2-)
[ -n "$want" ] && [ "$have" = "$want" ]
ok $? "slice-go.tbt: the statistics of slice.tsv" "have $have"$'\n'"want $want"

"$sim/build/tlbtrace" text "$slice" "$tmp/a.txt" && "$sim/build/tlbtrace" bin "$tmp/a.txt" "$tmp/b.tbt" &&
	"$sim/build/tlbtrace" text "$tmp/b.tbt" "$tmp/b.txt" && cmp -s "$tmp/a.txt" "$tmp/b.txt" &&
	cmp -s "$slice" "$tmp/b.tbt"
ok $? "slice-go.tbt -> text -> binary: the same file"

spr=$top/tests/unit/cpuid/GenuineIntel00806F8_SapphireRapids_06_CPUID.raw
zen4=$top/tests/unit/cpuid/AuthenticAMD0A60F12_K19_Raphael_02_CPUID.raw
csv=$("$sim/build/tlbsim" -c "$spr#spr" -c "$zen4#zen4" "$slice" 2>&1)
st=$?
# Columns by their names in the header: tlbsim's CSV grows.
checks=$(echo "$csv" | awk -F, '
	NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	{ c = $col["cpu"]; p = $col["policy"]; y = $col["cycles"] + 0 }
	p == "stock" { s[c] = y } p == "tlbpath" { t[c] = y } p == "best-fixed" { b[c] = y }
	END { for (c in s) if (c in t && c in b && b[c] <= s[c] && b[c] <= t[c]) n++; print n + 0 }')
[ $st = 0 ] && [ "$checks" = 2 ]
ok $? "tlbsim on the slice: stock, tlbpath and best-fixed on two CPUs, best-fixed the least" "$csv"

hdr=$(head -n 1 "$tr/corpus.tsv")
bad=$(awk -F'\t' -v want="$(echo "$hdr" | awk -F'\t' '{ print NF }')" \
	'NF != want || (NR > 1 && (length($4) != 64 || $4 !~ /^[0-9a-f]+$/)) { print NR ": " $0 }' "$tr/corpus.tsv")
names=$(awk -F'\t' 'NR > 1 { print $1 }' "$tr/corpus.tsv" | tr '\n' ' ')
wnames=$(grep -v '^#' "$tr/workloads.tsv" | cut -f1 | tr '\n' ' ')
[ -z "$bad" ] && [ "$names" = "$wnames" ] && [ "$(echo "$hdr" | cut -f1-6)" = $'name\tcomm\tvcpus\tsha256\tbytes\taccesses' ]
ok $? "corpus.tsv: one well-formed row per workload of workloads.tsv" "$bad"$'\n'"$names / $wnames"

cache=${TRACES_CACHE:-/var/cache/tlbpath/traces}
if ls "$cache"/*.tbt >/dev/null 2>&1; then
	# A cache older or newer than this corpus.tsv is no fault of the code.
	if out=$("$tr/corpus.sh" check 2>&1); then
		ok 0 "the cached traces have corpus.tsv's checksums ($cache)"
	else
		skip "the cached traces are not corpus.tsv's (make traces): $(echo "$out" | head -n 1)"
	fi
else
	skip "no corpus traces in $cache (make traces)"
fi

hdrdir=${QEMU10_DIR:-/var/cache/tlbpath/qemu-10}/include
if [ -e "$hdrdir/qemu-plugin.h" ] && pkg-config --exists glib-2.0 2>/dev/null; then
	# shellcheck disable=SC2046
	out=$(gcc -shared -fPIC -O2 -Wall -Wextra -Werror $(pkg-config --cflags glib-2.0) \
		-I"$hdrdir" -I"$top/include" -o "$tmp/p.so" "$tr/tlbtrace-plugin.c" 2>&1 &&
	      gcc -O2 -Wall -Wextra -Werror -I"$top/include" -o "$tmp/tpctl" "$tr/tpctl.c" 2>&1 &&
	      gcc -O2 -Wall -Wextra -Werror -I"$top/include" -I"$sim" -o "$tmp/tpsplit" \
		"$tr/tpsplit.c" "$sim/tracebin.c" -lz 2>&1)
	ok $? "the tracer, tpctl and tpsplit build with -Wall -Wextra -Werror" "$out"
else
	skip "no QEMU 10 plugin header in $hdrdir (make traces unpacks it)"
fi
