# SPDX-License-Identifier: GPL-2.0
# In-guest: tlbpath beside the kernel's other users of the functions it
# hooks (Documentation/testing.md): the function and function_graph
# tracers, tracefs kprobes and kretprobes, BPF (perf kprobes, kretprobes,
# kprobe_multi, fentry and fexit trampolines; tests/vm/bpfcount.c), an
# ftrace user claiming IPMODIFY (tests/vm/ipmodify/) and, where the kernel
# has livepatch, a real live patch of flush_tlb_mm_range().  Each in both
# orders (tlbpath loaded first, the other attached first), toggled under
# flushing load; what must hold: tlbpath still decides (counters move,
# no stale TLB entry at threshold 0 and at the cap), the other user still
# sees its calls, every unload leaves nothing of its own.  Then the
# mutants (MUTANTS in the row: tlbpath built traceable, or claiming
# IPMODIFY) must fail the checks that would miss them.
#
# COEXIST_TOGGLES: how often each is switched on and off (default 2).
# COEXIST_USERS: which users, comma-separated (default: all).  COEXIST_STRESS=1: stress-ng
# runs beside the flushing load (the long tier).
. /guest-lib.sh

orig=$(ceiling 2>/dev/null)
toggles=${COEXIST_TOGGLES:-2}
sizes=2,64
rounds=2
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
users=$(echo "${COEXIST_USERS:-function graph kprobe kretprobe bpf-kprobe bpf-kretprobe bpf-kprobe_multi bpf-fentry bpf-fexit ipmodify klp}" | tr , " ")
diag "kernel $(uname -r), $(nproc) CPUs, $arch, shared function $FN, $toggles toggles, users: $users"

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

# The stale-TLB detector (tests/vm/staletlb.c), reader and revoker on
# the first two CPUs, beside the background one (guest-lib.sh) on the
# last two; fails on any stale read.
stale_free() {	# stale_free LABEL
	local rc
	staletlb -m all -n $sizes -r $rounds -a 0 -b 1 > /tmp/cx.out 2>&1
	rc=$?
	diag "$1: $(grep total /tmp/cx.out)"
	[ $rc = 0 ] || grep -h 'stale=[1-9]\|staletlb:' /tmp/cx.out | head -n 5 | sed 's/^/# /'
	return $rc
}

# tlbpath decides beside the other user: at threshold 0 every range is
# widened, at the cap kept, the counters say so, and the stale-TLB
# detector finds no stale entry either way.
decides() {	# decides LABEL
	local w p
	w=$(cnt user_widened)
	echo 0 > $T/threshold
	check "$1, threshold 0: no stale TLB entry" stale_free "$1 threshold=0"
	check "$1, threshold 0: tlbpath widened ranges" test "$(cnt user_widened)" -gt "$w"
	p=$(cnt user_perpage)
	cat $T/cap > $T/threshold
	check "$1, threshold at the cap: no stale TLB entry" stale_free "$1 threshold=cap"
	check "$1, threshold at the cap: tlbpath kept ranges" test "$(cnt user_perpage)" -gt "$p"
	echo auto > $T/threshold
}

# user_on USER: attach it; on failure $why says why, and $unsupported is
# set where this kernel cannot have it at all.
user_on() {
	why="" unsupported=""
	case $1 in
	function)
		# *tlb*: also what the recursion check looks for (user_off).
		# A small buffer: reading the trace back is slow under TCG.
		echo 32 > $TR/buffer_size_kb
		echo "*tlb*" > $TR/set_ftrace_filter &&
			echo > $TR/trace && echo function > $TR/current_tracer ;;
	graph)
		echo 32 > $TR/buffer_size_kb
		echo "$FN" > $TR/set_ftrace_filter &&
			echo > $TR/trace && echo function_graph > $TR/current_tracer ;;
	kprobe)
		echo "p:coexist/tlbpcoex_entry $FN" >> $TR/kprobe_events &&
			echo 1 > $TR/events/coexist/tlbpcoex_entry/enable ;;
	kretprobe)
		echo "r:coexist/tlbpcoex_exit $FN" >> $TR/kprobe_events &&
			echo 1 > $TR/events/coexist/tlbpcoex_exit/enable ;;
	bpf-*)
		bpf_on "${1#bpf-}" ;;
	ipmodify)
		insmod /ipmodify.ko func=$FN ;;
	klp)
		[ -z "${COEXIST_KLP_DEBUG:-}" ] ||
			{ echo 8 > /proc/sys/kernel/printk; echo 'file kernel/livepatch/transition.c +p' > /sys/kernel/debug/dynamic_debug/control; }
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

# The live patch is enabled (1) or gone (0), its transition over.
klp_settled() {
	local i=0 L=/sys/kernel/livepatch/klpsame
	while [ $i -lt 600 ]; do
		if [ "$1" = 1 ]; then
			[ "$(cat $L/enabled 2>/dev/null)" = 1 ] &&
				[ "$(cat $L/transition 2>/dev/null)" = 0 ] && return 0
		else
			[ ! -e $L ] && return 0
		fi
		i=$((i + 1))
		sleep 0.1
	done
	why="the live patch's transition did not end in 60 s"
	return 1
}

# user_off USER: detach it; $N is how many calls of $FN it saw while on
# (for the live patch, which counts nothing: 1 if it was enabled).  Not
# in a subshell: bpfcount must be waited for by the shell that started it.
user_off() {
	local n
	case $1 in
	function|graph)
		n=$(grep -c "$FN" $TR/trace)
		[ "$1" = graph ] || grep -m 3 'tlbp_' $TR/trace > /tmp/recursion
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

check "no ftrace user of tlbpath's functions at the start" all_gone
# Recursion: nothing another ftrace user traces is reached from tlbpath's
# callbacks, because none of tlbpath's code is traceable (Kbuild) and the
# callbacks call nothing of the kernel's but inline functions.  The
# function tracer on *tlb* checks it below while tlbpath decides.
insmod /tlbpath.ko
check "none of tlbpath's functions is traceable (available_filter_functions)" \
	sh -c "! grep -q '\[tlbpath\]' $TR/available_filter_functions"
rmmod tlbpath
[ -n "${COEXIST_NOLOAD:-}" ] || flush_load_start
if [ "${COEXIST_STRESS:-0}" = 1 ]; then
	echo "stress:x:1000:1000::/tmp:/bin/sh" >> /etc/passwd
	echo "stress:x:1000:" >> /etc/group
	chmod 1777 /tmp
	su -s /bin/sh stress -c "cd /tmp && exec stress-ng --tlb-shootdown 1 --mremap 1 --mprotect 1 --madvise 1 --vm 1 --vm-bytes 16M --verify --timeout 3600s" \
		> /tmp/sng.log 2>&1 &
	SNG=$!
fi
none=$(ops_on_hooks)

for u in $users; do
	# tlbpath first: the other user switched on and off beside it.
	insmod /tlbpath.ko
	check "[$u] tlbpath loads" test -e $T/threshold
	reset_counters
	# A live patch's transition under this load takes 40 s on 6.12 (0.5 s
	# unloaded; 1-2 s on 6.1 and 7.2): on and off once in each order.
	t=$toggles
	[ $u != klp ] || t=${COEXIST_KLP_TOGGLES:-1}
	i=0 seen=0 bad=""
	while [ $i -lt "$t" ]; do
		i=$((i + 1))
		if ! user_on $u; then
			bad="$why"
			break
		fi
		sleep 0.3
		[ $i = 1 ] && decides "[$u on, tlbpath first]"
		user_off $u
		[ "$N" -gt 0 ] && seen=$((seen + 1))
		diag "[$u] tlbpath first, toggle $i: $N calls seen by $u"
	done
	if [ -n "$unsupported" ]; then
		skip "[$u] cannot attach on this kernel: $bad"
		rmmod tlbpath
		check "[$u] tlbpath unloads clean" tlbpath_gone "$none"
		continue
	fi
	check "[$u] attaches beside tlbpath, $t times${bad:+ ($bad)}" test -z "$bad"
	check "[$u] sees calls of $FN beside tlbpath, every time" test $seen = $t
	if [ $u = function ]; then
		sed 's/^/# /' /tmp/recursion
		check "[$u] the function tracer on *tlb* reaches no tlbpath function (no recursion)" \
			test ! -s /tmp/recursion
	fi
	check "[$u] tlbpath decided throughout (user ranges counted)" \
		test "$(( $(cnt user_perpage) + $(cnt user_widened) ))" -gt 0
	rmmod tlbpath
	check "[$u] off first, then tlbpath: nothing left behind" all_gone

	# The other user first: tlbpath loaded and unloaded beside it.
	if ! user_on $u; then
		notok "[$u] attaches before tlbpath ($why)"
		continue
	fi
	before=$(ops_on_hooks)
	i=0 loads=0 gone=0
	while [ $i -lt "$toggles" ]; do
		i=$((i + 1))
		insmod /tlbpath.ko && loads=$((loads + 1))
		sleep 0.3
		# Two IPMODIFY users: the kernel refuses the second by itself.
		if [ $u = klp ] && [ $i = 1 ]; then
			check "a live patch, then an IPMODIFY hook: the kernel refuses the hook" \
				sh -c "! insmod /ipmodify.ko func=$FN 2>/dev/null"
			dmesg | grep 'ipmodify: cannot hook' | tail -n 1 | sed 's/^/# /'
		fi
		[ $i = 1 ] && decides "[$u on, tlbpath second]"
		rmmod tlbpath
		tlbpath_gone "$before" && gone=$((gone + 1))
	done
	check "[$u] tlbpath loads beside it, $toggles times" test $loads = $toggles
	check "[$u] tlbpath unloads beside it leaving nothing of its own" test $gone = $toggles
	user_off $u
	check "[$u] still saw calls of $FN ($N)" test "$N" -gt 0
	check "[$u] tlbpath first, then $u off: nothing left behind" all_gone
done

# Two IPMODIFY users on one function: the kernel refuses the second (the
# live patch's case is above), and tlbpath, which claims no IPMODIFY,
# keeps deciding beside the first.
insmod /tlbpath.ko
if [ -e /klpsame.ko ]; then
	insmod /ipmodify.ko func=$FN
	check "an IPMODIFY hook, then a live patch: the kernel refuses the live patch" \
		sh -c "! insmod /klpsame.ko 2>/dev/null"
	dmesg | grep 'livepatch: failed to register' | tail -n 1 | sed 's/^/# /'
	decides "[IPMODIFY hook, live patch refused]"
else
	insmod /ipmodify.ko func=$FN second=1
	check "two IPMODIFY hooks on $FN: the kernel refuses the second ($(cat /sys/module/ipmodify/parameters/second_ret))" \
		test "$(cat /sys/module/ipmodify/parameters/second_ret)" = -16
	decides "[IPMODIFY hook, second refused]"
fi
rmmod ipmodify
rmmod tlbpath
check "after the refused IPMODIFY users: nothing left behind" all_gone

# The mutants (tlbpath built otherwise for the tests: Kbuild's TLBP_MUTANT).
if [ -e /tlbpath-traceable.ko ]; then
	insmod /tlbpath-traceable.ko
	check "mutant: a traceable tlbpath shows in available_filter_functions" \
		grep -q '\[tlbpath\]' $TR/available_filter_functions
	user_on function
	echo 0 > $T/threshold
	sleep 2
	user_off function
	sed 's/^/# traceable mutant: /' /tmp/recursion
	check "mutant: the recursion check catches a traceable tlbpath" test -s /tmp/recursion
	rmmod tlbpath
fi
if [ -e /tlbpath-ipmodify.ko ]; then
	insmod /ipmodify.ko func=$FN
	check "mutant: a tlbpath claiming IPMODIFY cannot load beside an IPMODIFY user" \
		sh -c '! insmod /tlbpath-ipmodify.ko 2>/dev/null'
	dmesg | grep 'tlbpath: cannot hook' | tail -n 1 | sed 's/^/# /'
	rmmod ipmodify
	insmod /tlbpath-ipmodify.ko
	check "mutant: and an IPMODIFY user cannot attach beside it" \
		sh -c "! insmod /ipmodify.ko func=$FN 2>/dev/null"
	rmmod tlbpath
fi

check "the flushing load saw no wrong result" flush_load_stop
if [ -n "${SNG:-}" ]; then
	kill -INT $SNG 2>/dev/null
	wait $SNG
	rc=$?
	grep -iE 'fail|error|untrustworthy' /tmp/sng.log | head -n 5 | sed 's/^/# /'
	check "stress-ng exited cleanly (exit status $rc)" test $rc = 0
fi
check "nothing left behind at the end" all_gone
