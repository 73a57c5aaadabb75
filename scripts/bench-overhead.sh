#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/bench-overhead.sh: the hook's own cost, in guest instructions.
#
# Boots each kernel under single-threaded QEMU TCG with -icount
# shift=0,sleep=off and one vCPU, where the guest's clock counts the
# instructions it executes, and runs bench/overhead there (see
# bench/guest-overhead.sh): a one-page mprotect, a one-page munmap and a
# 16-page madvise(MADV_DONTNEED), each on touched pages, with tlbpath not
# loaded, at its defaults, and with its tracepoint on, all in one boot
# (absolute counts move a few percent from boot to boot; ratios within one
# boot repeat to about 0.5%).  Instructions, not cycles: TLB refills and
# everything else a real CPU spends time on are invisible here by design.
#
# Prints TAP: per kernel and call, tlbpath at its defaults costs at most
# LIMIT times the stock kernel.  Writes the table to RESULTS.
#
# Settings (environment):
#   KERNELS  kernel series                  (default "6.1 6.12 sid")
#   LOOPS    calls per measurement          (default 2000)
#   ROUNDS   measurements per configuration (default 5; the median is used)
#   LIMIT    the largest ratio that passes  (default 1.03)
#   RESULTS  the table                      (default bench/results/overhead.md)
#   QUICK=1  the make check version: 3 rounds of 500 calls, the table
#            under build/overhead/
set -uo pipefail
. "$(dirname "$0")/vmlib.sh"
. "$TOP/bench/benchlib.sh"

if [ "${QUICK:-0}" = 1 ]; then
	LOOPS=${LOOPS:-500}
	ROUNDS=${ROUNDS:-3}
	RESULTS=${RESULTS:-$BUILD/overhead/overhead.md}
fi
KERNELS=${KERNELS:-6.1 6.12 sid}
LOOPS=${LOOPS:-2000}
ROUNDS=${ROUNDS:-5}
LIMIT=${LIMIT:-1.03}
RESULTS=${RESULTS:-$TOP/bench/results/overhead.md}
CALLS="mprotect1 munmap1 madvise16"

n=0 fail=0
tap() {	# tap OK DESCRIPTION
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		fail=$((fail + 1))
	fi
}

# The median over the rounds of one (call, configuration) in LOG.
med() {	# med LOG CALL CONFIG
	sed -n "s/^overhead config=$3 round=[0-9]* call=$2 instr=\([0-9]*\) .*/\1/p" "$1" |
		sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}

mkdir -p "$(dirname "$RESULTS")" "$BUILD/overhead"
table=$BUILD/overhead/table.md
{
	echo "| kernel | call | stock | tlbpath | tlbpath / stock | traced | traced / stock |"
	echo "|---|---|---:|---:|---:|---:|---:|"
} >"$table"

# each_kernel's three: one boot of each kernel, -icount.
skip_kernel() {
	echo "# SKIP no Debian $1 kernel with headers installed (make deps)"
}

no_module() {
	tap 1 "$1: build tlbpath with W=1"
}

overhead_kernel() {	# overhead_kernel KVER KO
	local kver=$1 ko=$2 work="$BUILD/overhead/$1" start call s t x line ratio
	mkdir -p "$work"
	printf 'LOOPS=%s\nROUNDS=%s\n' "$LOOPS" "$ROUNDS" >"$work/overhead.conf"
	make_initramfs "$work/initrd.gz" "$ko" "$TOP/bench/guest-overhead.sh" "$work/overhead.conf" ||
		{ tap 1 "$kver: pack the initramfs"; return; }
	start=$(date +%s)
	VM_ICOUNT=1 boot "$kver" "$work/initrd.gz" "$work/console.log" "$work/output.log" 1
	tr -d '\r' <"$work/output.log" >"$work/out.txt"
	echo "# $kver: guest ran $(( $(date +%s) - start )) s, $ROUNDS rounds of $LOOPS calls; logs in $work"
	tap "$(grep -q '^tlbpath-guest: done' "$work/out.txt"; echo $?)" "$kver: the guest ran to the end"
	tap "$(! grep -q '^not ok' "$work/out.txt"; echo $?)" "$kver: the guest's own checks"
	grep '^not ok' "$work/out.txt" | sed 's/^/# guest: /'
	tap "$(! guest_log_bad "$work/console.log" >/dev/null; echo $?)" \
		"$kver: guest kernel log has no BUG/WARNING/Oops/Call Trace/lockup/stall"
	for call in $CALLS; do
		s=$(med "$work/out.txt" "$call" stock)
		t=$(med "$work/out.txt" "$call" tlbpath)
		x=$(med "$work/out.txt" "$call" traced)
		if [ -z "$s" ] || [ -z "$t" ] || [ -z "$x" ]; then
			tap 1 "$kver $call: measured in every configuration"
			continue
		fi
		line=$(awk -v k="$kver" -v c="$call" -v s="$s" -v t="$t" -v x="$x" 'BEGIN {
			printf "| %s | %s | %d | %d | %.3f | %d | %.3f |", k, c, s, t, t / s, x, x / s }')
		echo "$line" >>"$table"
		ratio=$(awk -v s="$s" -v t="$t" 'BEGIN { printf "%.3f", t / s }')
		tap "$(awk -v r="$ratio" -v l="$LIMIT" 'BEGIN { exit !(r <= l) }'; echo $?)" \
			"$kver $call: tlbpath/stock $ratio <= $LIMIT ($t against $s instructions; traced $x)"
	done
}

each_kernel skip_kernel no_module overhead_kernel

{
	echo "# The hook's own cost, in guest instructions per call"
	echo
	echo "Made by \`make bench-overhead\` (\`scripts/bench-overhead.sh\`, LOOPS=$LOOPS,"
	echo "ROUNDS=$ROUNDS) on $(date -u +%Y-%m-%d): $(qemu-system-x86_64 --version | head -n 1),"
	echo "single-threaded TCG, \`-icount shift=0,sleep=off\`, 1 vCPU, \`-cpu ${VM_CPU:-max}\`; host:"
	echo "$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)."
	echo "**Emulated instruction counts, not cycles**: TLB refills, cache misses and"
	echo "everything else a real CPU spends time on are invisible here by design."
	echo "Each cell is the median over the rounds of the median call of $LOOPS;"
	echo "stock, tlbpath (loaded, defaults) and traced (tlbpath:decision enabled)"
	echo "ran in the same boot."
	echo
	cat "$table"
} >"$RESULTS"
echo "# table: $RESULTS"
sed 's/^/# /' "$table"
echo "1..$n"
[ $fail = 0 ]
