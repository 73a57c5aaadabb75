#!/bin/sh
# The core in-VM tests on Debian's 6.1 kernel.
exec "$(dirname "$0")/../../scripts/vm-test.sh" 6.1 "$(dirname "$0")/guest-core.sh" 2
