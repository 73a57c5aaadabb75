# SPDX-License-Identifier: GPL-2.0
#
# tlbpath:decision as perf sees it: perf record of a workload, perf script.
. /guest-lib.sh

insmod /tlbpath.ko
echo 33 > $T/threshold
perf record -q -e tlbpath:decision -a -o /tmp/perf.data -- \
	mprotect -f 64 -l 20 -p 16 > /tmp/perf.rec 2>&1
rc=$?
check "perf record -e tlbpath:decision runs" test $rc = 0
perf script -i /tmp/perf.data > /tmp/perf.txt 2>/dev/null
grep -m 2 'tlbpath:decision' /tmp/perf.txt | sed 's/^ */# perf: /'
check "perf script shows 64-page ranges widened by the threshold" \
	test "$(grep -c 'tlbpath:decision: .* entries=64 footprint=[-0-9]* decision=widen reason=threshold' /tmp/perf.txt)" -ge 20
rmmod tlbpath
