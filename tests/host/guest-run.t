#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vmlib.sh's guest_run: a guest kernel that never starts /init is booted
# again, up to VM_BOOT_TRIES times; one that started /init is left alone.
# A shell script stands in for QEMU.
set -uo pipefail
. "$(dirname "$0")/../../scripts/vmlib.sh"

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# fake-qemu CONSOLE HANG_TRIES OUTPUT [DIE_TRIES [LATE]]: the first
# HANG_TRIES boots stop before /init; the next DIE_TRIES start it and die
# at once (with LATE, after a first result); later ones start it, write a
# result and power off.
cat >"$dir/fake-qemu" <<'FAKE'
#!/bin/bash
n=$(( $(cat "$0.count" 2>/dev/null || echo 0) + 1 ))
echo $n >"$0.count"
echo "[    0.9] HugeTLB: registered" >>"$1"
if [ "$n" -le "$2" ]; then
	echo $$ >>"$0.pids"
	exec sleep 60
fi
echo "[    2.1] Run /init as init process" >>"$1"
if [ "$n" -le $(( $2 + ${4:-0} )) ]; then
	[ -z "${5:-}" ] || echo "ok - a first result" >>"$3"
	echo "[    2.5] Kernel panic - not syncing: Attempted to kill init! exitcode=0x00000100" >>"$1"
	exit 0
fi
sleep 2
echo "tlbpath-guest: done" >>"$3"
FAKE
chmod +x "$dir/fake-qemu"

run() {	# run HANG_TRIES [DIE_TRIES [LATE]]: guest_run's status, stdout and boots
	rm -f "$dir/fake-qemu.count"
	out=$(VM_BOOT_TIMEOUT=2 VM_BOOT_TRIES=3 VM_TIMEOUT=20 \
		guest_run "$dir/console" "$dir/output" "$dir/fake-qemu" "$dir/console" "$1" \
		"$dir/output" "${2:-0}" "${3:-}")
	rc=$?
	boots=$(cat "$dir/fake-qemu.count")
}

echo "1..10"
run 0
[ $rc = 0 ] && [ "$boots" = 1 ] && [ -z "$out" ] &&
	echo "ok 1 - a guest that starts /init boots once" ||
	echo "not ok 1 - a guest that starts /init boots once (rc $rc, $boots boots: $out)"
grep -q 'tlbpath-guest: done' "$dir/output" &&
	echo "ok 2 - its output is kept" || echo "not ok 2 - its output is kept"

run 2
[ $rc = 0 ] && [ "$boots" = 3 ] &&
	echo "ok 3 - a guest that hangs before /init twice is booted a third time" ||
	echo "not ok 3 - a guest that hangs before /init twice is booted a third time (rc $rc, $boots boots)"
[ "$(echo "$out" | grep -c '^# boot: the guest kernel did not start /init')" = 2 ] &&
	echo "ok 4 - each retry is said" || echo "not ok 4 - each retry is said: $out"
grep -q HugeTLB "$dir/console.hung1" && grep -q 'tlbpath-guest: done' "$dir/output" &&
	! grep -q HugeTLB "$dir/output" &&
	echo "ok 5 - the hung boot's log is kept, the last boot's output is whole" ||
	echo "not ok 5 - the hung boot's log is kept, the last boot's output is whole"

run 3
[ $rc != 0 ] && [ "$boots" = 3 ] && ! grep -q 'tlbpath-guest: done' "$dir/output" &&
	echo "ok 6 - three hangs in a row fail, after three boots" ||
	echo "not ok 6 - three hangs in a row fail, after three boots (rc $rc, $boots boots)"
alive=
for pid in $(cat "$dir/fake-qemu.pids"); do
	! kill -0 "$pid" 2>/dev/null || alive="$alive $pid"
done
[ -z "$alive" ] && [ "$(wc -l <"$dir/fake-qemu.pids")" = 5 ] &&
	echo "ok 7 - no hung guest is left running" ||
	echo "not ok 7 - no hung guest is left running:$alive"

run 0 1
[ $rc = 0 ] && [ "$boots" = 2 ] && grep -q 'tlbpath-guest: done' "$dir/output" &&
	grep -q "^# boot: the guest's /init died before its first result" <<<"$out" &&
	echo "ok 8 - an /init that dies before the first result is booted again, and said" ||
	echo "not ok 8 - an /init that dies before the first result is booted again (rc $rc, $boots boots: $out)"
run 0 1 late
[ "$boots" = 1 ] && [ -z "$out" ] && ! grep -q 'tlbpath-guest: done' "$dir/output" &&
	echo "ok 9 - one that dies after a result is not" ||
	echo "not ok 9 - one that dies after a result is not (rc $rc, $boots boots: $out)"

# A QEMU that dies of a signal after the guest started: vm-test.sh says how.
cat >"$dir/segv-qemu" <<'FAKE'
#!/bin/bash
echo "[    2.1] Run /init as init process" >>"$1"
echo "ok - a first result" >>"$2"
kill -SEGV $$
FAKE
chmod +x "$dir/segv-qemu"
guest_run "$dir/console" "$dir/output" "$dir/segv-qemu" "$dir/console" "$dir/output" 2>/dev/null
said=$(qemu_ended $?)
[ "$said" = "QEMU died of signal 11 (SEGV)" ] &&
	echo "ok 10 - a QEMU that dies of a signal is said to" ||
	echo "not ok 10 - a QEMU that dies of a signal is said to: $said"
