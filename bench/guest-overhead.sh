# SPDX-License-Identifier: GPL-2.0
#
# The hook-cost benchmark in the guest (scripts/bench-overhead.sh): one
# vCPU under QEMU's -icount, so bench/overhead counts instructions.  Each
# round runs it with tlbpath not loaded (stock), loaded at its defaults
# (tlbpath) and loaded with the tlbpath:decision tracepoint on (traced);
# even rounds in reverse order, so a drift over the boot does not line up
# with a configuration.  Settings: /overhead.conf (LOOPS, ROUNDS).
. /guest-lib.sh
. /overhead.conf

# The same address layout in every run: where a mapping lands decides
# which page tables a munmap frees, and so what it costs.
echo 0 > /proc/sys/kernel/randomize_va_space

stock() { overhead "$LOOPS" "config=stock round=$1"; }
loaded() {
	overhead "$LOOPS" "config=tlbpath round=$1"
}
traced() {
	echo 1 > $TR/events/tlbpath/decision/enable
	overhead "$LOOPS" "config=traced round=$1"
	echo 0 > $TR/events/tlbpath/decision/enable
	# Something was traced: the tracepoint was live.
	grep -q 'decision: ' $TR/trace || notok "round $1: tlbpath:decision recorded nothing"
	echo > $TR/trace
}

r=1
while [ $r -le "$ROUNDS" ]; do
	if [ $((r % 2)) = 1 ]; then
		stock $r
		insmod /tlbpath.ko || notok "round $r: insmod"
		loaded $r
		traced $r
	else
		insmod /tlbpath.ko || notok "round $r: insmod"
		traced $r
		loaded $r
	fi
	rmmod tlbpath || notok "round $r: rmmod"
	[ $((r % 2)) = 1 ] || stock $r
	r=$((r + 1))
done
ok "overhead ran $ROUNDS rounds of $LOOPS calls"
