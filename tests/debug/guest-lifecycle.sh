# SPDX-License-Identifier: GPL-2.0
#
# The debug tier's life-cycle run, in a kernel with KASAN, lockdep,
# DEBUG_ATOMIC_SLEEP and kmemleak on: $CYCLES load/unload cycles (default
# 50) while every CPU flushes and another process rewrites threshold and
# enabled, CPUs going offline and online while tlbpath is loaded, then a
# kmemleak scan.  The host fails the run on any report in the kernel log.
. /guest-lib.sh

orig=$(ceiling)
cycles=${CYCLES:-50}
diag "kernel $(uname -r), $(nproc) CPUs, $cycles load/unload cycles, stock ceiling $orig"
check "the kernel has its bug detectors on" \
	sh -c 'grep -q "^CONFIG_KASAN=y" /kconfig && grep -q "^CONFIG_DEBUG_KMEMLEAK=y" /kconfig && [ -e '$KL' ]'
# What the kernel leaked while booting is not tlbpath's: reported and
# set aside before the run.
kmemleak_set_aside

flush_load_start
tuner_start
bad=$(load_cycles "$cycles")
check "$cycles load/unload cycles under flushes on every CPU: nothing left behind each time" test "$bad" = 0

# CPUs offline and online while loaded, the flushes and the admin still at it.
check "insmod tlbpath.ko" insmod /tlbpath.ko
bad=0
for round in 1 2 3; do
	for c in /sys/devices/system/cpu/cpu[1-9]*/online; do
		echo 0 > "$c" && echo 1 > "$c" || bad=$((bad + 1))
	done
done
check "CPUs went offline and online three times while loaded" test $bad = 0
# The detector above may start while its CPU is offline: it must wait.
if [ -w /sys/devices/system/cpu/cpu1/online ]; then
	echo 0 > /sys/devices/system/cpu/cpu1/online
	staletlb -m mprotect -n 8 -r 2 -a 0 -b 1 > /tmp/st1.log 2>&1 &
	sleep 1
	echo 1 > /sys/devices/system/cpu/cpu1/online
	check "the detector waits for a CPU offline when it starts" wait $!
fi
check "by_cpu covers every online CPU again" \
	[ "$(cut -d' ' -f1 $T/geometry/by_cpu)" = "cpus=$(cat /sys/devices/system/cpu/online)" ]
flush_load_stop
load_ok=$?
wait $TUNER_PID 2>/dev/null
check "the flush load saw no wrong result and no stale TLB entry" test $load_ok = 0
check "rmmod tlbpath leaves nothing behind" sh -c 'rmmod tlbpath && . /guest-lib.sh && orig='"$orig"' && unloaded_clean'

check "kmemleak finds nothing unreferenced" kmemleak_scan
