#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what building and testing tlbpath needs on a Debian 12 host:
# the toolchain, QEMU, a static busybox, DKMS, lintian, promtool (in
# Debian's prometheus package), and Debian's distro kernels with their
# headers (bookworm's 6.1, generic, PREEMPT_RT and cloud, and
# bookworm-backports' 6.12),
# and a root of Debian's unstable suite holding its newest kernel (7.x).
#
# The backports suite is reached through the mirror this machine already
# uses: the URI is read from the configured apt sources, never written here.
set -euo pipefail

[ "$(id -u)" = 0 ] || { echo "install-deps: must run as root" >&2; exit 1; }

export DEBIAN_FRONTEND=noninteractive

. "$(dirname "$0")/mirror.sh"

bp=/etc/apt/sources.list.d/tlbpath-bookworm-backports.sources
if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
	uri=$(mirror_uri)
	[ -n "$uri" ] || { echo "install-deps: no Debian mirror configured in apt" >&2; exit 1; }
	cat > "$bp" <<SRC
Types: deb
URIs: $uri
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
fi

stamp=/var/lib/apt/periodic/tlbpath-update-stamp
if [ ! -e "$stamp" ] || [ -n "$(find "$stamp" -mmin +360)" ] || [ "$bp" -nt "$stamp" ]; then
	apt-get update -qq
	mkdir -p "$(dirname "$stamp")" && touch "$stamp"
fi

pkgs=(build-essential bc bison flex libelf-dev libssl-dev kmod cpio gzip
      qemu-system-x86 busybox-static dkms cpuid perl linux-source-6.1 xz-utils
      stress-ng gnuplot-nox dh-dkms debhelper dpkg-dev sparse linux-perf
      lintian prometheus man-db
      linux-image-amd64 linux-headers-amd64)

# Newest 6.12 image and headers from backports, by exact version.
bp_ver=$(apt-cache madison linux-image-amd64 | awk '/bookworm-backports/ {print $3; exit}')
if [ -n "$bp_ver" ]; then
	pkgs+=("linux-image-amd64=$bp_ver" "linux-headers-amd64=$bp_ver")
fi

missing=()
for p in "${pkgs[@]}"; do
	case $p in
	*=*) continue ;;
	esac
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done

install_meta() {
	# linux-image-amd64 is a metapackage: install the bookworm one for 6.1,
	# and the backports kernel by its real package name so both stay.
	local rel
	rel=$(apt-cache depends "linux-image-amd64=$1" 2>/dev/null | sed -n 's/.*Depends: \(linux-image-[0-9].*\)/\1/p' | head -n1)
	[ -n "$rel" ] && echo "$rel ${rel/image/headers}"
}

extra=()
want() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed' || extra+=("$1")
}
bookworm_ver=$(apt-cache madison linux-image-amd64 | awk '$6 !~ /backports/ {print $3; exit}')
for v in "$bookworm_ver" "$bp_ver"; do
	[ -n "$v" ] || continue
	read -r img hdr <<<"$(install_meta "$v")" || true
	[ -n "${img:-}" ] || continue
	want "$img"
	want "$hdr"
	# 6.1's PREEMPT_RT and cloud flavours, of the same ABI as its generic
	# kernel (tests/vm/matrix: 6.1-rt, 6.1-cloud).
	if [ "$v" = "$bookworm_ver" ]; then
		abi=${img#linux-image-}
		abi=${abi%-amd64}
		for f in rt cloud; do
			want "linux-image-$abi-$f-amd64-unsigned"
			want "linux-headers-$abi-$f-amd64"
		done
	fi
done

base=()
for p in "${missing[@]}"; do
	case $p in
	linux-image-amd64|linux-headers-amd64) ;;
	*) base+=("$p") ;;
	esac
done

if [ ${#base[@]} -gt 0 ] || [ ${#extra[@]} -gt 0 ]; then
	echo "install-deps: installing ${base[*]} ${extra[*]}"
	apt-get install -y -qq --no-install-recommends "${base[@]}" "${extra[@]}" >/dev/null
fi

# sid's newest kernel and its headers, in a debootstrap root made once per
# machine (scripts/sid-root.sh).
"$(dirname "$0")/sid-root.sh" >/dev/null

# arm64: the cross compiler, QEMU and Debian's arm64 6.1 kernel, unpacked.
"$(dirname "$0")/install-arm64.sh"
