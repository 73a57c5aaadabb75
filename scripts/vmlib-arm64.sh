# SPDX-License-Identifier: GPL-2.0
# The arm64 kernels of the QEMU harness: Debian's arm64 6.1, 6.12 and sid
# kernels, unpacked by scripts/install-arm64.sh under $ARM64_CACHE, one
# for each amd64 kernel the harness has.  Sourced by vmlib.sh.

ARM64_CROSS=aarch64-linux-gnu-

# The ABI ("6.1.0-57", "7.2.13+deb14") of the generic amd64 kernel of a
# series ("6.1", "6.12", "sid"): the arm64 build of the same ABI matches
# its linux-kbuild (the host's, or the sid root's).
arm64_abi() {
	local k
	k=$(find_kernel "${1:-6.1}")
	[ -n "$k" ] && echo "${k%-amd64}"
}

arm64_root() {
	echo "$ARM64_CACHE/$1"
}

# The unpacked arm64 kernel release of a series ("6.1.0-57-arm64"), if any.
find_kernel_arm64() {
	local abi
	abi=$(arm64_abi "${1:-6.1}") || return 0
	[ -e "$(arm64_root "$abi")/stamp" ] && echo "$abi-arm64"
}

# Its headers: unpacked beside the kernel, or (sid) into the sid root.
arm64_kdir() {
	local d
	d="$(arm64_root "${1%-arm64}")/usr/src/linux-headers-$1"
	[ -d "$d" ] || d="$SID_ROOT/usr/src/linux-headers-$1"
	echo "$d"
}

# The drivers of the guest's output device (a virtio console), which
# Debian builds as modules (6.12 and 7.2 build virtio_console in).
arm64_drivers() {
	local m
	for m in virtio/virtio_mmio char/virtio_console; do
		ls "$(arm64_root "${1%-arm64}")"/{,usr/}lib/modules/"$1"/kernel/drivers/$m.ko 2>/dev/null | head -n1
	done
}
