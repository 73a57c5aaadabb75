#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/tlbsim's unit tests (tests/unit/test_tlbsim.c: hand-computed
# cycle totals, CPU models from the pinned dumps, determinism), built by
# bench/tlbsim's own Makefile with tlbpath's src/geometry.c and src/policy.c.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)

if ! out=$(make -s -C "$top/bench/tlbsim" test 2>&1); then
	echo "1..1"
	echo "not ok 1 - make -C bench/tlbsim test"
	echo "$out" | sed 's/^/#   /'
	exit 1
fi
exec "$top/bench/tlbsim/build/test_tlbsim"
