#!/bin/sh
# The core in-VM tests on the arm64 build of sid's newest kernel (qemu-system-aarch64).
exec "$(dirname "$0")/../../scripts/vm-test.sh" sid-arm64 "$(dirname "$0")/guest-core-arm64.sh" 2
