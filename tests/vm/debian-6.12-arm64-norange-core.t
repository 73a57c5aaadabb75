#!/bin/sh
# The core in-VM tests on Debian's arm64 6.12 kernel on a CPU without
# FEAT_TLBIRANGE (QEMU's cortex-a57): one TLBI per page, 511 at most.
VM_CPU=cortex-a57 exec "$(dirname "$0")/../../scripts/vm-test.sh" 6.12-arm64 \
	"$(dirname "$0")/guest-core-arm64.sh" 2
