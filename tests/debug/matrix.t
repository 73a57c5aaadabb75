#!/bin/sh
# The debug tier: every row of tests/debug/matrix, in the debug kernel
# (built first if this machine has none: scripts/debug-kernel.sh).
"$(dirname "$0")/../../scripts/debug-kernel.sh" >/dev/null ||
	{ echo "1..1"; echo "not ok 1 - build the debug kernel (scripts/debug-kernel.sh)"; exit 1; }
exec "$(dirname "$0")/../../scripts/vm-matrix.sh" "$(dirname "$0")/matrix"
