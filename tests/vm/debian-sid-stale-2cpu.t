#!/bin/sh
# The stale-TLB detector on Debian sid's newest kernel, 2 vCPUs.
# (7.x and on: scripts/sid-root.sh's debootstrap root, made by make deps.)
exec "$(dirname "$0")/../../scripts/vm-test.sh" sid "$(dirname "$0")/guest-stale.sh" 2
