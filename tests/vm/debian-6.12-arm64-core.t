#!/bin/sh
# The core in-VM tests on Debian's arm64 6.12 kernel (qemu-system-aarch64).
exec "$(dirname "$0")/../../scripts/vm-test.sh" 6.12-arm64 "$(dirname "$0")/guest-core-arm64.sh" 2
