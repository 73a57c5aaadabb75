#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The release tarball as a distribution receives it: make dist gives
# tlbpath-<version>.tar.xz with every tracked file under tlbpath-<version>/;
# unpacked (no .git), make, make tools, make deb and make install-tools
# work there; the two packages carry dkms.conf's version and pass lintian
# without an error; make install-tools installs what tlbpath-tools holds.
# DKMS from the tarball: dkms.t (6.1, 6.12), dkms-sid.t (sid).
set -uo pipefail
. "$(dirname "$0")/../../scripts/vmlib.sh"
. "$(dirname "$0")/pkg-lib.sh"

kver=$(find_kernel 6.1)
if [ -z "$kver" ] || ! command -v dh_dkms >/dev/null || ! command -v lintian >/dev/null; then
	echo "1..0 # SKIP 6.1 headers, dh-dkms or lintian missing (make deps)"
	exit 0
fi
if ! git -C "$TOP" rev-parse --git-dir >/dev/null 2>&1; then
	echo "1..0 # SKIP not a git checkout: this is a release tree already (make dist needs git)"
	exit 0
fi
ver=$TLBPATH_VERSION
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
TAP_LOG=$tmp/log

echo "1..10"

tarball="$TOP/build/tlbpath-$ver.tar.xz"	# where make dist writes it, whatever BUILD
tree=$(unpacked_dist "$tmp")
t "make dist: $(basename "$tarball"), the tracked files under tlbpath-$ver/, no .git" \
	sh -c "[ -d '$tree' ] && [ ! -e '$tree/.git' ] &&
	       [ \"\$(tar -tJf '$tarball' | grep -v '/\$' | sort)\" = \
	         \"\$(git -C '$TOP' ls-files | sed 's,^,tlbpath-$ver/,' | sort)\" ]"
t "make in the unpacked tree, for $kver: modinfo version $ver" \
	sh -c "make -s -C '$tree' KERNELRELEASE='$kver' &&
	       [ \"\$(modinfo -F version '$tree/tlbpath.ko')\" = '$ver' ]"
t "make tools there" sh -c "make -s -C '$tree' tools && '$tree/tools/tlbpath-geometry' \
	'$TOP/tests/unit/cpuid/'\$(ls '$TOP/tests/unit/cpuid' | head -n1) | grep -q '^cpu=0 source='"

debs="$tree/build/deb"
dkms_deb="$debs/tlbpath-dkms_${ver}_all.deb"
tools_deb="$debs/tlbpath-tools_${ver}_amd64.deb"
t "make deb there: tlbpath-dkms and tlbpath-tools" \
	sh -c "make -s -C '$tree' deb && [ -f '$dkms_deb' ] && [ -f '$tools_deb' ]"
t "both packages are version $ver" sh -c "[ \"\$(dpkg-deb -f '$dkms_deb' Version)\" = '$ver' ] &&
	[ \"\$(dpkg-deb -f '$tools_deb' Version)\" = '$ver' ]"
t "tlbpath-dkms holds /usr/src/tlbpath-$ver with dkms.conf, tlbpath(4), no build output" \
	sh -c "dpkg-deb -c '$dkms_deb' | awk '{ print \$6 }' >'$tmp/dkms.list' &&
	       grep -qx './usr/src/tlbpath-$ver/dkms.conf' '$tmp/dkms.list' &&
	       grep -qx './usr/share/man/man4/tlbpath.4.gz' '$tmp/dkms.list' &&
	       ! grep -E '\\.(o|ko|cmd)\$' '$tmp/dkms.list'"

# make install-tools: the files tlbpath-tools holds (but its docs; the
# package's pages are gzipped).
t "make install-tools installs what tlbpath-tools holds" \
	sh -c "make -s -C '$tree' install-tools DESTDIR='$tmp/inst' PREFIX=/usr &&
	       [ \"\$(cd '$tmp/inst' && find . -type f | sort)\" = \
	         \"\$(dpkg-deb -c '$tools_deb' | awk '\$1 !~ /^d/ { print \$6 }' |
	            grep -v '^./usr/share/doc/' | sed 's/\\.gz\$//' | sort)\" ]"
t "the tools have their man pages in the package" \
	sh -c "dpkg-deb -c '$tools_deb' | grep -q 'usr/share/man/man8/tlbpath-stat.8.gz' &&
	       dpkg-deb -c '$tools_deb' | grep -q 'usr/share/man/man8/tlbpath-geometry.8.gz' &&
	       dpkg-deb -c '$tools_deb' | grep -q 'usr/share/man/man8/tlbpath-probe.8.gz'"

n=$((n + 1))
lint=$(lintian --no-cfg "$debs/tlbpath_${ver}_amd64.changes" 2>&1 | grep -v 'running with root privileges')
if grep -q '^E: ' <<<"$lint"; then
	echo "not ok $n - lintian reports no error"
else
	echo "ok $n - lintian reports no error"
fi
echo "${lint:-lintian: nothing}" | sed 's/^/# /'

# One source: the changelog must agree with dkms.conf, or the build stops.
sed -i "1s/($ver)/($ver.1)/" "$tree/debian/changelog"
n=$((n + 1))
if ! make -s -C "$tree" deb >"$tmp/log" 2>&1 && grep -q 'must agree' "$tmp/log"; then
	echo "ok $n - make deb refuses a changelog that disagrees with dkms.conf"
else
	echo "not ok $n - make deb refuses a changelog that disagrees with dkms.conf"
fi
