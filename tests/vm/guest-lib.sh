# SPDX-License-Identifier: GPL-2.0
# TAP helpers for the guest (busybox ash).  Results go to the second serial
# port; the host harness numbers them and checks the console log.

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
