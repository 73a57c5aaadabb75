#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/vm-matrix.sh, with a script standing in for vm-test.sh: every
# row runs with its kernel, arch, vCPUs, CPU model and environment; the
# results are numbered on and named by their row; ROWS selects rows; a
# skipped kernel is a skip; a row that fails, or exits non-zero without
# saying why, fails the run; under REQUIRE_KERNELS so does a missing kernel.
set -uo pipefail
# The caller's selections (CI exports REQUIRE_KERNELS) are not this test's.
unset REQUIRE_KERNELS ROWS ROW_ENV VM_CPU CYCLES
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/fake" <<'FAKE'
#!/bin/sh
echo "# args $* cpu=${VM_CPU:-none} cycles=${CYCLES:-none} guest_env=$GUEST_ENV"
case $1 in
skip) echo "1..0 # SKIP no skip kernel" ;;
bad) echo "ok 1 - fine"; echo "not ok 2 - broken"; echo "1..2"; exit 1 ;;
silent) exit 3 ;;
*) echo "ok 1 - first"; echo "ok 2 - second"; echo "1..2" ;;
esac
FAKE
chmod +x "$tmp/fake"
cat >"$tmp/table" <<'TABLE'
# kernel arch vcpus cpu test env
6.1   x86    2  -           core
6.1   arm64  2  cortex-a57  core-arm64
skip  x86    4  -           stale  CYCLES=8
TABLE
run() { VM_TEST="$tmp/fake" "$top/scripts/vm-matrix.sh" "$tmp/table"; }

n=0 fail=0
t() {	# t DESCRIPTION COMMAND...
	local d=$1
	shift
	n=$((n + 1))
	if "$@"; then echo "ok $n - $d"; else echo "not ok $n - $d"; fail=1; fi
}
out=$(run); rc=$?
t "a passing table passes" test $rc = 0
t "the results are numbered on, named by row" \
	sh -c 'echo "$1" | grep -qx "ok 4 - \[6.1 arm64 2cpu cortex-a57 core-arm64\] second"' - "$out"
t "each row gets its kernel (arch-suffixed), test and vCPUs" \
	sh -c 'echo "$1" | grep -q "^# args 6.1-arm64 core-arm64 2 cpu=cortex-a57"' - "$out"
t "a row's environment reaches the runner and the guest" \
	sh -c 'echo "$1" | grep -q "^# args skip stale 4 cpu=none cycles=8 guest_env=CYCLES=8"' - "$out"
t "a skipped kernel is one skip" sh -c 'echo "$1" | grep -qx "ok 5 - \[skip x86 4cpu stale\] # SKIP no skip kernel"' - "$out"
t "the plan counts every result" sh -c 'echo "$1" | grep -qx "1\.\.5"' - "$out"
out=$(REQUIRE_KERNELS=1 run); rc=$?
t "under REQUIRE_KERNELS a missing kernel fails" \
	sh -c '[ $1 != 0 ] && echo "$2" | grep -q "^not ok 5 - \[skip x86 4cpu stale\] no skip kernel"' - $rc "$out"
out=$(ROWS='arm64' run)
t "ROWS selects rows" sh -c 'echo "$1" | grep -qx "1\.\.2" && ! echo "$1" | grep -q "x86"' - "$out"
echo "bad x86 2 - core" >>"$tmp/table"
out=$(run); rc=$?
t "a failing result fails the run" sh -c '[ $1 != 0 ] && echo "$2" | grep -qx "not ok 7 - \[bad x86 2cpu core\] broken"' - $rc "$out"
sed -i '$d' "$tmp/table"
echo "silent x86 2 - core" >>"$tmp/table"
out=$(run); rc=$?
t "a row that exits non-zero without a result fails the run" \
	sh -c '[ $1 != 0 ] && echo "$2" | grep -qx "not ok 6 - \[silent x86 2cpu core\] vm-test.sh exited 3"' - $rc "$out"
echo "1..$n"
exit $fail
