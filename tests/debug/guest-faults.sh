# SPDX-License-Identifier: GPL-2.0
#
# Allocation failures at load.  With failslab and fail_page_alloc armed
# for sleeping allocations too, tlbpath is loaded again and again with the
# Nth fault-injection point of the load failing (failload: fail-nth, this
# task only), N = FAULT_FIRST, FAULT_FIRST + FAULT_STRIDE, ... (default
# every point from 1) until a load passes fewer than N points.
# Every attempt must load fully or fail with an error, and leave nothing
# behind: no module, no sysfs, no ftrace hook, the kernel's ceiling as it
# was; then a clean load works and kmemleak finds nothing.
. /guest-lib.sh

orig=$(ceiling)
D=/sys/kernel/debug
kmemleak_set_aside
for a in failslab fail_page_alloc; do
	echo N > $D/$a/ignore-gfp-wait
	echo 0 > $D/$a/verbose
done
echo N > $D/fail_page_alloc/ignore-gfp-highmem
echo 0 > $D/fail_page_alloc/min-order

# The log between these lines holds the kernel's allocation-failure
# warnings, with their stack dumps (vmlib.sh's guest_log_bad).
echo "tlbpath-fault-injection: begin" > /dev/kmsg
first=${FAULT_FIRST:-1} stride=${FAULT_STRIDE:-1} max=${FAULT_MAX:-20000}
n=$((first - stride)) tries=0 loaded=0 failed=0 bad=0
while [ $n -lt $max ]; do
	n=$((n + stride)) tries=$((tries + 1))
	[ $((tries % 100)) != 0 ] || diag "N=$n: $failed failed, $loaded loaded anyway"
	# In the kernel log too: a guest that dies says at which N.
	echo "tlbpath-faults: N=$n" >/dev/kmsg
	out=$(failload $n /tlbpath.ko)
	case $out in
	"loaded injected=0") rmmod tlbpath; break ;;
	loaded*) loaded=$((loaded + 1)); rmmod tlbpath || { diag "N=$n: rmmod failed"; bad=$((bad + 1)); } ;;
	failed*injected=1) failed=$((failed + 1)) ;;
	*) diag "N=$n: failload said: $out"; bad=$((bad + 1)) ;;
	esac
	unloaded_clean || { diag "N=$n ($out): something left behind, ceiling $(ceiling)"; bad=$((bad + 1)); }
done
echo "tlbpath-fault-injection: end" > /dev/kmsg
diag "a load passes fewer than $n fault-injection points; every ${stride}th from $first failed: $failed loads failed, $loaded loaded anyway"
check "the sweep reached the end of the load ($tries loads, N up to $n)" \
	test "$n" -gt 50 -a "$n" -lt $max
check "every failed allocation left the kernel as it was ($failed failed loads, $loaded loads that went on)" \
	test $bad = 0
check "some of them failed the load" test $failed -gt 0
check "a clean load after them works" insmod /tlbpath.ko
check "threshold is writable" sh -c "echo 64 > $T/threshold && [ \$(cat $T/threshold) = 64 ]"
check "and its unload leaves nothing behind" sh -c 'rmmod tlbpath && . /guest-lib.sh && orig='"$orig"' && unloaded_clean'

check "kmemleak finds nothing unreferenced" kmemleak_scan
