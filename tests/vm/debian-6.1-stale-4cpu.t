#!/bin/sh
# The stale-TLB detector on Debian's 6.1 kernel, 4 vCPUs.
exec "$(dirname "$0")/../../scripts/vm-test.sh" 6.1 "$(dirname "$0")/guest-stale.sh" 4
