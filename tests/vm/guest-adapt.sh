# SPDX-License-Identifier: GPL-2.0
# In-guest: the walk-counting controller (controller=walks).  QEMU's TCG has no PMU, so with the
# hardware event every CPU must fall back to stock decisions and say why;
# the test-only software event (cpu-clock, walk_event=sw) stands in for
# the page-walk counter to exercise the controllers' counters, probe,
# hotplug and teardown, under the stale-TLB detector.
. /guest-lib.sh

ncpu=$(nproc)
orig=$(ceiling)
sizes=1,8,32,33,34,64,512
rounds=2

check "walk_event=bogus is refused" refused "walk_event=bogus is not hw, sw or none" controller=walks walk_event=bogus

# The hardware event: no PMU under TCG.
insmod /tlbpath.ko controller=walks
check "walks: adapt/controller reads walks" [ "$(cat $T/adapt/controller)" = walks ]
check "hw: walk_event reads hw" [ "$(cat $T/adapt/walk_event)" = hw ]
check "hw: the controllers do not decide (adapt/active 0)" [ "$(cat $T/adapt/active)" = 0 ]
cat $T/adapt/by_cpu | sed 's/^/# /'
check "hw: one adapt/by_cpu line per online CPU" [ "$(grep -c '^cpu=' $T/adapt/by_cpu)" = "$ncpu" ]
check "hw: every CPU decides as stock, for want of a counter" \
	[ "$(grep -c 'mode=stock why=no-counter counter=-[1-9]' $T/adapt/by_cpu)" = "$ncpu" ]
echo 1 > $TR/events/tlbpath/decision/enable
mprotect -f 64 -l 50 -p 16 >/dev/null
mprotect -n 40 -l 20 -p 64 >/dev/null
echo 0 > $TR/events/tlbpath/decision/enable
check "hw: no decision is measured or explored" sh -c "! grep -q 'reason=measured\|reason=explore' $TR/trace"
check "hw: 64-page ranges widened as stock" \
	sh -c "grep -q 'entries=64 .*decision=widen reason=threshold' $TR/trace"
check "hw: the kernel's ceiling stays stock" [ "$(ceiling)" = "$orig" ]
echo > $TR/trace
rmmod tlbpath

# The software stand-in: the controllers run.
insmod /tlbpath.ko controller=walks walk_event=sw
cat $T/adapt/by_cpu | sed 's/^/# /'
check "sw: the controllers decide (adapt/active 1)" [ "$(cat $T/adapt/active)" = 1 ]
check "sw: every CPU has its counter and is adaptive" \
	[ "$(grep -c 'mode=pmu why=adaptive counter=0 ' $T/adapt/by_cpu)" = "$ncpu" ]
echo 1 > $TR/events/tlbpath/decision/enable
mprotect -f 64 -l 200 -p 256 >/dev/null
munmap -n 64 -l 20 >/dev/null 2>&1
echo 0 > $TR/events/tlbpath/decision/enable
check "sw: the controllers decided the large ranges (reason=measured)" \
	sh -c "grep -q 'entries=64 .*reason=measured' $TR/trace"
echo > $TR/trace
check "sw: flushes reached the controllers" \
	sh -c "awk '{ for (i = 1; i <= NF; i++) if (\$i ~ /^(windows|decisions)=[1-9]/) n++ } END { exit !n }' $T/adapt/by_cpu"
cat $T/adapt/by_cpu | sed 's/^/# /'
check "sw: no stale TLB entry" detect "adaptive (sw)"
if [ -w /sys/devices/system/cpu/cpu1/online ]; then
	echo 0 > /sys/devices/system/cpu/cpu1/online
	check "sw: an offline CPU has no controller line" sh -c "! grep -q '^cpu=1 ' $T/adapt/by_cpu"
	echo 1 > /sys/devices/system/cpu/cpu1/online
	check "sw: a CPU back online counts again" \
		sh -c "grep -q '^cpu=1 mode=pmu why=adaptive counter=0 ' $T/adapt/by_cpu"
fi
if [ -w /sys/devices/system/cpu/cpu1/online ]; then
	# Policy writes against CPU hotplug: both take tlbpath's lock, and
	# hotplug holds its own meanwhile; a lock-order inversion hangs here.
	(i=0; while [ $i -lt 40 ]; do echo 40 > $T/threshold; echo auto > $T/threshold
		i=$((i + 1)); done) &
	churn=$!
	i=0
	while [ $i -lt 10 ]; do
		echo 0 > /sys/devices/system/cpu/cpu1/online
		echo 1 > /sys/devices/system/cpu/cpu1/online
		i=$((i + 1))
	done
	wait $churn
	check "sw: threshold churn during CPU hotplug, and the controllers after it" \
		[ "$(cat $T/adapt/active)" = 1 ]
fi
echo 40 > $T/threshold
check "sw: an admin's threshold stops the controllers" [ "$(cat $T/adapt/active)" = 0 ]
check "sw: and sets the kernel's ceiling" [ "$(ceiling)" = 40 ]
echo auto > $T/threshold
check "sw: auto starts them again" [ "$(cat $T/adapt/active)" = 1 ]
rmmod tlbpath
check "sw: unload restores the ceiling" [ "$(ceiling)" = "$orig" ]
check "sw: unload leaves no ftrace hook" sh -c "! grep -q tlbpath /sys/kernel/tracing/enabled_functions"
insmod /tlbpath.ko controller=walks walk_event=sw && rmmod tlbpath
check "sw: a second load and unload" [ ! -e $T ]
