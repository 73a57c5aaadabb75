# SPDX-License-Identifier: GPL-2.0
# Sourced by install-deps.sh, sid-root.sh and install-arm64.sh.
#
# mirror_uri: the Debian mirror this machine's apt already uses, so that
# the suites tlbpath adds (bookworm-backports, sid) come from the same
# place.  The first non-security Debian URI in apt's sources, deb822 files
# first, then one-line sources; empty if none.  No host name is ever
# written into the repository.
mirror_uri() {
	local uri
	uri=$(sed -n 's/^URIs:[[:space:]]*//p' /etc/apt/sources.list.d/*.sources 2>/dev/null |
	      tr ' ' '\n' | grep -v -- '-security' | grep -m1 '/debian/\?$' || true)
	if [ -z "$uri" ]; then
		uri=$(sed -n 's/^deb[[:space:]]\+\(\[[^]]*\][[:space:]]\+\)\?\([^[:space:]]*\)[[:space:]]\+[a-z-]\+[[:space:]].*/\2/p' \
		      /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		      grep -v -- '-security' | grep -m1 '/debian/\?$' || true)
	fi
	echo "$uri"
}

# in_root DIR CMD...: run CMD in the root DIR (the sid root) with a clean
# environment and a /proc of its own, which goes away with it (nothing
# stays mounted).
in_root() {
	local dir=$1
	shift
	unshare --mount --pid --fork --mount-proc="$dir/proc" \
		chroot "$dir" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
		LC_ALL=C DEBIAN_FRONTEND=noninteractive "$@"
}
