#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What building and testing tlbpath for arm64 needs on a Debian 12 amd64
# host: the cross compiler and QEMU from the host's archive, and, unpacked
# under $ARM64_CACHE (never installed), Debian's arm64 kernels with their
# headers and a static busybox for the guest, one for each amd64 kernel the
# harness has (scripts/vmlib-arm64.sh):
#
#   6.1, 6.12  bookworm's and bookworm-backports' arm64 build of the same
#              ABI as the host's installed amd64 kernel, so the host's own
#              linux-kbuild of that version builds modules for it;
#   sid        the arm64 build of the sid root's kernel (scripts/sid-root.sh,
#              run first by install-deps.sh): its headers are unpacked into
#              that root, whose linux-kbuild and a cross gcc of the version
#              the headers ask for (installed there) build modules in it.
#
# apt reaches arm64 packages through the sources already configured: once
# arm64 is a foreign architecture, every source without an Architectures
# field serves it.
set -euo pipefail
. "$(dirname "$0")/vmlib.sh"
. "$(dirname "$0")/mirror.sh"

[ "$(id -u)" = 0 ] || { echo "install-arm64: must run as root" >&2; exit 1; }
export DEBIAN_FRONTEND=noninteractive
apt_opts=(-o DPkg::Lock::Timeout=600 -qq)

if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	dpkg --add-architecture arm64
	apt-get "${apt_opts[@]}" update
fi

pkgs=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-system-arm)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "install-arm64: installing ${missing[*]}"
	apt-get "${apt_opts[@]}" install -y --no-install-recommends "${missing[@]}" >/dev/null
fi

# unpack ROOT DEB...: the headers and busybox whole; of a kernel image or
# modules package only vmlinuz and the guest's two virtio drivers
# (uncompressed: busybox's insmod takes plain .ko files).  QEMU's -kernel
# wants a plain Image; Debian's vmlinuz may be gzipped.
unpack() {
	local root=$1 deb img
	shift
	mkdir -p "$root"
	for deb; do
		case $(basename "$deb") in
		linux-image-*|linux-binary-*|linux-modules-*)
			dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$root" --wildcards \
				'*vmlinuz*' '*/virtio_mmio.ko*' '*/virtio_console.ko*' 2>/dev/null || true ;;
		*)
			dpkg-deb -x "$deb" "$root" ;;
		esac
	done
	find "$root" -name 'virtio_*.ko.xz' -exec unxz -f {} +
	img=$(find "$root" -name 'vmlinuz*' -type f | head -n1)
	[ -n "$img" ] || { echo "install-arm64: no vmlinuz in $*" >&2; return 1; }
	if gzip -t "$img" 2>/dev/null; then zcat "$img" >"$root/Image"; else cp "$img" "$root/Image"; fi
}

# host_download DIR PKG...: PKG... from the host's apt into DIR (made).
host_download() {
	local dir=$1
	shift
	mkdir -p "$dir"
	chown _apt "$dir" 2>/dev/null || true	# apt's download user
	(cd "$dir" && apt-get "${apt_opts[@]}" download "$@")
}

# 6.1 and 6.12: from the host's apt.
for series in 6.1 6.12; do
	abi=$(arm64_abi "$series") ||
		{ echo "install-arm64: no Debian $series amd64 kernel with headers (run install-deps first)" >&2; exit 1; }
	root=$(arm64_root "$abi")
	[ -e "$root/stamp" ] && continue
	rm -rf "$root" "$root.debs"
	host_download "$root.debs" "linux-image-$abi-arm64-unsigned:arm64" \
		"linux-headers-$abi-arm64:arm64" "linux-headers-$abi-common" "busybox-static:arm64"
	unpack "$root" "$root.debs"/*.deb
	rm -rf "$root.debs"
	# The headers' scripts/ and tools/ point at linux-kbuild-<version>,
	# whose arm64 binaries cannot run here: point them at the host's
	# package of the same version, which the amd64 headers use.
	kbuild=$(dirname "$(readlink -f "/usr/src/linux-headers-$abi-amd64/scripts")")
	hdr="$root/usr/src/linux-headers-$abi-arm64"
	for l in scripts tools; do
		[ -L "$hdr/$l" ] || continue
		ln -sfn "$kbuild/$l" "$hdr/$l"
	done
	touch "$root/stamp"
done

# sid: the arm64 build of the sid root's kernel.
abi=$(arm64_abi sid) || { echo "install-arm64: no sid root kernel (run sid-root.sh first)" >&2; exit 1; }
root=$(arm64_root "$abi")
[ -e "$root/stamp" ] && exit 0
log=$root.log
if ! in_root "$SID_ROOT" dpkg --print-foreign-architectures | grep -qx arm64; then
	in_root "$SID_ROOT" dpkg --add-architecture arm64
	# sid-root.sh's own update (it knows what to do when the mirror's sid
	# Release has expired); the kernel it holds stays unless sid moved on.
	TLBPATH_SID_REFRESH_MIN=0 "$(dirname "$0")/sid-root.sh" >/dev/null
	abi=$(arm64_abi sid)
	root=$(arm64_root "$abi")
fi
gcc=$(sed -n 's/^CC = .*gcc-\([0-9]\+\)$/\1/p' "$SID_ROOT/usr/src/linux-headers-$abi-amd64/.kernelvariables")
[ -n "$gcc" ] || { echo "install-arm64: which gcc do sid's $abi headers want?" >&2; exit 1; }
echo "install-arm64: sid $abi-arm64, with gcc-$gcc-aarch64-linux-gnu in the sid root"
in_root "$SID_ROOT" apt-get "${apt_opts[@]}" install -y "gcc-$gcc-aarch64-linux-gnu" >"$log" 2>&1 ||
	{ tail -n 20 "$log" >&2; exit 1; }
dl=/var/tmp/tlbpath-arm64
rm -rf "$SID_ROOT$dl" "$root" "$root.debs"
mkdir -p "$SID_ROOT$dl"
in_root "$SID_ROOT" chown _apt "$dl" 2>/dev/null || true
in_root "$SID_ROOT" sh -c "cd $dl && apt-get download -qq linux-binary-$abi-arm64:arm64 \
	linux-modules-$abi-arm64:arm64 linux-headers-$abi-arm64:arm64" >>"$log" 2>&1 ||
	{ tail -n 20 "$log" >&2; exit 1; }
host_download "$root.debs" "busybox-static:arm64"
unpack "$root" "$SID_ROOT$dl"/linux-binary-*.deb "$SID_ROOT$dl"/linux-modules-*.deb "$root.debs"/*.deb
rm -rf "$root.debs"
# The headers go into the sid root, where their relative scripts/ link
# finds the root's own linux-kbuild; an older kernel's go.
for h in "$SID_ROOT"/usr/src/linux-headers-*-arm64; do
	[ -d "$h" ] && [ "$h" != "$SID_ROOT/usr/src/linux-headers-$abi-arm64" ] || continue
	rm -rf "$h" "$SID_ROOT/lib/modules/$(basename "${h#*linux-headers-}")"
done
dpkg-deb -x "$SID_ROOT$dl"/linux-headers-*.deb "$SID_ROOT"
mkdir -p "$SID_ROOT/lib/modules/$abi-arm64"
ln -sfn "../../../src/linux-headers-$abi-arm64" "$SID_ROOT/lib/modules/$abi-arm64/build"
rm -rf "$SID_ROOT$dl"
touch "$root/stamp"
