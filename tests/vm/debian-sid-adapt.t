#!/bin/sh
# The adaptive default on sid's newest kernel (7.x).
exec "$(dirname "$0")/../../scripts/vm-test.sh" sid "$(dirname "$0")/guest-adapt.sh" 2
