# SPDX-License-Identifier: GPL-2.0
# Shared by the host tests that start from the release tarball, as a
# distribution or a user receives it (no .git).  Source after vmlib.sh.

DIST_VERSION=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$TOP/dkms.conf")

# unpacked_dist DIR: make dist, unpack the tarball into DIR; prints the
# tree (DIR/tlbpath-<version>).
unpacked_dist() {
	make -s -C "$TOP" dist >/dev/null || return 1
	mkdir -p "$1" &&
		tar -C "$1" -xJf "$BUILD/tlbpath-$DIST_VERSION.tar.xz" || return 1
	echo "$1/tlbpath-$DIST_VERSION"
}
