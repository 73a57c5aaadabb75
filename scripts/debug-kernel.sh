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

mkdir -p "$(dirname "$ROOT")"
exec 9>>"$ROOT.lock"
flock 9
mkdir -p "$ROOT"

key="$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || stat -c %Y "$tarball") $(sha256sum <"$fragment" | cut -c1-16)"
if [ -e "$ROOT/key" ] && [ "$(cat "$ROOT/key")" = "$key" ] && [ -e "$ROOT/release" ] &&
   [ -e "$ROOT/boot/vmlinuz-$(cat "$ROOT/release")" ]; then
	cat "$ROOT/release"
	exit 0
fi

start=$(date +%s)
# Built beside the cached kernel and swapped in at the end: a build that
# fails or is stopped leaves the cached one as it was.
new=$ROOT.new
rm -rf "$new"
mkdir -p "$new/src"
echo "debug-kernel: unpacking $tarball" >&2
tar -C "$new/src" -xJf "$tarball"
src=$new/src/linux-source-6.1
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

echo "debug-kernel: building with $(nproc) jobs (log: $new/build.log)" >&2
if ! make -j"$(nproc)" >"$new/build.log" 2>&1; then
	tail -n 30 "$new/build.log" >&2
	exit 1
fi
release=$(make -s kernelrelease)
mkdir -p "$new/boot" "$new/lib/modules/$release"
cp arch/x86/boot/bzImage "$new/boot/vmlinuz-$release"
ln -sfn ../../../src/linux-source-6.1 "$new/lib/modules/$release/build"
echo "$release" >"$new/release"
echo "$key" >"$new/key"
cd /
rm -rf "$ROOT.old"
mv -T "$ROOT" "$ROOT.old"
mv -T "$new" "$ROOT"
rm -rf "$ROOT.old"
echo "debug-kernel: built $release in $(( $(date +%s) - start )) s" >&2
echo "$release"
