#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm-test.sh SERIES GUEST_SCRIPT [SMP]
#
# SERIES "6.1-arm64", "6.12-arm64", "sid-arm64": Debian's arm64 kernels (vmlib-arm64.sh).
# Build tlbpath for the newest installed Debian kernel of SERIES ("6.1",
# "6.12"), boot it in QEMU (TCG) with a busybox initramfs, run
# GUEST_SCRIPT there and print TAP: the guest's results, then whether the
# guest finished and whether its kernel log is free of BUG/WARNING/Oops.
set -uo pipefail
. "$(dirname "$0")/vmlib.sh"

series=$1 script=$2 smp=${3:-2}
# "<series>-arm64": Debian's arm64 kernel of that series under qemu-system-aarch64.
case $series in
*-arm64) . "$(dirname "$0")/vmlib-arm64.sh" && use_arm64 "${series%-arm64}" ;;
esac
kver=$(find_kernel "$series")
if [ -z "$kver" ]; then
	echo "1..0 # SKIP no Debian $series kernel with headers installed (make deps)"
	exit 0
fi

name=$(basename "${script%.sh}")
work="$BUILD/$kver/$name-smp$smp${VM_CPU:+-${VM_CPU%%,*}}"
mkdir -p "$work"
echo "# kernel $kver, $name, $smp vCPUs, QEMU TCG -cpu max"

ko=$(build_module "$kver") || { echo "1..1"; echo "not ok 1 - build tlbpath for $kver with W=1"; exit 1; }
TLBPATH_EXTRA_KO=$(build_test_modules "$kver") ||
	{ echo "1..1"; echo "not ok 1 - build the test modules for $kver with W=1"; exit 1; }
export TLBPATH_EXTRA_KO
# A guest script that says "# needs: stress-ng", "perf" or "mm-selftests"
# gets them, laid over its root.
extra="$work/extra-root"
rm -rf "$extra"
mkdir -p "$extra"
for prog in stress-ng perf; do
	if grep -q "^# needs: .*\b$prog\b" "$script"; then
		binary_root "$extra" $prog || { echo "1..1"; echo "not ok 1 - pack $prog"; exit 1; }
	fi
done
if grep -q '^# needs: mm-selftests' "$script"; then
	mm_selftests_root "$BUILD/mm-selftests" && cp -r "$BUILD/mm-selftests/." "$extra/" ||
		{ echo "1..1"; echo "not ok 1 - build the kernel's mm selftests"; exit 1; }
fi
export TLBPATH_EXTRA_ROOT="$extra"
make_initramfs "$work/initrd.gz" "$ko" "$script" ||
	{ echo "1..1"; echo "not ok 1 - pack the initramfs"; exit 1; }
start=$(date +%s)
boot "$kver" "$work/initrd.gz" "$work/console.log" "$work/output.log" "$smp"
echo "# guest ran $(( $(date +%s) - start )) s; logs in $work"

n=0 fail=0
while IFS= read -r line; do
	line=${line%$'\r'}
	case $line in
	"ok - "*|"not ok - "*)
		n=$((n + 1))
		case $line in not*) fail=$((fail + 1)) ;; esac
		echo "${line/ok - /ok $n - }" ;;
	"#"*) echo "$line" ;;
	*) echo "# guest: $line" ;;
	esac
done < <(grep -v '^tlbpath-guest: done' "$work/output.log")

n=$((n + 1))
if grep -q '^tlbpath-guest: done' "$work/output.log"; then
	echo "ok $n - guest ran to the end"
else
	echo "not ok $n - guest ran to the end"; fail=$((fail + 1))
	tail -n 30 "$work/console.log" | sed 's/^/# console: /'
fi
n=$((n + 1))
if bad=$(guest_log_bad "$work/console.log"); then
	echo "not ok $n - guest kernel log has no BUG/WARNING/Oops/Call Trace/lockup/stall"
	echo "$bad" | head -n 20 | sed 's/^/# console: /'
	fail=$((fail + 1))
else
	echo "ok $n - guest kernel log has no BUG/WARNING/Oops/Call Trace/lockup/stall"
fi
echo "1..$n"
[ $fail = 0 ]
