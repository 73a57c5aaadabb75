# SPDX-License-Identifier: GPL-2.0
#
# Reproducer, not a test of tlbpath: the long tier's load with the
# kernel's own function tracer switched on and off on the same two
# functions, tlbpath never loaded.  Under multi-threaded QEMU TCG with 4
# vCPUs, Debian's 6.12 kernel dies with "Oops: int3" in live text patching
# within seconds (seen: at ttwu_do_activate+0x8d, "Modules linked in:"
# empty), and 6.1 with vCPUs looping on the int3 at flush_tlb_mm_range+0
# within a minute.  Run it with:
#   NEEDS=stress-ng VM_TCG_THREAD=multi scripts/vm-test.sh 6.12 tests/long/repro/guest-ftrace-stress.sh 4
# Single-threaded (vm-test.sh's default), 6.12 ran all 120 cycles here
# (690 s of guest time).
. /guest-lib.sh
stress-ng --tlb-shootdown 1 --mremap 1 --mprotect 1 --madvise 1 --fork 1 \
	--vm 1 --vm-bytes 16M --verify --timeout 1800s > /tmp/sng.log 2>&1 &
sng=$!
echo flush_tlb_mm_range > $TR/set_ftrace_filter
echo flush_tlb_kernel_range >> $TR/set_ftrace_filter
i=0
while [ $i -lt 120 ]; do
	i=$((i + 1))
	echo function > $TR/current_tracer
	sleep 0.3
	echo nop > $TR/current_tracer
	sleep 0.3
done
kill -INT $sng
wait $sng
check "120 function-tracer on/off cycles under load, no tlbpath" true
