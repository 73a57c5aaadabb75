# SPDX-License-Identifier: GPL-2.0
# make demo: load tlbpath, show what it found, run the mprotect workload at
# two thresholds and at the default, and show how the decisions and
# counters moved and what each CPU's controller learnt.
T=/sys/kernel/tlbpath
DBG=/sys/kernel/debug/x86/tlb_single_page_flush_ceiling

show() {
	local f
	for f in "$@"; do printf '  %-24s %s\n' "$f" "$(cat $T/$f)"; done
}

echo "== kernel $(uname -r), $(nproc) vCPUs (QEMU TCG: times are emulated)"
echo "== stock tlb_single_page_flush_ceiling: $(cat $DBG)"
insmod /tlbpath.ko || { echo "insmod failed"; dmesg | tail -n 5; exit 1; }
dmesg | grep 'tlbpath:' | tail -n 1
echo "== geometry"
(cd $T && show geometry/source geometry/hypervisor geometry/l1d_4k geometry/l1i_4k \
	geometry/l2_4k geometry/l1d_2m geometry/l2_2m geometry/l1d_1g geometry/l2_1g)
echo "== calibration (TSC cycles; emulated here)"
(cd $T && show calibration/status calibration/invlpg_cycles calibration/full_cycles \
	calibration/refill_cycles calibration/reach calibration/limit_4k)
echo "== tunables"
show threshold model stock_ceiling cap kernel_ceiling

# Ranges of 1..64 pages: at 33 the upper half is flushed in full, at 64
# none; auto lets each CPU's controller choose (from emulated time here).
for t in 33 64 auto; do
	echo $t > $T/threshold
	echo 1 > $T/counters/reset
	echo "== threshold=$t: mprotect -n 64 -l 40 -p 256 (ranges of 1..64 pages)"
	echo "  $(mprotect -n 64 -l 40 -p 256)"
	(cd $T && show kernel_ceiling counters/user_perpage counters/user_widened \
		counters/user_caller_full counters/user_pages \
		counters/kept_where_stock_full counters/full_where_stock_kept \
		counters/user_local counters/user_remote counters/kernel_perpage \
		counters/kernel_widened)
done
echo "== adapt/controller: $(cat $T/adapt/controller); adapt/by_cpu:"
sed 's/^/  /' $T/adapt/by_cpu

rmmod tlbpath
echo "== after rmmod: tlb_single_page_flush_ceiling = $(cat $DBG), /sys/kernel/tlbpath $( [ -e $T ] && echo present || echo gone)"
