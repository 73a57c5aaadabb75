#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Debian packaging: make deb builds tlbpath-dkms and tlbpath-tools;
# installing them builds the module through DKMS for every installed kernel
# with headers (6.1, 6.12) and puts the tools and their pages in /usr, and
# purging them removes every trace.  Installs and purges real packages, so
# it stays away from a machine that already has either.
set -uo pipefail
. "$(dirname "$0")/../../scripts/vmlib.sh"
. "$(dirname "$0")/pkg-lib.sh"
cd "$TOP"
mkdir -p "$BUILD"
TAP_LOG=$BUILD/deb-test.log

ver=$TLBPATH_VERSION
if dpkg-query -W -f='${Status}' tlbpath-dkms tlbpath-tools 2>/dev/null | grep -q installed; then
	echo "1..0 # SKIP tlbpath-dkms or tlbpath-tools is installed on this machine; not touching it"
	exit 0
fi
if ! command -v dpkg-buildpackage >/dev/null || ! command -v dh_dkms >/dev/null; then
	echo "1..0 # SKIP dpkg-dev or dh-dkms missing (make deps)"
	exit 0
fi
mapfile -t kernels < <(installed_kernels)

echo "1..$((6 + 2 * ${#kernels[@]}))"
deb="build/deb/tlbpath-dkms_${ver}_all.deb"
t "make deb builds $deb" sh -c "make -s deb && test -f $deb"
t "the changelog's version is dkms.conf's ($ver)" \
	sh -c "dpkg-deb -f $deb Version | grep -qx '$ver'"
tools="build/deb/tlbpath-tools_${ver}_amd64.deb"
t "dpkg -i $deb $tools" dpkg -i "$deb" "$tools"
t "tlbpath-geometry, tlbpath-stat and tlbpath-probe run from /usr/sbin" \
	sh -c "/usr/sbin/tlbpath-geometry | grep -q '^cpu=0 source=' &&
	       /usr/sbin/tlbpath-stat --help 2>&1 | grep -q -- --prometheus &&
	       /usr/sbin/tlbpath-probe --help | grep -q -- --from"
t "man finds tlbpath(4), tlbpath-stat(8), tlbpath-geometry(8) and tlbpath-probe(8)" \
	sh -c "man -w 4 tlbpath && man -w 8 tlbpath-stat && man -w 8 tlbpath-geometry &&
	       man -w 8 tlbpath-probe"
for k in "${kernels[@]}"; do
	t "DKMS built and installed it for $k" \
		sh -c "dkms status tlbpath/$ver -k $k | grep -q installed"
	t "$k: an installed tlbpath.ko with vermagic $k" \
		sh -c "modinfo -F vermagic /lib/modules/$k/updates/dkms/tlbpath.ko* | grep -q '^$k '"
done
t "dpkg --purge removes the packages, the DKMS tree and the modules" \
	sh -c "dpkg --purge tlbpath-dkms tlbpath-tools && [ ! -e /usr/sbin/tlbpath-stat ] && [ -z \"\$(dkms status tlbpath 2>/dev/null)\" ] &&
	       ! ls /lib/modules/*/updates/dkms/tlbpath.ko* 2>/dev/null && [ ! -e /usr/src/tlbpath-$ver ]"
