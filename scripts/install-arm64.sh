#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What building and testing tlbpath for arm64 needs on a Debian 12 amd64
# host: the cross compiler and QEMU from the host's archive, and, unpacked
# under $ARM64_CACHE (never installed), Debian's arm64 6.1 kernel, its
# headers and a static busybox for the guest.  The kernel is the arm64
# build of the same ABI as the host's installed 6.1 kernel, so the host's
# own linux-kbuild-6.1 (amd64 binaries) builds modules for it.
#
# apt reaches arm64 packages through the sources already configured: once
# arm64 is a foreign architecture, every source without an Architectures
# field serves it.
set -euo pipefail
. "$(dirname "$0")/vmlib-arm64.sh"

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

abi=$(arm64_abi)
[ -n "$abi" ] || { echo "install-arm64: no Debian 6.1 amd64 kernel with headers (run install-deps first)" >&2; exit 1; }
root=$(arm64_root "$abi")
[ -e "$root/stamp" ] && exit 0

rm -rf "$root" "$root.debs"
mkdir -p "$root.debs"
chown _apt "$root.debs" 2>/dev/null || true
(cd "$root.debs" && apt-get "${apt_opts[@]}" download \
	"linux-image-$abi-arm64-unsigned:arm64" "linux-headers-$abi-arm64:arm64" \
	"linux-headers-$abi-common" "busybox-static:arm64")
mkdir -p "$root"
for deb in "$root.debs"/*.deb; do
	dpkg-deb -x "$deb" "$root"
done
rm -rf "$root.debs"

# The headers' scripts/ and tools/ point at linux-kbuild-6.1, whose arm64
# binaries cannot run here: point them at the host's package of the same
# version instead.
hdr="$root/usr/src/linux-headers-$abi-arm64"
for l in scripts tools; do
	[ -L "$hdr/$l" ] || continue
	ln -sfn "/usr/lib/linux-kbuild-6.1/$l" "$hdr/$l"
done
# QEMU's -kernel wants a plain Image; Debian's vmlinuz may be gzipped.
img="$root/boot/vmlinuz-$abi-arm64"
if gzip -t "$img" 2>/dev/null; then zcat "$img" >"$root/Image"; else cp "$img" "$root/Image"; fi
touch "$root/stamp"
