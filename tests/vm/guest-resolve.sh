# SPDX-License-Identifier: GPL-2.0
# In-guest: how tlbpath finds tlb_single_page_flush_ceiling (src/ceiling_x86.c).
# From the hooked functions, whatever the compiler inlined there; and,
# through the test-only ceiling_root parameter, from functions chosen here:
# one call away from the code that names the ceiling it is found (and it is
# the kernel's own: the debugfs file moves with tlbpath's threshold), two
# calls away it is not, and nothing is left behind.
. /guest-lib.sh

orig=$(ceiling)
# A function's address, as /proc/kallsyms gives it.
addr() { awk -v n="$1" '$3 == n && ($2 == "T" || $2 == "t") { print "0x" $1; exit }' /proc/kallsyms; }

# Where the kernel compares with the ceiling: get_flush_tlb_info() (6.15 on)
# when the compiler kept it out of line, else flush_tlb_mm_range().
if [ -n "$(addr get_flush_tlb_info)" ]; then
	named=get_flush_tlb_info callers=flush_tlb_mm_range
else
	named=flush_tlb_mm_range
	# Callers of flush_tlb_mm_range(); which ones call it directly depends
	# on what the compiler inlined, so each is tried.
	callers="flush_tlb_batched_pending ptep_clear_flush tlb_flush_mmu flush_tlb_mm
		 pmdp_invalidate pudp_invalidate change_protection flush_tlb_fix_spurious_fault"
fi
diag "kernel $(uname -r), stock ceiling $orig; the ceiling is named in $named"

# moves THRESHOLD: tlbpath is loaded and the kernel's ceiling follows it.
moves() { echo "$1" > $T/threshold && [ "$(ceiling)" = "$1" ]; }
gone() { [ ! -e $T ] && [ "$(ceiling)" = "$orig" ]; }

check "from the hooks: loads" insmod /tlbpath.ko
check "from the hooks: the ceiling found is the kernel's" moves 41
dmesg | grep 'tlbpath: .* found in' | tail -n 1 | sed 's/^/# /'
rmmod tlbpath
check "from the hooks: unload restores it" gone

found=0
for c in $callers; do
	a=$(addr $c)
	[ -n "$a" ] || continue
	dmesg -c > /dev/null
	if insmod /tlbpath.ko ceiling_root=$a 2>/dev/null; then
		msg=$(dmesg | grep -o "found in .*")
		diag "ceiling_root=$c: $msg"
		if [ "$msg" = "found in $named, called from $c" ] && moves 42; then
			found=$((found + 1))
		else
			notok "ceiling_root=$c: found only where $c calls $named, and it is the kernel's"
		fi
		rmmod tlbpath
	else
		diag "ceiling_root=$c: not found ($c does not call $named directly here)"
	fi
	gone || notok "ceiling_root=$c leaves nothing behind"
done
check "one call away from $named (ceiling_root=a caller), the ceiling is found" [ $found -ge 1 ]

# Two calls or more away: refused, with the usual message, nothing left.
dmesg -c > /dev/null
check "from vm_munmap (far from any flush) it is not found" \
	sh -c "! insmod /tlbpath.ko ceiling_root=$(addr vm_munmap) 2>/dev/null"
check "... the refusal says so" sh -c 'dmesg | grep -q "tlbpath: cannot find tlb_single_page_flush_ceiling"'
check "... and leaves nothing behind" gone
a=$(addr flush_tlb_mm_range)
check "an address inside a function, not its start, is refused" \
	sh -c "! insmod /tlbpath.ko ceiling_root=${a%?}1 2>/dev/null"
check "... and leaves nothing behind" gone
