#!/bin/sh
# The adaptive default on Debian's 6.1 kernel: stock without a PMU, the
# controllers on a software stand-in.
exec "$(dirname "$0")/../../scripts/vm-test.sh" 6.1 "$(dirname "$0")/guest-adapt.sh" 2
