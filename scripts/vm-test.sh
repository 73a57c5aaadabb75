#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm-test.sh KERNEL TEST [VCPUS]: one row of a test matrix (vm-matrix.sh).
#
# Build tlbpath with W=1 for the kernel find_kernel names KERNEL ("6.1",
# "6.1-rt", "sid-arm64", "debug", ...), boot it in QEMU (TCG) with a busybox
# initramfs, run the guest script guest-TEST.sh (tests/vm, tests/long or
# tests/debug; or the script TEST names by its path) there and print TAP: the guest's results, then whether the
# guest finished and whether its kernel log is free of bug reports.
# VM_CPU picks QEMU's CPU model; NEEDS="stress-ng perf mm-selftests" lays
# those over the guest's root; MUTANTS=a,b adds tlbpath built with Kbuild's
# TLBP_MUTANT=a, =b as /tlbpath-a.ko ...; GUEST_ENV="VAR=value ..." is set in
# the guest.
set -uo pipefail
. "$(dirname "$0")/vmlib.sh"

kernel=$1 test=$2 smp=${3:-2}
script=""
case $test in */*) script=$(realpath "$test") test=$(basename "${test%.sh}") ;; esac
for d in vm long debug; do
	[ -z "$script" ] || break
	[ -e "$TOP/tests/$d/guest-$test.sh" ] && script=$TOP/tests/$d/guest-$test.sh && break
done
[ -n "$script" ] || die "vm-test: no guest script guest-$test.sh in tests/{vm,long,debug}"
kver=$(find_kernel "$kernel")
if [ -z "$kver" ]; then
	echo "1..0 # SKIP no $kernel kernel with headers installed (make deps)"
	exit 0
fi

work="$BUILD/$kver/$test-smp$smp${VM_CPU:+-${VM_CPU%%,*}}"
mkdir -p "$work"
echo "# kernel $kver, $test, $smp vCPUs, QEMU TCG -cpu ${VM_CPU:-$(default_cpu "$(arch_of "$kver")")}"

ko=$(build_module "$kver") || { echo "1..1"; echo "not ok 1 - build tlbpath for $kver with W=1"; exit 1; }
TLBPATH_EXTRA_KO=$(build_test_modules "$kver") ||
	{ echo "1..1"; echo "not ok 1 - build the test modules for $kver with W=1"; exit 1; }
# MUTANTS=a,b: tlbpath also built with TLBP_MUTANT=a, =b (tlbpath-a.ko ...).
for m in $(echo "${MUTANTS:-}" | tr ',' ' '); do
	mko=$(build_mutant "$kver" "$m") ||
		{ echo "1..1"; echo "not ok 1 - build the $m mutant of tlbpath for $kver with W=1"; exit 1; }
	TLBPATH_EXTRA_KO="$TLBPATH_EXTRA_KO $mko"
done
export TLBPATH_EXTRA_KO
extra="$work/extra-root"
rm -rf "$extra"
mkdir -p "$extra"
for need in ${NEEDS:-}; do
	case $need in
	mm-selftests)
		mm_selftests_root "$BUILD/mm-selftests" && cp -r "$BUILD/mm-selftests/." "$extra/" ;;
	*)
		binary_root "$extra" "$need" ;;
	esac || { echo "1..1"; echo "not ok 1 - pack $need for the guest"; exit 1; }
done
echo "${GUEST_ENV:-}" | tr ' ' '\n' | sed -n 's/^\([A-Z_][A-Z0-9_]*=[^;&|$`]*\)$/export \1/p' >"$extra/guest.env"
export TLBPATH_EXTRA_ROOT="$extra"
make_initramfs "$work/initrd.gz" "$ko" "$script" ||
	{ echo "1..1"; echo "not ok 1 - pack the initramfs"; exit 1; }
start=$(date +%s)
boot "$kver" "$work/initrd.gz" "$work/console.log" "$work/output.log" "$smp"
qemu_rc=$?
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
	echo "# $(qemu_ended "$qemu_rc"); the console's last lines:"
	tail -n 30 "$work/console.log" | sed 's/^/# console: /'
fi
n=$((n + 1))
if bad=$(guest_log_bad "$work/console.log"); then
	echo "not ok $n - guest kernel log has no bug report (BUG/WARNING/Oops/KASAN/lockdep/RCU/stall)"
	echo "$bad" | head -n 20 | sed 's/^/# console: /'
	fail=$((fail + 1))
else
	echo "ok $n - guest kernel log has no bug report (BUG/WARNING/Oops/KASAN/lockdep/RCU/stall)"
fi
echo "1..$n"
[ $fail = 0 ]
