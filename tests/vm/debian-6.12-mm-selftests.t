#!/bin/sh
# The kernel's mm selftests with and without tlbpath, Debian's 6.12 kernel.
exec "$(dirname "$0")/../../scripts/vm-test.sh" 6.12 "$(dirname "$0")/guest-mm-selftests.sh" 2
