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
# COEXIST_USERS: which users, comma-separated (default: all).
# COEXIST_NOLOAD=1: no flushing load (to tell what the load changes).
# The long tier switches the same users beside its load/unload cycles
# (tests/long/guest-stress.sh).
. /guest-lib.sh

orig=$(ceiling 2>/dev/null)
toggles=${COEXIST_TOGGLES:-2}
sizes=2,64
rounds=2
users=$(echo "${COEXIST_USERS:-function graph kprobe kretprobe bpf-kprobe bpf-kretprobe bpf-kprobe_multi bpf-fentry bpf-fexit ipmodify klp}" | tr , " ")
diag "kernel $(uname -r), $(nproc) CPUs, $arch, shared function $FN, $toggles toggles, users: $users"

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
	echo > $TR/trace
	check "$1, threshold 0: no stale TLB entry" stale_free "$1 threshold=0"
	check "$1, threshold 0: tlbpath widened ranges" test "$(cnt user_widened)" -gt "$w"
	# Whose arguments a kprobe at the entry sees: the list order's.
	if grep -q 'end=' $TR/trace 2>/dev/null; then
		diag "$1, threshold 0: the kprobe saw end=TLB_FLUSH_ALL in" \
			"$(grep -c 'end=0xffffffffffffffff' $TR/trace) of its last $(grep -c 'end=' $TR/trace) calls"
	fi
	p=$(cnt user_perpage)
	cat $T/cap > $T/threshold
	check "$1, threshold at the cap: no stale TLB entry" stale_free "$1 threshold=cap"
	check "$1, threshold at the cap: tlbpath kept ranges" test "$(cnt user_perpage)" -gt "$p"
	echo auto > $T/threshold
}

check "no ftrace user of tlbpath's functions at the start" all_gone
# Recursion: nothing another ftrace user traces is reached from tlbpath's
# callbacks, because none of tlbpath's code is traceable (Kbuild) but the
# anchor of its filters, which nothing calls, and the callbacks call
# nothing of the kernel's but inline functions.  The function tracer on
# *tlb* checks it below while tlbpath decides.
traced() { grep '\[tlbpath\]' $TR/available_filter_functions | grep -qv '^tlbp_ftrace_anchor[0-9] '; }
untraced() { ! traced; }
insmod /tlbpath.ko
check "none of tlbpath's functions but the filters' anchor is traceable (available_filter_functions)" \
	untraced
rmmod tlbpath
[ -n "${COEXIST_NOLOAD:-}" ] || flush_load_start
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
	rm -f /tmp/recursion
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
	if [ $u = function ] && [ -z "${COEXIST_FILTER:-}" ]; then
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
	check "mutant: a traceable tlbpath shows in available_filter_functions" traced
	rm -f /tmp/recursion
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
	check "mutant: its one pr_err names the function and the conflict" \
		sh -c "dmesg | grep -q 'tlbpath: cannot hook $FN through ftrace (-16): another ftrace user holds it exclusively'"
	rmmod ipmodify
	insmod /tlbpath-ipmodify.ko
	check "mutant: and an IPMODIFY user cannot attach beside it" \
		sh -c "! insmod /ipmodify.ko func=$FN 2>/dev/null"
	rmmod tlbpath
fi

check "the flushing load saw no wrong result" flush_load_stop
check "nothing left behind at the end" all_gone
