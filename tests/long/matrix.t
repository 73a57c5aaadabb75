#!/bin/sh
# The long tier: every row of tests/long/matrix.
exec "$(dirname "$0")/../../scripts/vm-matrix.sh" "$(dirname "$0")/matrix"
