# SPDX-License-Identifier: GPL-2.0
#
# Load and unload tlbpath $CYCLES times (default 20) while every CPU
# flushes (self-checking mprotect, the stale-TLB detector) and another
# process rewrites threshold and enabled; each unload must leave nothing
# behind.
. /guest-lib.sh

orig=$(ceiling)
cycles=${CYCLES:-20}
diag "kernel $(uname -r), $(nproc) CPUs, $cycles load/unload cycles, stock ceiling $orig"

flush_load_start
tuner_start
bad=$(load_cycles "$cycles")
check "$cycles load/unload cycles under flushes on every CPU: nothing left behind each time" test "$bad" = 0
flush_load_stop
load_ok=$?
wait $TUNER_PID 2>/dev/null
check "the flush load saw no wrong result and no stale TLB entry" test $load_ok = 0
check "the detector ran throughout ($(detector_runs) runs)" test "$(detector_runs)" -ge 3
check "a clean load after the cycles works" insmod /tlbpath.ko
check "and its unload leaves nothing behind" sh -c 'rmmod tlbpath && . /guest-lib.sh && orig='"$orig"' && unloaded_clean'
