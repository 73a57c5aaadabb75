#!/bin/sh
# How tlbpath finds the kernel's ceiling, on Debian sid's newest kernel.
# (7.x and on: scripts/sid-root.sh's debootstrap root, made by make deps.)
exec "$(dirname "$0")/../../scripts/vm-test.sh" sid "$(dirname "$0")/guest-resolve.sh" 2
