#!/bin/sh
# The long tier on Debian's 6.12 kernel, 4 vCPUs.
# Single-threaded TCG, as in make check: multi-threaded, 6.1 too died in
# live text patching under this load (vCPUs looping on the int3 at
# flush_tlb_mm_range+0 while ftrace patched it), as 6.12 does with no
# tlbpath at all (tests/long/repro).  One host thread running 4 busy
# vCPUs is slower: the guest gets 25 minutes.
export VM_TIMEOUT=${VM_TIMEOUT:-1500}
exec "$(dirname "$0")/../../scripts/vm-test.sh" 6.12 "$(dirname "$0")/guest-stress.sh" 4
