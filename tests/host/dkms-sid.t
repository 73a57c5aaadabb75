#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# DKMS on sid's newest kernel, with sid's own dkms, compiler and make in
# the sid root (scripts/sid-root.sh, chroot): dkms add of the unpacked
# release tarball, dkms build and install for that kernel, then dkms
# remove, in throw-away DKMS trees inside the root.
set -uo pipefail
. "$(dirname "$0")/../../scripts/vmlib.sh"
. "$(dirname "$0")/pkg-lib.sh"

kver=$(find_kernel sid)
if [ -z "$kver" ] || [ ! -x "$SID_ROOT/usr/sbin/dkms" ]; then
	echo "1..0 # SKIP no sid root with a kernel and dkms (make deps)"
	exit 0
fi
ver=$TLBPATH_VERSION
rel=/var/tmp/tlbpath-dkms.$$
tmp=$SID_ROOT$rel
opts=(--sourcetree "$rel/src" --dkmstree "$rel/tree")
mod="$SID_ROOT/lib/modules/$kver/updates/dkms"
# in_sid COMMAND...: COMMAND in the sid root.
in_sid() { run_in_root "$SID_ROOT" "$@"; }
cleanup() {
	in_sid dkms remove "tlbpath/$ver" --all "${opts[@]}" >/dev/null 2>&1
	rm -f "$mod"/tlbpath.ko*
	rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$tmp/tree"
TAP_LOG=$tmp/log
unpacked_dist "$tmp/src" >/dev/null || { echo "1..1"; echo "not ok 1 - make dist"; exit 1; }

echo "# sid kernel $kver, $(in_sid dkms --version), $(in_sid gcc --version | head -n1)"
echo "1..6"
t "dkms add of the unpacked tarball" in_sid dkms add "$rel/src/tlbpath-$ver" "${opts[@]}"
t "dkms build tlbpath/$ver -k $kver" in_sid dkms build "tlbpath/$ver" -k "$kver" "${opts[@]}"
t "dkms install tlbpath/$ver -k $kver" in_sid dkms install "tlbpath/$ver" -k "$kver" "${opts[@]}"
t "dkms status: installed for $kver" \
	in_sid sh -c "dkms status tlbpath/$ver -k $kver ${opts[*]} | grep -q ': installed'"
ko=$(ls "$mod"/tlbpath.ko* 2>/dev/null | head -n1)
n=$((n + 1))
vm=$(modinfo -F vermagic "$ko" 2>/dev/null | cut -d' ' -f1)
mv=$(modinfo -F version "$ko" 2>/dev/null)
if [ -n "$ko" ] && [ "$vm" = "$kver" ] && [ "$mv" = "$ver" ]; then
	echo "ok $n - installed $(basename "$ko"): vermagic $vm, version $mv"
else
	echo "not ok $n - installed module: '${ko:-none}' vermagic '$vm' (want $kver), version '$mv' (want $ver)"
fi
t "dkms remove takes it out again" \
	in_sid sh -c "dkms remove tlbpath/$ver --all ${opts[*]} && ! ls /lib/modules/$kver/updates/dkms/tlbpath.ko* 2>/dev/null"
