# SPDX-License-Identifier: GPL-2.0
# In-guest, arm64: the stale-TLB detector, with and without tlbpath, at the
# thresholds that matter (counted in TLBI operations), with the policy on
# and off; and proof that it catches a module that narrows flushes.
. /guest-lib.sh

ncpu=$(nproc)
# Around one range TLBI (2, 64, 512), two (3, 63, 65, 513), and an odd page.
sizes=1,2,3,8,63,64,65,512,513
rounds=${STALE_ROUNDS:-4}
diag "kernel $(uname -r), $ncpu CPUs, sizes $sizes, $rounds rounds per size and mode"

detect_under 0 1 2 auto
echo 1 > $T/threshold
reset_counters
detect "threshold=1, counted" >/dev/null
diag "tlbpath counters: perpage=$(cnt user_perpage) widened=$(cnt user_widened) ops=$(cnt user_pages)"
check "the detector's flushes went through tlbpath (kept and widened)" \
	test "$(cnt user_perpage)" -gt 0 -a "$(cnt user_widened)" -gt 0
echo auto > $T/threshold
rmmod tlbpath

# The detector must be able to fail: dropflush-arm64 narrows the flushes
# of what unmap_page_range() and change_protection() gather to nothing.
# One mode at a time: after a whole "-m all" run under the mutant, the
# MAP_FIXED rounds at its end were caught only some of the time.
insmod /dropflush-arm64.ko
for m in mprotect munmap mapfixed mremap; do
	staletlb -m $m -n 2,8 -r 8 > /tmp/drop.$m 2>&1
	echo $? > /tmp/drop.$m.rc
done
rmmod dropflush_arm64
cat /tmp/drop.mprotect /tmp/drop.munmap /tmp/drop.mapfixed /tmp/drop.mremap |
	grep '^staletlb mode' | sed 's/^/# dropflush-arm64: /'
# Every size's odd rounds are anchored (staletlb.c): their page table
# survives, so the mutant is caught in every mode and size.
for m in mprotect munmap mapfixed; do
	check "the detector fails (exit 1) on narrowed flushes in $m mode" \
		test "$(cat /tmp/drop.$m.rc)" = 1
	for n in 2 8; do
		check "the detector catches narrowed flushes in $m mode, $n pages" \
			grep -q "mode=$m pages=$n .*stale=[1-9]" /tmp/drop.$m
	done
done
# mremap's move_ptes() flushes with an inline flush_tlb_range(), outside
# any mmu_gather: neither tlbpath nor the mutant reaches it.
diag "mremap: $(grep 'mode=mremap ' /tmp/drop.mremap | tr '\n' ' ')(not reachable through mmu_gather)"
