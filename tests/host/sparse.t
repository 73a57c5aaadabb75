#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sparse (make C=2) reports nothing on the module, for each Debian kernel.
set -uo pipefail
. "$(dirname "$0")/../../scripts/vmlib.sh"

if ! command -v sparse >/dev/null; then
	echo "1..0 # SKIP sparse is not installed (make deps)"
	exit 0
fi
mapfile -t kernels < <(installed_kernels)
echo "1..${#kernels[@]}"
n=0
for k in "${kernels[@]}"; do
	n=$((n + 1))
	dir="$BUILD/$k/sparse"
	rm -rf "$dir"
	mkdir -p "$dir"
	cp -r "$TOP/src" "$TOP/include" "$TOP/Kbuild" "$dir/"
	out=$(make -s -C "/lib/modules/$k/build" M="$dir" C=2 modules 2>&1 |
	      grep -E "^$dir/.*(warning|error):")
	if [ -z "$out" ]; then
		echo "ok $n - sparse (make C=2) is silent for $k"
	else
		echo "not ok $n - sparse (make C=2) is silent for $k"
		echo "$out" | head -n 20 | sed 's/^/# /'
	fi
done
