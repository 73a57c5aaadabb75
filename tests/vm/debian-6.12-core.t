#!/bin/sh
# The core in-VM tests on Debian's 6.12 kernel.
exec "$(dirname "$0")/../../scripts/vm-test.sh" 6.12 "$(dirname "$0")/guest-core.sh" 2
