#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sparse (make C=2) reports nothing on the module, for each Debian kernel
# (arm64's too, cross-built).
set -uo pipefail
. "$(dirname "$0")/../../scripts/vmlib.sh"

if ! command -v sparse >/dev/null; then
	echo "1..0 # SKIP sparse is not installed (make deps)"
	exit 0
fi
mapfile -t kernels < <(installed_kernels)
# arm64: 6.1 and 6.12 (sid's builds only in its root, which has no sparse).
mapfile -t arm64 < <(for s in 6.1 6.12; do find_kernel $s-arm64; done | sed '/^$/d')
echo "1..$(( ${#kernels[@]} + ${#arm64[@]} ))"
n=0
for k in "${kernels[@]}" "${arm64[@]}"; do
	n=$((n + 1))
	dir="$BUILD/$k/sparse"
	# build_kmod (W=1) with C=2.  It fails on any warning; here only what
	# is said of the module's own files counts, and a module must come out.
	KMAKE_EXTRA=C=2 build_kmod "$k" sparse "$TOP/src" "$TOP/include" "$TOP/Kbuild" >/dev/null 2>&1
	# Matched as a string: a release like 6.12.95+deb12 is no regular expression.
	out=$(awk -v d="$dir/" 'index($0, d) == 1 && /(warning|error):/' "$dir/build.log")
	[ -n "$out" ] || ls "$dir"/*.ko >/dev/null 2>&1 ||
		out="no module built: $(tail -n 5 "$dir/build.log")"
	if [ -z "$out" ]; then
		echo "ok $n - sparse (make C=2) is silent for $k"
	else
		echo "not ok $n - sparse (make C=2) is silent for $k"
		echo "$out" | head -n 20 | sed 's/^/# /'
	fi
done
