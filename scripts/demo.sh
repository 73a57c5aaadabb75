#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: build tlbpath for a Debian distro kernel, boot it in QEMU (TCG),
# load the module and show geometry, threshold and counters moving under
# the mprotect workload at two thresholds.  DEMO_KERNEL=6.12 picks the
# backports kernel instead of bookworm's 6.1.
set -euo pipefail
. "$(dirname "$0")/vmlib.sh"

series=${DEMO_KERNEL:-6.1}
kver=$(find_kernel "$series")
[ -n "$kver" ] || die "demo: no Debian $series kernel with headers installed; run 'make deps'"
work="$BUILD/$kver/demo"
mkdir -p "$work"
echo "demo: building tlbpath for $kver"
ko=$(build_module "$kver")
make_initramfs "$work/initrd.gz" "$ko" "$TOP/tests/vm/guest-demo.sh"
echo "demo: booting $kver under QEMU TCG, 2 vCPUs"
boot "$kver" "$work/initrd.gz" "$work/console.log" "$work/output.log" 2
grep -v '^tlbpath-guest: done' "$work/output.log" | tr -d '\r'
if bad=$(guest_log_bad "$work/console.log"); then
	echo "demo: the guest kernel complained:"; echo "$bad"
	exit 1
fi
grep -q '^tlbpath-guest: done' "$work/output.log" || die "demo: the guest did not finish (see $work/console.log)"
