# SPDX-License-Identifier: GPL-2.0
# The arm64 side of the QEMU harness (tests/vm/*arm64*.t): Debian's arm64
# 6.1 kernel, unpacked by scripts/install-arm64.sh.  Source, don't run;
# sources vmlib.sh.

. "$(dirname "${BASH_SOURCE[0]}")/vmlib.sh"

ARM64_CACHE=${ARM64_CACHE:-/var/cache/tlbpath/arm64}
ARM64_CROSS=aarch64-linux-gnu-

# The ABI ("6.1.0-57") of the installed amd64 6.1 kernel: the arm64 build
# of the same ABI matches the host's linux-kbuild-6.1.
arm64_abi() {
	local k
	k=$(find_kernel 6.1)
	[ -n "$k" ] && echo "${k%-amd64}"
}

arm64_root() {
	echo "$ARM64_CACHE/$1"
}

# The unpacked arm64 kernel release ("6.1.0-57-arm64"), if there is one.
find_kernel_arm64() {
	local abi
	abi=$(arm64_abi) || return 0
	[ -e "$(arm64_root "$abi")/stamp" ] && echo "$abi-arm64"
}

arm64_kdir() {
	echo "$(arm64_root "${1%-arm64}")/usr/src/linux-headers-$1"
}
