#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# DKMS: "dkms add" of the unpacked release tarball (make dist, no .git)
# and "dkms build tlbpath/<ver> -k <kernel>" for every installed Debian
# headers package, in throw-away DKMS trees so the machine's own
# /var/lib/dkms is left alone.  Building needs no module loading, so this
# runs on the host.  sid's kernel: tests/host/dkms-sid.t.
set -uo pipefail
. "$(dirname "$0")/../../scripts/vmlib.sh"
. "$(dirname "$0")/pkg-lib.sh"

ver=$TLBPATH_VERSION
mapfile -t kernels < <(installed_kernels)
if ! command -v dkms >/dev/null || [ ${#kernels[@]} = 0 ]; then
	echo "1..0 # SKIP dkms or kernel headers missing (make deps)"
	exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tree"
src=$(unpacked_dist "$tmp/src") || { echo "1..1"; echo "not ok 1 - make dist"; exit 1; }
opts=(--sourcetree "$tmp/src" --dkmstree "$tmp/tree")

echo "1..$((1 + 3 * ${#kernels[@]}))"
n=1
if dkms add "$src" "${opts[@]}" >"$tmp/add.log" 2>&1; then
	echo "ok $n - dkms add of the unpacked tarball"
else
	echo "not ok $n - dkms add of the unpacked tarball"; sed 's/^/# /' "$tmp/add.log"
fi
for k in "${kernels[@]}"; do
	n=$((n + 1))
	if dkms build "tlbpath/$ver" -k "$k" "${opts[@]}" >"$tmp/build-$k.log" 2>&1; then
		echo "ok $n - dkms build tlbpath/$ver -k $k"
	else
		echo "not ok $n - dkms build tlbpath/$ver -k $k"
		tail -n 20 "$tmp/build-$k.log" | sed 's/^/# /'
	fi
	ko=$(find "$tmp/tree/tlbpath/$ver/$k" -name 'tlbpath.ko*' 2>/dev/null | head -n1)
	n=$((n + 1))
	if [ -n "$ko" ]; then echo "ok $n - $k: module built ($(basename "$ko"))"; else echo "not ok $n - $k: module built"; fi
	n=$((n + 1))
	vm=$(modinfo -F vermagic "$ko" 2>/dev/null | cut -d' ' -f1)
	mv=$(modinfo -F version "$ko" 2>/dev/null)
	if [ "$vm" = "$k" ] && [ "$mv" = "$ver" ]; then
		echo "ok $n - $k: vermagic $vm, version $mv"
	else
		echo "not ok $n - $k: vermagic '$vm' (want $k), version '$mv' (want $ver)"
	fi
done
