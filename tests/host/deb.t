#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Debian packaging: make deb builds tlbpath-dkms; installing it builds the
# module through DKMS for every installed kernel with headers (6.1, 6.12),
# and purging it removes every trace.  Installs and purges a real package,
# so it stays away from a machine that already has tlbpath-dkms.
set -uo pipefail
. "$(dirname "$0")/../../scripts/vmlib.sh"
cd "$TOP"
mkdir -p "$BUILD"

ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
if dpkg-query -W -f='${Status}' tlbpath-dkms 2>/dev/null | grep -q installed; then
	echo "1..0 # SKIP tlbpath-dkms is installed on this machine; not touching it"
	exit 0
fi
if ! command -v dpkg-buildpackage >/dev/null || ! command -v dh_dkms >/dev/null; then
	echo "1..0 # SKIP dpkg-dev or dh-dkms missing (make deps)"
	exit 0
fi
mapfile -t kernels < <(installed_kernels)

echo "1..$((4 + 2 * ${#kernels[@]}))"
n=0
t() {	# t DESCRIPTION COMMAND...
	local d=$1
	shift
	n=$((n + 1))
	if "$@" >"$BUILD/deb-test.log" 2>&1; then
		echo "ok $n - $d"
	else
		echo "not ok $n - $d"
		tail -n 15 "$BUILD/deb-test.log" | sed 's/^/# /'
	fi
}

deb="build/deb/tlbpath-dkms_${ver}_all.deb"
t "make deb builds $deb" sh -c "make -s deb && test -f $deb"
t "the changelog's version is dkms.conf's ($ver)" \
	sh -c "dpkg-deb -f $deb Version | grep -qx '$ver'"
t "dpkg -i $deb" dpkg -i "$deb"
for k in "${kernels[@]}"; do
	t "DKMS built and installed it for $k" \
		sh -c "dkms status tlbpath/$ver -k $k | grep -q installed"
	t "$k: an installed tlbpath.ko with vermagic $k" \
		sh -c "modinfo -F vermagic /lib/modules/$k/updates/dkms/tlbpath.ko* | grep -q '^$k '"
done
t "dpkg --purge removes the package, the DKMS tree and the modules" \
	sh -c "dpkg --purge tlbpath-dkms && [ -z \"\$(dkms status tlbpath 2>/dev/null)\" ] &&
	       ! ls /lib/modules/*/updates/dkms/tlbpath.ko* 2>/dev/null && [ ! -e /usr/src/tlbpath-$ver ]"
