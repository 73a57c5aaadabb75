# SPDX-License-Identifier: GPL-2.0
# In-guest: the stale-TLB detector, with and without tlbpath, at the
# thresholds that matter, with the policy on and off; and proof that it
# catches a module that narrows flushes.
. /guest-lib.sh

ncpu=$(nproc)
sizes=1,2,8,32,33,34,64,512,513,1024
rounds=${STALE_ROUNDS:-4}
diag "kernel $(uname -r), $ncpu CPUs, sizes $sizes, $rounds rounds per size and mode"

detect_under 0 1 auto stock cap
echo auto > $T/threshold
diag "tlbpath counters: perpage=$(cnt user_perpage) widened=$(cnt user_widened) remote=$(cnt user_remote) pages=$(cnt user_pages)"
check "the detector's flushes went through tlbpath (remote, kept and widened)" \
	test "$(cnt user_remote)" -gt 0 -a "$(cnt user_perpage)" -gt 0 -a "$(cnt user_widened)" -gt 0

# Ranges that reach other CPUs, at auto: the CPUs an IPI reaches time
# their own refills after them (the time controller's tlb:tlb_flush
# probe, registered within a second of the first remote range decided),
# and the asking CPU decides with what they measured.  Ranges of 1..64
# pages, one thread touching memory on another CPU: stock's own decisions
# vary, and that CPU's epochs with them.  An epoch of 16 such flushes
# that a context switch broke is voided, not measured: under TCG one
# spans several timer ticks, and on PREEMPT_RT each tick's softirq
# thread preempts the toucher, so there the epochs may all be voided.
# Either way the probe timed them.
timed() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" $T/adapt/by_cpu | sort -n | tail -n 1; }
for round in 1 2 3 4 5 6 7 8; do
	mprotect -n 64 -l 20 -p 16 -t 1 -c 8 >/dev/null
	samples=$(timed remote_samples)
	[ "${samples:-0}" -gt 0 ] && break
done
voided=$(timed remote_voided)
sed 's/^/# peers: /' $T/adapt/by_cpu
check "the CPUs remote ranges reach time them (remote_samples ${samples:-0}, remote_voided ${voided:-0}, round $round)" \
	[ "${samples:-0}" -gt 0 -o "${voided:-0}" -gt 0 ]
check "tlbpath auto, deciding with the peers' refills: no stale TLB entry" detect "auto, peers"
rmmod tlbpath

# The detector must be able to fail: dropflush narrows every ranged flush.
# Each size's odd rounds are anchored (staletlb.c), so every mode and size
# must catch it.  (In the alone rounds, munmap and mapfixed free the page
# table; the kernel's full flush of the widened range hides the mutant.)
insmod /dropflush.ko
staletlb -m all -n 2,8 -r 4 > /tmp/drop.out 2>&1
rc=$?
rmmod dropflush
grep '^staletlb' /tmp/drop.out | sed 's/^/# dropflush: /'
check "the detector fails (exit 1) when flushes are narrowed" test $rc = 1
# tlbpath-probe's own check (a store to a page just made read-only must
# fault) must catch it too (rows with PROBE=1).
if [ "${PROBE:-0}" = 1 ]; then
	insmod /dropflush.ko comm=tlbpath-probe
	tlbpath-probe -q -n 8 -R 3 > /tmp/probe-drop.out 2>&1
	probe_rc=$?
	rmmod dropflush
	diag "tlbpath-probe under dropflush: exit $probe_rc, $(grep -m1 'did not fault' /tmp/probe-drop.out)"
	check "tlbpath-probe's self-check fails when flushes are narrowed" \
		sh -c "[ $probe_rc != 0 ] && grep -q 'did not fault' /tmp/probe-drop.out"
fi
for m in mprotect munmap mapfixed mremap; do
	for n in 2 8; do
		check "the detector catches narrowed flushes in $m mode, $n pages" \
			grep -q "mode=$m pages=$n .*stale=[1-9]" /tmp/drop.out
	done
done
