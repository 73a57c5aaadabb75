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
