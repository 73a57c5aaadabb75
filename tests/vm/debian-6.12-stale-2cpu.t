#!/bin/sh
# The stale-TLB detector on Debian's 6.12 kernel, 2 vCPUs.
exec "$(dirname "$0")/../../scripts/vm-test.sh" 6.12 "$(dirname "$0")/guest-stale.sh" 2
