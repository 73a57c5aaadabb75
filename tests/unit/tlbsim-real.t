#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Does bench/tlbsim reproduce what a real machine measured?  On emr-vm
# (../shared/real: an Emerald Rapids Xeon in a VM), every point of
# bench/tlbsim/real-compare.sh must be within 15%: the ceiling's INVLPGs
# against a full flush, that difference staying flat while up to the
# STLB's 2048 pages are re-read by independent loads, and a dependent
# chain's latency by footprint.  Two chain points the model cannot match
# are listed in KNOWN with why (Documentation/tlbsim-real.md); they must
# still miss, so that a model that starts matching them gets noticed.
# Other machines' comparisons are printed, not judged (the same document
# says where and why they miss).
#
# And the committed cost sets are what bench/tlbsim/real.sh derives from
# the committed measurements.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/unit/tap.sh"
# 256 pages: measured like 2048, for no reason the TLB's shape gives; 2048:
# the STLB exactly full, which true LRU keeps and the hardware does not.
KNOWN=" chain:256 chain:2048 "

out=$("$top/bench/tlbsim/real.sh" --check 2>&1)
ok $? "every committed cost set is what bench/tlbsim/real.sh derives from its data" "$out"

out=$("$top/bench/tlbsim/real-compare.sh" emr-vm 2>&1)
ok $? "real-compare.sh emr-vm runs" "$out"
e2=0 chain=0
while read -r key m s within what; do
	case $key in E2:*) e2=$((e2 + 1)) ;; chain:*) chain=$((chain + 1)) ;; esac
	case $KNOWN in
	*" $key "*)
		[ "$within" = 0 ]
		ok $? "emr-vm $key: $what: measured $m, model $s: a known miss" ;;
	*)
		[ "$within" = 1 ]
		ok $? "emr-vm $key: $what: measured $m, model $s, within 15%" ;;
	esac
done <<< "$out"
[ $e2 -ge 10 ] && [ $chain -ge 10 ]
ok $? "emr-vm: $e2 re-read sizes (0..2048) and $chain chain footprints compared"

# The model before misses overlapped (every walk paid whole, one after
# another) turns the difference over by 512 pages: this test must see it.
out=$(LOADS=dep "$top/bench/tlbsim/real-compare.sh" emr-vm 2>&1)
bad=$(awk '$1 ~ /^E2:/ && $4 == 0 { printf "%s ", $1 }' <<< "$out")
[ -n "$bad" ] && awk '$1 ~ /^E2:(512|1024|2048)$/ && $4 == 1 { exit 1 }' <<< "$out"
ok $? "mutant: every access dependent (no overlap) misses E2 at $bad" "$out"

for m in zen5-vm; do
	"$top/bench/tlbsim/real-compare.sh" "$m" 2>&1 | sed "s/^/# $m: /"
done
echo "1..$n"
