#!/bin/sh
# The stale-TLB detector on Debian's arm64 6.12 kernel, 2 vCPUs.
exec "$(dirname "$0")/../../scripts/vm-test.sh" 6.12-arm64 "$(dirname "$0")/guest-stale-arm64.sh" 2
