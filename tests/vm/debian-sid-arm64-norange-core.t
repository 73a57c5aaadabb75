#!/bin/sh
# The core in-VM tests on the arm64 build of sid's newest kernel on a CPU without
# FEAT_TLBIRANGE (QEMU's cortex-a57): one TLBI per page, 511 at most.
VM_CPU=cortex-a57 exec "$(dirname "$0")/../../scripts/vm-test.sh" sid-arm64 \
	"$(dirname "$0")/guest-core-arm64.sh" 2
