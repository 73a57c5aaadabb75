#!/bin/sh
# The long tier on Debian's 6.1 kernel, 4 vCPUs.
exec "$(dirname "$0")/../../scripts/vm-test.sh" 6.1 "$(dirname "$0")/guest-stress.sh" 4
