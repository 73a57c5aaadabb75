#!/bin/sh
# The hook's own cost at defaults, at most 1.03x the stock kernel per call
# on every kernel (scripts/bench-overhead.sh, its short version).
QUICK=1 exec "$(dirname "$0")/../../scripts/bench-overhead.sh"
