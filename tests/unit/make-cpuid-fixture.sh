#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make-cpuid-fixture.sh DUMP CPU... > FIXTURE
#
# Keep, from a `cpuid -r` dump, the given CPUs and only the leaves the
# geometry parser reads (0, 1, 2, 0x18, 0x80000000, 0x80000005/6/19), so
# the pinned cases run without ../shared/cpuid and stay small.
set -euo pipefail
dump=$1
shift
awk -v cpus=" $* " '
	/^ *CPU( [0-9]+)?:/ {
		n = $0; sub(/^ *CPU */, "", n); sub(/:.*/, "", n); if (n == "") n = 0
		keep = index(cpus, " " n " ") > 0
		if (keep) print "CPU " n ":"
		next
	}
	keep && $1 ~ /^0x(00000000|00000001|00000002|00000018|80000000|80000005|80000006|80000019)$/
' "$dump"
