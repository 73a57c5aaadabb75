#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The debug tier can fail: in the debug kernel, badhook (tests/debug/badhook,
# a test-only mutant) allocates with GFP_KERNEL in atomic context and leaks
# an allocation per load.  The kernel must report both, and the check every
# in-VM test ends with must fail on that log.  Then the fault sweep must
# fail on tlbpath built without its filters' anchor (TLBP_MUTANT=noanchor).
set -uo pipefail
. "$(dirname "$0")/../../scripts/vmlib.sh"

"$TOP/scripts/debug-kernel.sh" >/dev/null ||
	{ echo "1..1"; echo "not ok 1 - build the debug kernel (scripts/debug-kernel.sh)"; exit 1; }
out=$(VM_TIMEOUT=1200 VM_CPU=max,la57=off "$TOP/scripts/vm-test.sh" debug mutant 2)
echo "$out" | grep -v '^1\.\.' | sed 's/^\(not \)\?ok /# mutant run: &/'
log=$(echo "$out" | sed -n 's/^# guest ran .* logs in //p')/console.log
n=0 fail=0
t() {	# t DESCRIPTION COMMAND...: one TAP line
	local d=$1
	shift
	n=$((n + 1))
	if "$@"; then echo "ok $n - $d"; else echo "not ok $n - $d"; fail=1; fi
}
t "the mutant loaded in the debug kernel" \
	sh -c "echo \"\$1\" | grep -q '^ok [0-9]* - insmod badhook.ko bug=leak'" - "$out"
t "the kernel reports the GFP_KERNEL allocation in atomic context" \
	grep -q 'BUG: sleeping function called from invalid context' "$log"
t "kmemleak reports the lost allocation" sh -c "grep -q 'kmemleak: [0-9]* new suspected memory leak' '$log' &&
	echo \"\$1\" | grep -q '^ok [0-9]* - kmemleak lists the object badhook lost'" - "$out"
t "so the in-VM log check fails" \
	sh -c "echo \"\$1\" | grep -q '^not ok [0-9]* - guest kernel log has no bug report'" - "$out"

# And the fault sweep can: tlbpath built without its filters' anchor
# (src/ftrace.c) meets an ftrace filter left empty by an allocation
# failure, hooks every function, and the guest does not live to the end.
out=$(VM_TIMEOUT=1200 VM_CPU=max,la57=off MUTANTS=noanchor \
	GUEST_ENV="FAULT_ONLY=registration FAULT_KO=/tlbpath-noanchor.ko" \
	"$TOP/scripts/vm-test.sh" debug faults 2)
echo "$out" | grep -v '^1\.\.' | grep -v '^# console: ' | sed 's/^\(not \)\?ok /# noanchor run: &/'
t "the fault sweep fails on tlbpath without the filters' anchor" \
	sh -c "echo \"\$1\" | grep -q '^not ok '" - "$out"
echo "1..$n"
exit $fail
