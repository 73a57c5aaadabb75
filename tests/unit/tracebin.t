#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tlbsim's binary traces (bench/tlbsim/tracebin.c): the round trips and
# the refusals of tests/unit/test_tracebin.c, built by bench/tlbsim's
# Makefile.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)

if ! out=$(make -s -C "$top/bench/tlbsim" test all 2>&1); then
	echo "1..1"
	echo "not ok 1 - make -C bench/tlbsim test all"
	echo "$out" | sed 's/^/#   /'
	exit 1
fi
exec "$top/bench/tlbsim/build/test_tracebin"
