#!/bin/sh
# perf record -e tlbpath:decision on Debian's 6.1 kernel.
exec "$(dirname "$0")/../../scripts/vm-test.sh" 6.1 "$(dirname "$0")/guest-perf.sh" 2
