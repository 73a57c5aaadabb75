#!/bin/sh
# The core in-VM tests on Debian sid's newest kernel.
# (7.x and on: scripts/sid-root.sh's debootstrap root, made by make deps.)
exec "$(dirname "$0")/../../scripts/vm-test.sh" sid "$(dirname "$0")/guest-core.sh" 2
