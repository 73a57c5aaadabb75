#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# debug-kernel.sh: build, once per machine, the debug tier's kernel:
# Debian's linux-source-6.1 with x86_64_defconfig plus
# tests/debug/kernel.config (KASAN, lockdep, kmemleak, fault injection...).
# It is cached in $TLBPATH_DEBUG_ROOT (default /var/cache/tlbpath/debug-6.1)
# laid out like a root: boot/vmlinuz-<release> and lib/modules/<release>/build,
# and rebuilt only when the source package or the fragment changes.
# Prints the kernel release.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
ROOT=${TLBPATH_DEBUG_ROOT:-/var/cache/tlbpath/debug-6.1}
tarball=/usr/src/linux-source-6.1.tar.xz
fragment=$TOP/tests/debug/kernel.config
[ -e "$tarball" ] || { echo "debug-kernel: $tarball is missing (make deps)" >&2; exit 1; }

mkdir -p "$ROOT"
exec 9>>"$ROOT.lock"
flock 9

key="$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || stat -c %Y "$tarball") $(sha256sum <"$fragment" | cut -c1-16)"
if [ -e "$ROOT/key" ] && [ "$(cat "$ROOT/key")" = "$key" ] && [ -e "$ROOT/release" ] &&
   [ -e "$ROOT/boot/vmlinuz-$(cat "$ROOT/release")" ]; then
	cat "$ROOT/release"
	exit 0
fi

start=$(date +%s)
rm -rf "$ROOT/src" "$ROOT/boot" "$ROOT/lib" "$ROOT/key" "$ROOT/release"
mkdir -p "$ROOT/src"
echo "debug-kernel: unpacking $tarball" >&2
tar -C "$ROOT/src" -xJf "$tarball"
src=$ROOT/src/linux-source-6.1
cd "$src"
make -s x86_64_defconfig >&2
scripts/kconfig/merge_config.sh -m .config "$fragment" >/dev/null
make -s olddefconfig >&2

# Every option the fragment asks for must have taken.
bad=0
while IFS= read -r line; do
	case $line in
	CONFIG_*=*) want=$line ;;
	"# CONFIG_"*" is not set") want=$line ;;
	*) continue ;;
	esac
	if ! grep -qxF "$want" .config; then
		opt=${want#\# }; opt=${opt%%[= ]*}
		echo "debug-kernel: $want did not take: $(grep -E "^(# )?$opt[= ]" .config || echo "$opt absent")" >&2
		bad=1
	fi
done <"$fragment"
[ $bad = 0 ] || exit 1

echo "debug-kernel: building with $(nproc) jobs (log: $ROOT/build.log)" >&2
if ! make -j"$(nproc)" >"$ROOT/build.log" 2>&1; then
	tail -n 30 "$ROOT/build.log" >&2
	exit 1
fi
release=$(make -s kernelrelease)
mkdir -p "$ROOT/boot" "$ROOT/lib/modules/$release"
cp arch/x86/boot/bzImage "$ROOT/boot/vmlinuz-$release"
ln -sfn ../../../src/linux-source-6.1 "$ROOT/lib/modules/$release/build"
echo "$release" >"$ROOT/release"
echo "$key" >"$ROOT/key"
echo "debug-kernel: built $release in $(( $(date +%s) - start )) s" >&2
echo "$release"
