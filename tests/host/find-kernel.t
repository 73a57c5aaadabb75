#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The harness picks kernels by series and flavour: with Debian's generic,
# PREEMPT_RT and cloud kernels installed side by side (a fake root,
# TLBPATH_HOST_ROOT, and a fake arm64 cache), each name finds its own
# kernel, never the newest file that matches, and make arm64 builds for
# the arm64 kernel of the generic one's ABI.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
fake=$(mktemp -d)
trap 'rm -rf "$fake"' EXIT

kernel() {	# kernel ROOT RELEASE [noheaders]
	mkdir -p "$1/boot"
	: >"$1/boot/vmlinuz-$2"
	[ "${3:-}" = noheaders ] || mkdir -p "$1/lib/modules/$2/build"
}
for k in 6.1.0-56-amd64 6.1.0-57-amd64 6.1.0-57-rt-amd64 6.1.0-57-cloud-amd64 \
	 6.12.95+deb12-amd64 6.12.95+deb12-rt-amd64 6.12.95+deb12-cloud-amd64; do
	kernel "$fake/host" "$k"
done
# Newer, but without headers: never picked.
kernel "$fake/host" 6.1.0-58-amd64 noheaders
kernel "$fake/host" 6.1.0-59-rt-amd64 noheaders
kernel "$fake/sid" 7.2.13+deb14-amd64
kernel "$fake/sid" 7.2.13+deb14-rt-amd64
kernel "$fake/debug" 6.1.192-tlbpath-debug
for abi in 6.1.0-57 6.1.0-57-rt 6.12.95+deb12; do
	mkdir -p "$fake/arm64/$abi/usr/src/linux-headers-$abi-arm64"
	: >"$fake/arm64/$abi/stamp"
done

export TLBPATH_HOST_ROOT=$fake/host TLBPATH_SID_ROOT=$fake/sid \
	TLBPATH_DEBUG_ROOT=$fake/debug ARM64_CACHE=$fake/arm64
n=0 fail=0
is() {	# is NAME WANT
	local got
	got=$(bash -c '. "$1/scripts/vmlib.sh" && find_kernel "$2"' - "$top" "$1")
	n=$((n + 1))
	if [ "$got" = "$2" ]; then
		echo "ok $n - find_kernel $1: ${2:-nothing}"
	else
		echo "not ok $n - find_kernel $1: ${2:-nothing} (got '$got')"
		fail=1
	fi
}
is 6.1 6.1.0-57-amd64
is 6.1-rt 6.1.0-57-rt-amd64
is 6.1-cloud 6.1.0-57-cloud-amd64
is 6.12 6.12.95+deb12-amd64
is 6.12-rt 6.12.95+deb12-rt-amd64
is 6.12-cloud 6.12.95+deb12-cloud-amd64
is 6.2 ""
is 6.1-nosuch ""
is sid 7.2.13+deb14-amd64
is debug 6.1.192-tlbpath-debug
is 6.1-arm64 6.1.0-57-arm64
is 6.12-arm64 6.12.95+deb12-arm64
is sid-arm64 ""

# make arm64 follows the same pick.
n=$((n + 1))
dir=$(make -s -n -C "$top" arm64 2>&1 | sed -n 's/.*make -C \([^ ]*\) .*/\1/p' | head -n1)
if [ "$dir" = "$fake/arm64/6.1.0-57/usr/src/linux-headers-6.1.0-57-arm64" ]; then
	echo "ok $n - make arm64 builds against the generic 6.1 ABI's arm64 headers"
else
	echo "not ok $n - make arm64 builds against the generic 6.1 ABI's arm64 headers (got '$dir')"
	fail=1
fi
echo "1..$n"
exit $fail
