#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# DKMS: "dkms add" of this tree and "dkms build tlbpath/<ver> -k <kernel>"
# for every installed Debian headers package, in throw-away DKMS trees so
# the machine's own /var/lib/dkms is left alone.  Building needs no module
# loading, so this runs on the host.
set -uo pipefail
. "$(dirname "$0")/../../scripts/vmlib.sh"

ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$TOP/dkms.conf")
mapfile -t kernels < <(installed_kernels)
if ! command -v dkms >/dev/null || [ ${#kernels[@]} = 0 ]; then
	echo "1..0 # SKIP dkms or kernel headers missing (make deps)"
	exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src="$tmp/src/tlbpath-$ver"
mkdir -p "$src" "$tmp/tree"
git -C "$TOP" ls-files -z | (cd "$TOP" && xargs -0 cp --parents -t "$src")
opts=(--sourcetree "$tmp/src" --dkmstree "$tmp/tree")

echo "1..$((1 + 3 * ${#kernels[@]}))"
n=1
if dkms add "$src" "${opts[@]}" >"$tmp/add.log" 2>&1; then
	echo "ok $n - dkms add ."
else
	echo "not ok $n - dkms add ."; sed 's/^/# /' "$tmp/add.log"
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
