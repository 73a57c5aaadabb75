#!/bin/sh
# perf record -e tlbpath:decision on Debian sid's newest kernel.
# (7.x and on: scripts/sid-root.sh's debootstrap root, made by make deps.)
exec "$(dirname "$0")/../../scripts/vm-test.sh" sid "$(dirname "$0")/guest-perf.sh" 2
