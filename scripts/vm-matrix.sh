#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm-matrix.sh TABLE: run each row of a test matrix (tests/vm/matrix,
# tests/long/matrix, tests/debug/matrix) with vm-test.sh, one after the
# other, as one TAP stream: each row's results numbered on, named by
# their row.  A row is
#
#   KERNEL  ARCH  VCPUS  CPU  TEST  [VAR=value...]
#
# KERNEL as find_kernel takes it ("6.1", "6.1-rt", "sid", "debug"), ARCH
# x86 or arm64, CPU QEMU's model ("-": the arch's default), TEST the guest
# script guest-TEST.sh, then the row's environment (NEEDS, VM_TIMEOUT...),
# which the guest script sees too (CYCLES...).
# ROWS=regex runs only the rows it matches (e.g. ROWS='^6.1 .* stale').
# ROW_ENV="VAR=value..." adds to every row's environment.  REQUIRE_KERNELS=1
# turns a row whose kernel is not installed from a skip into a failure.  VM_TEST
# replaces vm-test.sh (tests/host/vm-matrix.t).
set -uo pipefail
. "$(dirname "$0")/vmlib.sh"

table=$1
n=0 fail=0 rows=0
while read -r kernel arch smp cpu test env; do
	case $kernel in ""|"#"*) continue ;; esac
	env="$env${ROW_ENV:+ $ROW_ENV}"
	row="$kernel $arch $smp $cpu $test${env:+ $env}"
	[[ $row =~ ${ROWS:-} ]] || continue
	rows=$((rows + 1))
	spec=$kernel
	[ "$arch" = x86 ] || spec=$kernel-$arch
	[ "$cpu" = - ] && cpu=""
	name="$kernel $arch ${smp}cpu${cpu:+ $cpu} $test"
	echo "# row: $row"
	out=$(mktemp)
	env VM_CPU="$cpu" GUEST_ENV="$env" $env "${VM_TEST:-$TOP/scripts/vm-test.sh}" "$spec" "$test" "$smp" \
		>"$out" 2>&1 </dev/null
	rc=$? rowfail=0
	while IFS= read -r line; do
		case $line in
		"ok "[0-9]*|"not ok "[0-9]*)
			n=$((n + 1))
			case $line in not*) rowfail=$((rowfail + 1)) ;; esac
			echo "$line" | sed -E "s/^(not )?ok [0-9]+ (- )?/\\1ok $n - [$name] /" ;;
		"1..0 "*)
			n=$((n + 1))
			# CI installed every kernel: a missing one is a failure there.
			if [ -n "${REQUIRE_KERNELS:-}" ]; then
				rowfail=1
				echo "not ok $n - [$name] ${line#1..0 # SKIP } (REQUIRE_KERNELS)"
			else
				echo "ok $n - [$name] # SKIP ${line#1..0 # SKIP }"
			fi ;;
		"1.."*) ;;
		*) echo "$line" ;;
		esac
	done <"$out"
	rm -f "$out"
	# A row that failed without saying which test did still fails.
	if [ $rc != 0 ] && [ $rowfail = 0 ]; then
		n=$((n + 1)) rowfail=1
		echo "not ok $n - [$name] vm-test.sh exited $rc"
	fi
	fail=$((fail + rowfail))
done <"$table"
echo "1..$n"
echo "# $rows rows of $table, $fail failed tests"
[ $fail = 0 ] && [ $n -gt 0 ]
