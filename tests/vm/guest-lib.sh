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
		{ grep -Ev ' stale=0( |$)' /tmp/load.err /tmp/st.log | head -n 10 | sed 's/^/# /'; return 1; }
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
# functions it hooks (nothing else traces them in these guests but the
# other users coexist_start switches), and the kernel's ceiling ($orig)
# as it was.
HOOKED='^(flush_tlb_mm_range|flush_tlb_kernel_range|change_protection|unmap_page_range|__zap_vma_range|tlb_finish_mmu)\b'
unloaded_clean() {
	! grep -q '^tlbpath ' /proc/modules && [ ! -e $T ] &&
		unhooked && { [ ! -e $DBG ] || [ "$(ceiling)" = "$orig" ]; }
}
# No ftrace ops on tlbpath's functions; with other users switched on and
# off meanwhile (coexist_start), none of tlbpath's own callbacks.
unhooked() {
	if [ -n "${COEXIST_PID:-}" ]; then
		! grep -q 'tlbp_' $TR/enabled_functions
	else
		! grep -qE "$HOOKED" $TR/enabled_functions 2>/dev/null
	fi
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

# The other ftrace users of tlbpath's functions (guest-coexist.sh, the
# long tier's guest-stress.sh), on the function they share with it: $FN.
case $(uname -m) in
aarch64)
	arch=arm64
	# tlb_finish_mmu(): every munmap and mprotect ends there.
	FN=tlb_finish_mmu
	HOOKS="change_protection tlb_finish_mmu unmap_page_range __zap_vma_range" ;;
*)
	arch=x86
	FN=flush_tlb_mm_range
	HOOKS="flush_tlb_mm_range flush_tlb_kernel_range" ;;
esac

# The ftrace users of tlbpath's hooked functions, as enabled_functions
# counts them: "name count" for each, 0 where none.
ops_on_hooks() {
	local f n
	for f in $HOOKS; do
		n=$(sed -n "s/^$f (\([0-9]*\)).*/\1/p" $TR/enabled_functions | head -n 1)
		echo "$f ${n:-0}"
	done
}

# Nothing of tlbpath left: no module, no sysfs, no callback of its own in
# enabled_functions, as many ops on each hooked function as before it was
# loaded ($1), and the kernel's ceiling as it was.
tlbpath_gone() {
	! grep -q '^tlbpath ' /proc/modules && [ ! -e $T ] &&
		! grep -q 'tlbp_' $TR/enabled_functions &&
		[ "$(ops_on_hooks)" = "$1" ] &&
		{ [ ! -e $DBG ] || [ "$(ceiling)" = "$orig" ]; } && return 0
	diag "left behind? module: $(grep -c '^tlbpath ' /proc/modules), sysfs: $(ls -d $T 2>/dev/null)," \
		"ceiling: $(ceiling 2>/dev/null) (was $orig), ops: $(ops_on_hooks | tr '\n' ' ')(were $(echo "$1" | tr '\n' ' '))"
	grep -E "^($(echo $HOOKS | tr ' ' '|'))\b|tlbp_" $TR/enabled_functions | sed 's/^/# enabled_functions: /'
	return 1
}

# user_on USER: attach it; on failure $why says why, and $unsupported is
# set where this kernel cannot have it at all.
user_on() {
	why="" unsupported=""
	case $1 in
	function)
		# *tlb*: also what the recursion check looks for (user_off);
		# COEXIST_FILTER (the long tier: $FN; *tlb* under stress-ng
		# slows the guest to a crawl).  A small buffer: reading the
		# trace back is slow under TCG.
		echo 32 > $TR/buffer_size_kb
		[ "$(cat $TR/buffer_size_kb)" = 32 ] || diag "buffer_size_kb: $(cat $TR/buffer_size_kb)"
		echo "${COEXIST_FILTER:-*tlb*}" > $TR/set_ftrace_filter &&
			echo > $TR/trace && echo function > $TR/current_tracer ;;
	graph)
		echo 32 > $TR/buffer_size_kb
		echo "$FN" > $TR/set_ftrace_filter &&
			echo > $TR/trace && echo function_graph > $TR/current_tracer ;;
	kprobe)
		# x86: with the end argument, to show whose range it sees.
		local fetch=""
		[ $arch = arm64 ] || fetch="end=%dx:x64"
		echo 32 > $TR/buffer_size_kb
		echo "p:coexist/tlbpcoex_entry $FN $fetch" >> $TR/kprobe_events &&
			echo > $TR/trace && echo 1 > $TR/events/coexist/tlbpcoex_entry/enable ;;
	kretprobe)
		echo "r:coexist/tlbpcoex_exit $FN" >> $TR/kprobe_events &&
			echo 1 > $TR/events/coexist/tlbpcoex_exit/enable ;;
	bpf-*)
		bpf_on "${1#bpf-}" ;;
	ipmodify)
		insmod /ipmodify.ko func=$FN ;;
	klp)
		if [ ! -e /klpsame.ko ]; then
			unsupported=1 why="this kernel has no CONFIG_LIVEPATCH"
			return 1
		fi
		insmod /klpsame.ko && klp_settled 1 ;;
	esac
}

# bpfcount (tests/vm/bpfcount.c) in the background until user_off.
bpf_on() {
	local i=0 e=""
	[ "$1" = fentry -o "$1" = fexit ] && [ $arch = x86 ] && e="-e 2"
	# A new file: the last run's "attached" must not be read as this one's.
	rm -f /tmp/bpf.out
	bpfcount -k "$1" -f $FN $e > /tmp/bpf.out 2>&1 &
	BPF_PID=$!
	while ! grep -q '^bpfcount: attached' /tmp/bpf.out 2>/dev/null; do
		if ! kill -0 $BPF_PID 2>/dev/null; then
			wait $BPF_PID
			[ $? = 2 ] && unsupported=1
			why=$(grep -m 1 'bpfcount' /tmp/bpf.out)
			return 1
		fi
		i=$((i + 1))
		[ $i -lt 600 ] || { why="bpfcount did not attach in 60 s"; return 1; }
		sleep 0.1
	done
}

# The live patch is enabled (1) or gone (0), its transition over (5
# minutes at most: 40 s on 6.12 under a flushing load).
klp_settled() {
	local i=0 L=/sys/kernel/livepatch/klpsame
	while [ $i -lt 3000 ]; do
		if [ "$1" = 1 ]; then
			[ "$(cat $L/enabled 2>/dev/null)" = 1 ] &&
				[ "$(cat $L/transition 2>/dev/null)" = 0 ] && return 0
		else
			[ ! -e $L ] && return 0
		fi
		i=$((i + 1))
		sleep 0.1
	done
	why="the live patch's transition did not end in 5 minutes"
	return 1
}

# user_off USER: detach it; $N is how many calls of $FN it saw while on
# (for the live patch, which counts nothing: 1 if it was enabled).  Not
# in a subshell: bpfcount must be waited for by the shell that started it.
user_off() {
	local n
	case $1 in
	function|graph)
		# Calls of $FN just before the freeze: on arm64 *tlb* is
		# mostly the per-page __tlb_remove_*(), and a process's exit
		# can push every older call out of the small buffer, the
		# background load's too before the freeze (0 calls once, in a
		# clean make check): up to 3 freezes.  A tracer that sees none
		# fails all.
		local try=0
		n=0
		while [ $try -lt 3 ] && [ "$n" = 0 ]; do
			try=$((try + 1))
			mprotect -n 2 -l 20 -p 16 >/dev/null
			# Frozen, and read so far at most: under stress-ng on
			# 4 CPUs the buffer refills faster than TCG reads it.
			echo 0 > $TR/tracing_on
			n=$(head -n 20000 $TR/trace | grep -c "$FN")
			# What of tlbpath the tracer reached (the recursion check).
			[ "$1" = graph ] || head -n 20000 $TR/trace | grep -m 3 'tlbp_' >> /tmp/recursion
			echo 1 > $TR/tracing_on
		done
		[ $try = 1 ] || diag "$1: $n calls of $FN in the buffer at freeze $try"
		echo nop > $TR/current_tracer
		echo > $TR/set_ftrace_filter
		echo > $TR/trace ;;
	kprobe|kretprobe)
		# kprobe_profile: name (with or without its group), hits, misses.
		local ev=tlbpcoex_entry
		[ $1 = kprobe ] || ev=tlbpcoex_exit
		n=$(awk -v e=$ev '$1 == e || $1 == "coexist/" e { print $2 }' $TR/kprobe_profile)
		echo 0 > $TR/events/coexist/$ev/enable
		echo "-:coexist/$ev" >> $TR/kprobe_events ;;
	bpf-*)
		kill -TERM $BPF_PID
		wait $BPF_PID
		local rc=$?
		n=$(sed -n 's/^bpfcount .* events=\([0-9]*\).*/\1/p' /tmp/bpf.out)
		if [ -n "$n" ] && [ $rc = 0 ]; then
			sed -n 's/^\(bpfcount .*\)/# \1/p' /tmp/bpf.out
		else
			echo "# bpfcount exited $rc:"
			sed 's/^/# bpfcount: /' /tmp/bpf.out | tail -n 20
		fi ;;
	ipmodify)
		n=$(cat /sys/module/ipmodify/parameters/calls)
		rmmod ipmodify ;;
	klp)
		n=0
		[ "$(cat /sys/kernel/livepatch/klpsame/enabled)" = 1 ] && n=1
		echo 0 > /sys/kernel/livepatch/klpsame/enabled
		klp_settled 0 && rmmod klpsame ;;
	esac
	N=${n:-0}
}

# Everything of the other users gone too: no ops on any hooked function.
all_gone() {
	tlbpath_gone "$(for f in $HOOKS; do echo "$f 0"; done)"
}

# coexist_start USERS: switch each of USERS (comma-separated) on for two
# seconds and off again, one after the other, round after round, until
# /tmp/stop, beside whatever else runs (the long tier); each toggle goes
# to /tmp/coexist.log as "USER CALLS", "USER unsupported: WHY" or "USER
# failed: WHY".  coexist_summary checks that log.
coexist_start() {
	rm -f /tmp/coexist.log
	touch /tmp/coexist.log
	( while [ ! -e /tmp/stop ]; do
		for u in $(echo "$1" | tr , ' '); do
			[ ! -e /tmp/stop ] || break
			! grep -q "^$u unsupported" /tmp/coexist.log || continue
			if user_on $u; then
				sleep 2
				user_off $u > /dev/null
				echo "$u $N"
			elif [ -n "$unsupported" ]; then
				echo "$u unsupported: $why"
			else
				echo "$u failed: $why"
			fi >> /tmp/coexist.log
		done
	  done ) &
	COEXIST_PID=$!
}

# coexist_summary USERS: each attached at least twice, saw calls every
# time and never failed to attach, or cannot be had on this kernel (a
# skip that says why).
coexist_summary() {
	local u n zero
	diag "other users: $(wc -l < /tmp/coexist.log) switches; the last: $(tail -n 1 /tmp/coexist.log)"
	for u in $(echo "$1" | tr , ' '); do
		if grep -q "^$u unsupported" /tmp/coexist.log; then
			skip "[$u] beside the cycles: $(grep -m 1 "^$u unsupported" /tmp/coexist.log)"
			continue
		fi
		n=$(grep -c "^$u [0-9][0-9]*$" /tmp/coexist.log)
		zero=$(grep -c "^$u 0$" /tmp/coexist.log)
		grep "^$u failed" /tmp/coexist.log | head -n 3 | sed 's/^/# /'
		check "[$u] switched on and off beside the cycles $n times, seeing calls every time" \
			test "$n" -ge 2 -a "$zero" = 0 -a "$(grep -c "^$u failed" /tmp/coexist.log)" = 0
	done
}
