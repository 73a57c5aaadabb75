#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/tlbsim end to end: the -T traces of bench/mprotect.c and
# bench/munmap.c (their output without -T unchanged in form, the flushed
# ranges what the kernel flushes, the same trace twice without ASLR),
# tlbsim on them (the same CSV twice, errors refused), and vg2trace on a
# tiny program under valgrind (skipped without valgrind).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
sim=$top/bench/tlbsim
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$top/tests/unit/tap.sh"
norand() { if command -v setarch >/dev/null; then setarch -R "$@"; else "$@"; fi; }
skl=$top/tests/unit/cpuid/GenuineIntel00406E3_Skylake_CPUID.raw

echo "1..16"
out=$(make -s -C "$sim" 2>&1 &&
      gcc -O2 -Wall -Wextra -Werror -pthread -o "$tmp/mprotect" "$top/bench/mprotect.c" 2>&1 &&
      gcc -O2 -Wall -Wextra -Werror -pthread -o "$tmp/munmap" "$top/bench/munmap.c" 2>&1)
ok $? "tlbsim, mprotect and munmap build" "$out"

out=$("$tmp/mprotect" -n 8 -l 2 -p 8 -s 1 -c 4 2>&1)
grep -qE '^mprotect n=8 loops=2 pages_touched=8 threads=0 huge=0 calls=16 ns_per_mprotect=[0-9]+ ns_per_access=[0-9]+ ns_per_call=[0-9]+ checks=[0-9]+$' <<<"$out" &&
	[ -z "$(ls "$tmp"/*.trace 2>/dev/null)" ]
ok $? "mprotect without -T: its one line as before, no trace" "$out"

out=$(norand "$tmp/mprotect" -n 8 -l 2 -p 8 -s 1 -c 4 -T "$tmp/mp.trace" 2>&1)
# RO calls flush i pages, RW calls i - 1 (the last page was already writable).
sizes=$(awk '$1 == "f" { printf "%s ", $4 }' "$tmp/mp.trace")
[ "$sizes" = "1 1 3 3 5 5 7 7 1 1 3 3 5 5 7 7 " ] &&
	[ "$(grep -c '^v ' "$tmp/mp.trace")" = 16 ] &&
	[ "$(grep -c '^r 0 ' "$tmp/mp.trace")" = $((16 * 8)) ]
ok $? "mprotect -T: 16 flushes of the pages whose protection changed, 128 reads" "$out / sizes: $sizes"

norand "$tmp/mprotect" -n 8 -l 2 -p 8 -s 1 -c 4 -T "$tmp/mp2.trace" >/dev/null 2>&1
cmp -s <(tail -n +3 "$tmp/mp.trace") <(tail -n +3 "$tmp/mp2.trace")
ok $? "mprotect -T: the same trace twice (no ASLR)"

out=$(norand "$tmp/mprotect" -n 8 -l 2 -p 8 -s 1 -c 4 -t 2 -T "$tmp/mpt.trace" 2>&1)
[ "$(grep -c '^r 1 ' "$tmp/mpt.trace")" = 128 ] && [ "$(grep -c '^r 2 ' "$tmp/mpt.trace")" = 128 ] &&
	[ "$(grep -c '^r 0 ' "$tmp/mpt.trace")" = 0 ] &&
	grep -q 'threads=2 .*thread_accesses=256 ' <<<"$out"
ok $? "mprotect -t 2 -T: each thread one round of 8 accesses per call, in lockstep" "$out"
# The resident pages ("v") may differ by a page or so: when a thread's
# stack is touched is up to the scheduler.
norand "$tmp/mprotect" -n 8 -l 2 -p 8 -s 1 -c 4 -t 2 -T "$tmp/mpt2.trace" >/dev/null 2>&1
cmp -s <(tail -n +3 "$tmp/mpt.trace" | sed 's/^v .*/v/') <(tail -n +3 "$tmp/mpt2.trace" | sed 's/^v .*/v/')
ok $? "mprotect -t 2 -T: the same trace twice (no ASLR), but for the resident pages"

out=$("$tmp/munmap" -n 16 -l 4 -p 8 -s 1 -c 2 2>&1)
grep -qE '^munmap n=16 loops=4 threads=1 cpus=[0-9]+ ns_per_munmap=[0-9]+ ns_per_loop=[0-9]+ thread_accesses=[0-9]+ ns_per_thread_access=[0-9]+ checks=2$' <<<"$out"
ok $? "munmap without -T: its one line as before" "$out"

out=$(norand "$tmp/munmap" -n 16 -l 4 -p 8 -s 1 -c 2 -T "$tmp/mu.trace" 2>&1)
[ "$(awk '$1 == "f" { printf "%s ", $4 }' "$tmp/mu.trace")" = "16 16 16 16 " ] &&
	[ "$(grep -c '^w 1 ' "$tmp/mu.trace")" = 32 ] &&
	grep -q 'thread_accesses=32 ' <<<"$out"
ok $? "munmap -T: 4 flushes of 16 pages, the thread's 8 stores per loop" "$out"

csv1=$("$sim/build/tlbsim" -c "$skl" -c geom:l1d_4k=64/4,l2_4k=512/4#tiny -a "$tmp/mpt.trace" 2>&1)
csv2=$("$sim/build/tlbsim" -c "$skl" -c geom:l1d_4k=64/4,l2_4k=512/4#tiny -a "$tmp/mpt.trace" 2>&1)
[ "$csv1" = "$csv2" ] && [ "$(echo "$csv1" | grep -c ',best-fixed,')" = 2 ] &&
	[ "$(echo "$csv1" | grep -c ',fixed,')" = $((2 * 5)) ]
ok $? "tlbsim: the same CSV twice; per CPU a best-fixed row and thresholds 0,1,3,5,7" "$csv1"

best=$(echo "$csv1" | awk -F, '$2 == "tiny" && $11 == "best-fixed" { b = $14 }
	$2 == "tiny" && $11 == "fixed" { if (min == "" || $14 + 0 < min + 0) min = $14 }
	END { print (b != "" && b == min) }')
[ "$best" = 1 ]
ok $? "tlbsim: best-fixed is the cheapest fixed threshold"

out=$("$sim/build/tlbsim" -c "$skl" "$tmp/nonexistent" 2>&1); st=$?
[ $st = 1 ] && grep -q nonexistent <<<"$out"
ok $? "tlbsim: a missing trace fails, naming it" "$out"
printf '# tlbsim trace 1\nr 0 0x1000\nq 0 0x1000\n' >"$tmp/bad.trace"
out=$("$sim/build/tlbsim" -c "$skl" "$tmp/bad.trace" 2>&1); st=$?
[ $st = 1 ] && grep -q 'bad.trace:3: bad line' <<<"$out"
ok $? "tlbsim: a bad line fails with its number" "$out"
out=$("$sim/build/tlbsim" -c "$skl" -p stock,nope "$tmp/mp.trace" 2>&1); st=$?
[ $st = 2 ] && grep -q 'unknown policy' <<<"$out"
ok $? "tlbsim: an unknown policy is refused" "$out"

if ! command -v valgrind >/dev/null; then
	for w in "vg2trace: the tiny program's mprotect, madvise and munmap" \
		 "vg2trace: the trace replays"; do
		n=$((n + 1))
		echo "ok $n - # SKIP valgrind not installed ($w)"
	done
else
	out=$(gcc -O2 -Wall -Wextra -Werror -o "$tmp/tiny" "$sim/tiny.c" 2>&1 &&
	      "$sim/vg2trace" -o "$tmp/tiny.trace" -- "$tmp/tiny" 2>&1)
	# The last three flushes: 8 pages at P, 8 at P + 8 pages, then 10 at P.
	last=$(awk '$1 == "f" { a[++k] = $3 " " $4 } END { print a[k-2] "|" a[k-1] "|" a[k] }' "$tmp/tiny.trace")
	p=$(echo "$last" | cut -d' ' -f1)
	want="$p 8|$(printf '0x%x' $((p + 0x8000))) 8|$p 10"
	[ "$last" = "$want" ]
	ok $? "vg2trace: the tiny program's mprotect, madvise and munmap (8, 8, 10 pages)" "$out / got: $last, want: $want"
	out=$("$sim/build/tlbsim" -H -c "$skl" "$tmp/tiny.trace" 2>&1)
	grep -q 'best-fixed' <<<"$out"
	ok $? "vg2trace: the trace replays" "$out"
fi

[ "$(awk -F, '$11 == "stock" { print $4 "/" $5 " " $6 "/" $7 }' <<< "$csv1" | head -1)" = "64/4 1536/6" ]
ok $? "tlbsim: the Skylake fixture's TLBs in the CSV (L1 64 entries 4-way, STLB 1536 6-way)"
