# SPDX-License-Identifier: GPL-2.0
# In-guest: the time controller, the adaptive default, on either arch.
# Under -icount (the row's VM_ICOUNT=1) guest time is instructions
# executed, so a flush that invalidates more pages than a full flush
# costs takes longer, and nothing else does: on ranges of 24 pages, with
# nothing re-read, the controller must learn to widen them.  An admin's
# threshold and unload come after.  (A guest of 2 vCPUs does not boot
# under -icount: the rows have 1, and the stale-TLB detector, which needs
# 2, runs in the stale rows, whose auto is this controller's.)
. /guest-lib.sh

ncpu=$(nproc)
[ ! -e $DBG ] || orig=$(ceiling)
lines() { grep -c "$1" $T/adapt/by_cpu; }

check "insmod tlbpath.ko" insmod /tlbpath.ko
check "the default controller is time" [ "$(cat $T/adapt/controller)" = time ]
check "it decides (adapt/active 1)" [ "$(cat $T/adapt/active)" = 1 ]
check "one adapt/by_cpu line per online CPU, each learning" \
	[ "$(lines '^cpu=[0-9]* mode=stock why=learning ')" = "$ncpu" ]

# 24-page ranges on CPU 0, nothing re-read: it learns, then widens them.
# What it measures is small (on sid an INVLPG costs 9 instructions, a
# full flush 6, and R comes out near -136 a request, where 210 decides),
# so mprotect's self-check is off (-c 0): its faults and signals, every
# 64 calls, drown R in some runs (the stale rows check correctness).
# Experiments are paid from a credit, a few per 3000 requests, and the
# estimate stays at stock while its bounds straddle it.  It must learn
# within eight rounds.
for round in 1 2 3 4 5 6 7 8; do
	taskset -c 0 mprotect -f 24 -l 3000 -p 0 -c 0 >/dev/null
	cat $T/adapt/by_cpu | sed "s/^/# round $round: /"
	keep=$(sed -n 's/^cpu=0 mode=time why=measured keep=\([0-9]*\) .*/\1/p' $T/adapt/by_cpu)
	[ "${keep:-99}" -ge 24 ] || break
done
check "CPU 0 measured its refills, and keeps fewer than 24 pages (keep=${keep:-none}, round $round)" \
	[ "${keep:-99}" -lt 24 ]
reset_counters
ev=$TR/events/tlbpath/decision/enable
[ ! -e $ev ] || echo 1 > $ev
taskset -c 0 mprotect -f 24 -l 400 -p 0 -c 0 >/dev/null
[ ! -e $ev ] || echo 0 > $ev
diag "then: widened $(cnt user_widened), per page $(cnt user_perpage)"
sed 's/^/# then: /' $T/adapt/by_cpu
check "then it widens most 24-page ranges" [ "$(cnt user_widened)" -ge 300 ]
# arm64 has no tracepoint (its hooks count only).
[ ! -e $ev ] || check "the tracepoint says why: timed (and probe, now and then)" \
	sh -c "grep -q 'decision=widen reason=timed' $TR/trace"
[ ! -e $ev ] || echo > $TR/trace
[ ! -e $DBG ] || check "the kernel's ceiling follows (at least stock: $(ceiling))" \
	[ "$(ceiling)" -ge "$orig" ]

echo 40 > $T/threshold
check "an admin's threshold stops it (adapt/active 0, why=off)" \
	[ "$(cat $T/adapt/active)" = 0 -a "$(lines 'why=off')" = "$ncpu" ]
echo auto > $T/threshold
check "auto starts it again, learning afresh" \
	[ "$(cat $T/adapt/active)" = 1 -a "$(lines 'why=learning')" = "$ncpu" ]
rmmod tlbpath
[ ! -e $DBG ] || check "unload restores the ceiling" [ "$(ceiling)" = "$orig" ]
check "unload leaves no ftrace hook" sh -c "! grep -q tlbpath $TR/enabled_functions"
