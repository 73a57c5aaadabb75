# SPDX-License-Identifier: GPL-2.0
#
# The debug tier can fail: badhook (a test-only mutant) allocates with
# GFP_KERNEL under its hook's preempt_disable() and leaks an allocation
# per load.  tests/debug/mutant.t checks that the kernel reported both.
. /guest-lib.sh

kmemleak_set_aside
check "insmod badhook.ko bug=sleep" insmod /badhook.ko bug=sleep
mprotect -n 8 -l 2 -p 4 >/dev/null
rmmod badhook
check "insmod badhook.ko bug=leak" insmod /badhook.ko bug=leak
rmmod badhook
kmemleak_scan
check "kmemleak lists the object badhook lost" grep -q "badhook: leaked" $KL
