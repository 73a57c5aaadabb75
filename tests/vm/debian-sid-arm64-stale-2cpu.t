#!/bin/sh
# The stale-TLB detector on the arm64 build of sid's newest kernel, 2 vCPUs.
exec "$(dirname "$0")/../../scripts/vm-test.sh" sid-arm64 "$(dirname "$0")/guest-stale-arm64.sh" 2
