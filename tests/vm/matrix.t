#!/bin/sh
# The in-VM tests: every row of tests/vm/matrix (ROWS=regex: some of them).
exec "$(dirname "$0")/../../scripts/vm-matrix.sh" "$(dirname "$0")/matrix"
