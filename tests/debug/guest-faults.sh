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
ko=${FAULT_KO:-/tlbpath.ko} loaded=0 failed=0 bad=0
attempt() {	# attempt N: load with the Nth point failing; out: what failload said
	out=$(failload $1 $ko)
	case $out in
	loaded*) [ "$out" = "loaded injected=0" ] || loaded=$((loaded + 1))
		rmmod tlbpath || { diag "N=$1: rmmod failed"; bad=$((bad + 1)); } ;;
	failed*injected=1) failed=$((failed + 1)) ;;
	*) diag "N=$1: failload said: $out"; bad=$((bad + 1)) ;;
	esac
	unloaded_clean || { diag "N=$1 ($out): something left behind, ceiling $(ceiling)"; bad=$((bad + 1)); }
}

first=${FAULT_FIRST:-1} stride=${FAULT_STRIDE:-1} max=${FAULT_MAX:-20000}
n=$((first - stride)) tries=0
while [ -z "${FAULT_ONLY:-}" ] && [ $n -lt $max ]; do
	n=$((n + stride)) tries=$((tries + 1))
	[ $((tries % 100)) != 0 ] || diag "N=$n: $failed failed, $loaded loaded anyway"
	# In the kernel log too: a guest that dies says at which N.
	echo "tlbpath-faults: N=$n" >/dev/kmsg
	attempt $n
	[ "$out" != "loaded injected=0" ] || break
done
[ -n "${FAULT_ONLY:-}" ] || {
	diag "a load passes fewer than $n fault-injection points; every ${stride}th from $first failed: $failed loads failed, $loaded loaded anyway"
	check "the sweep reached the end of the load ($tries loads, N up to $n)" \
		test "$n" -gt 50 -a "$n" -lt $max
}

# Every point of the hooks' ftrace registration: ftrace_set_filter() can
# fail to add the function and return 0 (src/ftrace.c), which without
# the filters' anchor hooked every function and killed the guest.  The
# injected failure's stack (verbose 2) tells where a point lies; a binary
# search finds the first inside tlbp_ftrace_register().
for a in failslab fail_page_alloc; do echo 2 > $D/$a/verbose; done
where() {	# where N: at=before, in or after the registration
	echo "tlbpath-faults: N=$1, where" >/dev/kmsg
	attempt $1
	log=$(dmesg | sed -n "/tlbpath-faults: N=$1, where\$/,\$p")
	stack=$(echo "$log" | sed -n '/FAULT_INJECTION: forcing a failure/,/<\/TASK>/p' | grep -v ' ? ')
	case $stack in
	# __GFP_NOWARN: the failure is not said.
	"") [ "${out%injected=1}" = "$out" ] && at=after || at=unknown ;;
	*tlbp_ftrace_register*) at=in ;;
	*tlbp_tunables_init* | *tlbp_arch_init*) at=before ;;
	*tlbp_init*) at=after ;;
	# The module loader's, before tlbp_init() or after it said "loaded".
	*) echo "$log" | sed '/FAULT_INJECTION: forcing a failure/,$d' |
		grep -q 'tlbpath: loaded' && at=after || at=before ;;
	esac
}
lo=0 hi=$max
while [ $((hi - lo)) -gt 1 ]; do
	m=$(((lo + hi) / 2))
	where $m
	while [ $at = unknown ] && [ $((m + 1)) -lt $hi ]; do
		m=$((m + 1))
		where $m
	done
	case $at in before | unknown) lo=$m ;; *) hi=$m ;; esac
done
n=$hi points=0 bad0=$bad
while where $n && [ $at != after ] && [ $n -lt $((hi + 200)) ]; do
	[ $at != in ] || points=$((points + 1))
	n=$((n + 1))
done
for a in failslab fail_page_alloc; do echo 0 > $D/$a/verbose; done
echo "tlbpath-fault-injection: end" > /dev/kmsg
check "the hooks' ftrace registration passes fault-injection points ($points, from N=$hi)" \
	test $points -gt 0
check "a failure at each of them left the kernel as it was" test $bad = $bad0
[ -z "${FAULT_ONLY:-}" ] || exit 0

check "every failed allocation left the kernel as it was ($failed failed loads, $loaded loads that went on)" \
	test $bad = 0
check "some of them failed the load" test $failed -gt 0
check "a clean load after them works" insmod /tlbpath.ko
check "threshold is writable" sh -c "echo 64 > $T/threshold && [ \$(cat $T/threshold) = 64 ]"
check "and its unload leaves nothing behind" sh -c 'rmmod tlbpath && . /guest-lib.sh && orig='"$orig"' && unloaded_clean'

check "kmemleak finds nothing unreferenced" kmemleak_scan
