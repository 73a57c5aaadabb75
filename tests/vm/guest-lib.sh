# SPDX-License-Identifier: GPL-2.0
# TAP helpers for the guest (busybox ash).  Results go to the second serial
# port; the host harness numbers them and checks the console log.

# The matrix row's environment (vm-test.sh: GUEST_ENV).
[ ! -e /guest.env ] || . /guest.env

T=/sys/kernel/tlbpath
DBG=/sys/kernel/debug/x86/tlb_single_page_flush_ceiling
TR=/sys/kernel/tracing

ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; }
check() {	# check "description" command...
	local d=$1
	shift
	if "$@"; then ok "$d"; else notok "$d"; fi
}
diag() { echo "# $*"; }
skip() { echo "ok - # SKIP $*"; }

cnt() { cat $T/counters/$1; }
reset_counters() { echo 1 > $T/counters/reset; }
ceiling() { cat $DBG; }

# An insmod that must be refused, leave no sysfs behind and say why in
# dmesg; where the kernel's ceiling exists (x86), it must be $orig still.
refused() {	# refused "dmesg text" insmod-args...
	local msg=$1
	shift
	! insmod /tlbpath.ko "$@" 2>/dev/null && [ ! -e $T ] &&
		{ [ ! -e $DBG ] || [ "$(ceiling)" = "$orig" ]; } &&
		dmesg | grep -q "tlbpath: $msg"
}

# A write that must fail and leave the file as it was.
rejects() {	# rejects FILE VALUE
	local before after
	before=$(cat "$1")
	# An empty value is written as a bare newline, as "echo > file" does.
	if { [ -n "$2" ] && printf '%s' "$2" || echo; } > "$1" 2>/dev/null; then
		echo "# write of '$2' to $1 succeeded"
		return 1
	fi
	after=$(cat "$1")
	[ "$before" = "$after" ] || { echo "# $1 changed from $before to $after"; return 1; }
}

# The stale-TLB detector (tests/vm/staletlb.c): one per pair of CPUs,
# reader and revoker on different CPUs, all pairs at once, over $sizes
# (comma-separated pages) for $rounds rounds.  Fails on any stale read.
detect() {	# detect LABEL
	local pids="" a=0 rc=0 out ncpu
	ncpu=$(nproc)
	while [ $((a + 1)) -lt "$ncpu" ]; do
		staletlb -m all -n $sizes -r $rounds -a $a -b $((a + 1)) > /tmp/st.$a 2>&1 &
		pids="$pids $!"
		a=$((a + 2))
	done
	for p in $pids; do wait $p || rc=1; done
	out=$(cat /tmp/st.* | grep total | tr '\n' ' ')
	diag "$1: $out"
	[ $rc = 0 ] || grep -h 'stale=[1-9]\|staletlb:' /tmp/st.* | head -n 5 | sed 's/^/# /'
	rm -f /tmp/st.*
	return $rc
}

# The stale-TLB detector on the last two CPUs, run after run (two rounds:
# one anchored, one alone), until /tmp/stop; a stale read leaves
# /tmp/st.fail.
detector_start() {
	local ncpu
	ncpu=$(nproc)
	rm -f /tmp/st.fail /tmp/st.log
	( while [ ! -e /tmp/stop ]; do
		staletlb -m all -n 1,8,33,34,64,513 -r 2 -a $((ncpu - 2)) -b $((ncpu - 1)) \
			>> /tmp/st.log 2>&1 || touch /tmp/st.fail
	  done ) &
	DETECTOR_PID=$!
}
detector_runs() { grep -c '^staletlb total' /tmp/st.log; }
detector_summary() {
	diag "detector: $(detector_runs) runs, $(awk '/^staletlb total/ { r += substr($3, 7); s += substr($4, 7) } END { print r " reads, " s " stale" }' /tmp/st.log)"
}

# Flushes on every CPU until flush_load_stop: one self-checking mprotect
# (bench/mprotect.c) per CPU, and the detector.  flush_load_stop fails if
# either saw a wrong result.
flush_load_start() {
	local c=0
	rm -f /tmp/stop /tmp/load.fail /tmp/load.err
	LOAD_PIDS=""
	while [ $c -lt "$(nproc)" ]; do
		( while [ ! -e /tmp/stop ]; do
			mprotect -n 64 -l 4 -p 16 -c 4 >/dev/null 2>>/tmp/load.err || touch /tmp/load.fail
		  done ) &
		LOAD_PIDS="$LOAD_PIDS $!"
		c=$((c + 1))
	done
	detector_start
}
flush_load_stop() {
	touch /tmp/stop
	wait $LOAD_PIDS $DETECTOR_PID
	detector_summary
	[ ! -e /tmp/load.fail ] && [ ! -e /tmp/st.fail ] ||
		{ head -n 5 /tmp/load.err /tmp/st.log | sed 's/^/# /'; return 1; }
}

# The admin who cannot leave the knobs alone, until /tmp/stop (its
# writes fail quietly while tlbpath is unloaded).
tuner_start() {
	( while [ ! -e /tmp/stop ]; do
		for t in 0 1 8 33 64 200 512 auto; do echo $t > $T/threshold; done
		echo 0 > $T/enabled; echo 1 > $T/enabled
	  done 2>/dev/null ) &
	TUNER_PID=$!
}

# Nothing of tlbpath left: no module, no sysfs, no ftrace hook on the
# functions it hooks (nothing else traces them in these guests), and the
# kernel's ceiling ($orig) as it was.
HOOKED='^(flush_tlb_mm_range|flush_tlb_kernel_range|change_protection|unmap_page_range|__zap_vma_range|tlb_finish_mmu)\b'
unloaded_clean() {
	! grep -q '^tlbpath ' /proc/modules && [ ! -e $T ] &&
		! grep -qE "$HOOKED" $TR/enabled_functions 2>/dev/null &&
		{ [ ! -e $DBG ] || [ "$(ceiling)" = "$orig" ]; }
}

# load_cycles N: N insmod/rmmod cycles, each at another threshold;
# prints the number of cycles that failed or left something behind.
load_cycles() {
	local bad=0 i=0
	while [ $i -lt "$1" ]; do
		i=$((i + 1))
		if ! insmod /tlbpath.ko threshold=$(( (i * 37) % 513 )); then
			echo "# cycle $i: insmod failed: $(dmesg | tail -n 1)" >&2
			bad=$((bad + 1))
			continue
		fi
		sleep 0.2
		if ! rmmod tlbpath; then
			echo "# cycle $i: rmmod failed" >&2
			bad=$((bad + 1))
		elif ! unloaded_clean; then
			echo "# cycle $i: something left behind (ceiling $(ceiling), want $orig)" >&2
			bad=$((bad + 1))
		fi
	done
	echo $bad
}

# detect_under THRESHOLD...: the detector on the stock kernel, then with
# tlbpath loaded at each THRESHOLD ("stock" and "cap": the module's own),
# then with enabled=0 at threshold 0.  tlbpath stays loaded, enabled.
detect_under() {
	local t
	check "stock kernel: no stale TLB entry" detect "stock"
	insmod /tlbpath.ko
	for t; do
		case $t in
		stock) t=$(cat $T/stock_ceiling) ;;
		cap) t=$(cat $T/cap) ;;
		esac
		echo $t > $T/threshold
		check "tlbpath threshold=$t: no stale TLB entry" detect "threshold=$t"
	done
	echo 0 > $T/enabled
	echo 0 > $T/threshold
	check "tlbpath enabled=0 (threshold 0): no stale TLB entry" detect "enabled=0"
	echo 1 > $T/enabled
}

# kmemleak (debug kernels): kmemleak_set_aside reports what is already
# unreferenced (the kernel's own, from booting) and sets it aside;
# kmemleak_scan reports an object unreferenced for 5 s at two scans,
# prints what it found, and fails if it found anything.
KL=/sys/kernel/debug/kmemleak
kmemleak_set_aside() {
	echo scan > $KL
	echo clear > $KL
}
kmemleak_scan() {
	sleep 6
	echo scan > $KL
	sleep 1
	echo scan > $KL
	grep -A12 '^unreferenced object' $KL | head -n 40 | sed 's/^/# kmemleak: /'
	! grep -q '^unreferenced object' $KL
}
