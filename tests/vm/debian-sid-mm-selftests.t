#!/bin/sh
# The kernel's mm selftests with and without tlbpath, Debian sid's newest kernel.
# (7.x and on: scripts/sid-root.sh's debootstrap root, made by make deps.)
exec "$(dirname "$0")/../../scripts/vm-test.sh" sid "$(dirname "$0")/guest-mm-selftests.sh" 2
