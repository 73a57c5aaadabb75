# SPDX-License-Identifier: GPL-2.0
# Shared by the packaging tests (tests/host/{dist,dkms,dkms-sid,deb}.t),
# which start from the release tarball as a distribution or a user
# receives it (no .git).  Source after vmlib.sh.

# unpacked_dist DIR: make dist, unpack the tarball into DIR; prints the
# tree (DIR/tlbpath-<version>).  Run from a release tree (no .git, so no
# make dist), a copy of that tree but build/.
unpacked_dist() {
	local tree="$1/tlbpath-$TLBPATH_VERSION"
	if git -C "$TOP" rev-parse --git-dir >/dev/null 2>&1; then
		make -s -C "$TOP" dist >/dev/null || return 1
		mkdir -p "$1" &&
			tar -C "$1" -xJf "$TOP/build/tlbpath-$TLBPATH_VERSION.tar.xz" || return 1
	else
		mkdir -p "$tree" &&
			tar -C "$TOP" --exclude=./build -cf - . | tar -C "$tree" -xf - || return 1
	fi
	echo "$tree"
}

# t DESCRIPTION COMMAND...: one TAP line for COMMAND, numbered by n; its
# output goes to $TAP_LOG (set by the test) and is shown when it fails.
n=0
t() {
	local d=$1
	shift
	n=$((n + 1))
	if "$@" >"$TAP_LOG" 2>&1; then
		echo "ok $n - $d"
	else
		echo "not ok $n - $d"
		tail -n 20 "$TAP_LOG" | sed 's/^/# /'
	fi
}
