# SPDX-License-Identifier: GPL-2.0
# In-guest tests of the core module on arm64: load, sysfs (what exists and
# what is absent), FEAT_TLBIRANGE, decisions by TLBI operations at the
# mmu_gather hooks, counters, bad input, unload.
. /guest-lib.sh

dmesg_has() { dmesg | grep -qF -- "$1"; }

diag "kernel $(uname -r), $(nproc) CPUs"

# Refusals (refused, guest-lib.sh): each leaves nothing behind and says why.
check "insmod threshold=cap+1 is refused" refused "threshold=65 is out of range" cap=64 threshold=65
check "insmod cap=0 is refused" refused "cap=0 is out of range" cap=0
echo 0 > /proc/sys/kernel/ftrace_enabled
check "kernel.ftrace_enabled=0 is refused (the hooks would never run)" \
	refused "the ftrace hooks never run"
echo 1 > /proc/sys/kernel/ftrace_enabled
# A kernel with neither unmap_page_range() nor __zap_vma_range() (the
# test-only unmap_fn= names one function to look for instead).
check "no traceable unmap function is refused" \
	refused "cannot hook the unmap path: no traceable tlbp_no_such_function()" \
	unmap_fn=tlbp_no_such_function

check "insmod controller=walks is refused (no walk counter here)" \
	refused "controller=walks is not time, none" controller=walks
# What auto means with no controller: stock's decisions (the time
# controller's own test is guest-timed-arm64.sh).
check "insmod tlbpath.ko controller=none" insmod /tlbpath.ko controller=none
check "adapt/controller reads none, and nothing decides (adapt/active 0)" \
	[ "$(cat $T/adapt/controller)" = none -a "$(cat $T/adapt/active)" = 0 ]
check "a second insmod is refused and the first stays" \
	sh -c "! insmod /tlbpath.ko 2>/dev/null && [ -e $T/threshold ]"

for f in threshold enabled cap threshold_auto stock_ceiling geometry/source \
	geometry/tlbi_range geometry/isar0_tlb geometry/midr counters/user_perpage \
	counters/user_widened counters/user_caller_full counters/user_pages \
	counters/kept_where_stock_full counters/full_where_stock_kept counters/reset; do
	check "$f exists" test -e $T/$f
done
# Paths arm64 does not have are absent, not zero.
for f in kernel_ceiling model calibration geometry/l1d_4k geometry/l2_4k \
	geometry/by_cpu geometry/hypervisor counters/user_remote counters/user_local \
	counters/kernel_perpage counters/kernel_widened counters/kernel_caller_full \
	counters/kernel_pages; do
	check "$f is absent on arm64" test ! -e $T/$f
done

# QEMU's -cpu max implements FEAT_TLBIRANGE, cortex-a57 does not.  The
# stock limit is what __flush_tlb_range() issues at most: an odd page and
# four range ops, or 511 single-page TLBIs.
check "geometry/source is none (no architected TLB sizes)" [ "$(cat $T/geometry/source)" = none ]
# The kernel's own word on it, at boot:
if dmesg | grep -q 'CPU features: detected: TLB range maintenance instructions'; then
	range=1 stock=5 use="in use" ops7=2 ops7max=2
	check "ID_AA64ISAR0_EL1.TLB is 2 (FEAT_TLBIRANGE)" [ "$(cat $T/geometry/isar0_tlb)" = 2 ]
else
	range=0 stock=511 use="not in use" ops7=7 ops7max=7
	check "ID_AA64ISAR0_EL1.TLB is not 2 (no FEAT_TLBIRANGE)" [ "$(cat $T/geometry/isar0_tlb)" != 2 ]
fi
# LPA2 (52-bit VAs with 4K pages: Debian's 6.12 and 7.2 on a CPU with
# FEAT_LPA2, such as QEMU's max): a range TLBI must start 64K-aligned, so
# the kernel first flushes up to 15 pages one by one, as many as lie
# before the first 64K boundary: 20 TLBI ops at most, and a 7-page range
# costs 2 to 7 by where it starts (the workloads' mmap() decides).
lpa2=0 lpa2msg=""
if [ $range = 1 ] && dmesg | grep -q 'CPU features: detected: 52-bit Virtual Addressing (LPA2)'; then
	lpa2=1 lpa2msg=", LPA2" stock=20 ops7max=7
fi
diag "range TLBI $range, LPA2 $lpa2: stock $stock TLBI ops, $ops7 to $ops7max for 7 pages"
# The loop the Kbuild probe found in the kernel's tlbflush.h (tlbi.h).
# 7.2 zaps a VMA's range in __zap_vma_range(), no longer unmap_page_range().
unmap=unmap_page_range
case $(uname -r) in
6.1.*) loop=6.1 ;;
6.12.*) loop=6.12 ;;
*) loop=7.2 unmap=__zap_vma_range ;;
esac
check "TLBI ops are counted as $loop's __flush_tlb_range() does${lpa2msg:+, with LPA2}" \
	dmesg_has "(as $loop's __flush_tlb_range() counts them$lpa2msg)"
check "geometry/tlbi_range is $range" [ "$(cat $T/geometry/tlbi_range)" = $range ]
midr=$(cat $T/geometry/midr)
impl=$(sed -n 's/^CPU implementer[[:space:]]*: //p' /proc/cpuinfo | head -n1)
part=$(sed -n 's/^CPU part[[:space:]]*: //p' /proc/cpuinfo | head -n1)
diag "MIDR $midr, /proc/cpuinfo implementer $impl part $part"
check "geometry/midr agrees with /proc/cpuinfo" \
	[ $(( (midr >> 24) & 0xff )) = $((impl)) -a $(( (midr >> 4) & 0xfff )) = $((part)) ]
check "the load message says FEAT_TLBIRANGE $use and TLB sizes unknown" \
	sh -c "dmesg | grep -q 'tlbpath: loaded: FEAT_TLBIRANGE $use (ID_AA64ISAR0_EL1.TLB=.*TLB sizes unknown'"
check "stock_ceiling is $stock TLBI ops" [ "$(cat $T/stock_ceiling)" = $stock ]
check "threshold (auto) is the stock ceiling" [ "$(cat $T/threshold)" = $stock ]
check "threshold_auto=1" [ "$(cat $T/threshold_auto)" = 1 ]

for f in $unmap change_protection tlb_finish_mmu; do
	check "$f is hooked (enabled_functions)" grep -q "^$f\b" $TR/enabled_functions
done

# mprotect of 1..8 pages: auto keeps all.
reset_counters
mprotect -n 8 -l 50 -p 16 >/dev/null
pp=$(cnt user_perpage)
diag "auto, mprotect 1..8: perpage=$pp widened=$(cnt user_widened) ops=$(cnt user_pages)"
check "auto: mprotect ranges are kept" [ "$pp" -ge 400 -a "$(cnt user_widened)" = 0 ]
# 7 pages: an odd page and one range TLBI of 6, or 7 TLBIs.
reset_counters
mprotect -f 7 -l 50 -p 16 >/dev/null
ops=$(cnt user_pages)
diag "auto, mprotect 7: perpage=$(cnt user_perpage) ops=$ops"
check "auto: the TLBI ops of kept ranges are counted ($ops7 to $ops7max per 7-page range)" \
	[ "$ops" -ge $((ops7 * 50)) -a "$ops" -le $((ops7max * 50 + 100)) ]
check "auto: nothing differs from stock" \
	[ "$(cnt full_where_stock_kept)" = 0 -a "$(cnt kept_where_stock_full)" = 0 ]

echo 0 > $T/threshold
reset_counters
mprotect -n 8 -l 50 -p 16 >/dev/null
diag "threshold=0, mprotect 1..8: perpage=$(cnt user_perpage) widened=$(cnt user_widened)"
check "threshold=0: no mprotect range kept" [ "$(cnt user_perpage)" = 0 ]
check "threshold=0: mprotect ranges widened" [ "$(cnt user_widened)" -ge 400 ]
check "threshold=0: counted against stock" [ "$(cnt full_where_stock_kept)" -ge 400 ]
reset_counters
munmap -n 8 -l 50 -t 0 >/dev/null
diag "threshold=0, munmap 8: perpage=$(cnt user_perpage) widened=$(cnt user_widened)"
check "threshold=0: munmap ranges widened, none kept" \
	[ "$(cnt user_widened)" -ge 50 -a "$(cnt user_perpage)" = 0 ]
check "whole-mm teardowns are the caller's full flushes" [ "$(cnt user_caller_full)" -ge 1 ]

# threshold=1: what counts is TLBI ops, not pages.
# (exec and exit of the workload flush a few ranges of their own.)
t1() {	# t1 PAGES kept|widened
	local kept widened
	reset_counters
	mprotect -f $1 -l 50 -p 16 >/dev/null
	kept=$(cnt user_perpage) widened=$(cnt user_widened)
	diag "threshold=1, mprotect $1: perpage=$kept widened=$widened"
	if [ $2 = kept ]; then
		[ "$kept" -ge 50 -a "$widened" -lt 10 ]
	else
		[ "$widened" -ge 50 -a "$kept" -lt 10 ]
	fi
}
echo 1 > $T/threshold
if [ $lpa2 = 1 ]; then
	# Whether 2 or 64 pages are one operation depends on where they start.
	check "threshold=1, LPA2: 1-page ranges are kept" t1 1 kept
	check "threshold=1, LPA2: 3-page ranges (two TLBI ops or more) are widened" t1 3 widened
	check "threshold=1, LPA2: 63-page ranges (two TLBI ops or more) are widened" t1 63 widened
elif [ $range = 1 ]; then
	check "threshold=1: 64-page ranges (one range TLBI) are kept" t1 64 kept
	check "threshold=1: 63-page ranges (two TLBI ops) are widened" t1 63 widened
	check "threshold=1: 2-page ranges are kept" t1 2 kept
	check "threshold=1: 3-page ranges are widened" t1 3 widened
else
	check "threshold=1: 1-page ranges are kept" t1 1 kept
	check "threshold=1: 2-page ranges (two TLBIs) are widened" t1 2 widened
	check "threshold=1: 64-page ranges are widened" t1 64 widened
fi

# enabled=0 decides as stock even at threshold 0.
echo 0 > $T/threshold
echo 0 > $T/enabled
reset_counters
mprotect -n 8 -l 50 -p 16 >/dev/null
check "enabled=0: stock keeps small ranges despite threshold=0" \
	[ "$(cnt user_perpage)" -ge 400 -a "$(cnt user_widened)" = 0 ]
echo 1 > $T/enabled
cap=$(cat $T/cap)

for v in -1 $((cap + 1)) x "" 1x 99999999999; do
	check "threshold rejects '$v'" rejects $T/threshold "$v"
done
for v in 2 -1 x; do
	check "enabled rejects '$v'" rejects $T/enabled "$v"
done
check "threshold 'auto' returns to stock" \
	sh -c "echo auto > $T/threshold && [ \$(cat $T/threshold) = $stock ] && [ \$(cat $T/threshold_auto) = 1 ]"
mprotect -n 8 -l 10 -p 16 >/dev/null
# Read by the shell itself: every exec flushes (and counts) a few ranges.
echo 1 > $T/counters/reset
read -r v < $T/counters/user_perpage
check "reset zeroes the counters" [ "$v" = 0 ]

(sleep 1; mprotect -n 8 -l 100 -p 16 > /dev/null) &
tlbpath-stat -n 3 1 > /tmp/stat.out 2>&1
wait
sed 's/^/# /' /tmp/stat.out
check "tlbpath-stat prints a header with a line per CPU, and 3 lines of arm64's counters" \
	sh -c "[ \$(wc -l < /tmp/stat.out) = $(($(nproc) + 6)) ] &&
	       [ \$(grep -c '^  cpu=[0-9]* mode=' /tmp/stat.out) = $(nproc) ] &&
	       ! grep -q 'u_rem\|unloaded' /tmp/stat.out &&
	       grep -q '^tlbpath: arm64, range TLBI [01] .*TLB sizes unknown' /tmp/stat.out"

check "rmmod tlbpath" rmmod tlbpath
check "unload says so, and names no x86 ceiling" \
	sh -c 'dmesg | grep -q "tlbpath: unloaded: the mmu_gather hooks are gone" &&
	       ! dmesg | grep -q tlb_single_page_flush_ceiling'
check "unload removes /sys/kernel/tlbpath" [ ! -e $T ]
check "unload removes the hooks" \
	sh -c "! grep -q '$unmap\|change_protection\|tlb_finish_mmu' $TR/enabled_functions"
check "module parameters: threshold=1 enabled=0 at load" \
	sh -c "insmod /tlbpath.ko threshold=1 enabled=0 && [ \$(cat $T/threshold) = 1 ] &&
	       [ \$(cat $T/enabled) = 0 ] && [ \$(cat $T/threshold_auto) = 0 ] && rmmod tlbpath"
