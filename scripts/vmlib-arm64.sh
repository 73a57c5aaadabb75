# SPDX-License-Identifier: GPL-2.0
# The arm64 side of the QEMU harness (tests/vm/*arm64*.t): Debian's arm64
# 6.1, 6.12 and sid kernels, unpacked by scripts/install-arm64.sh.  Source,
# don't run; sources vmlib.sh.

. "$(dirname "${BASH_SOURCE[0]}")/vmlib.sh"

ARM64_CACHE=${ARM64_CACHE:-/var/cache/tlbpath/arm64}
ARM64_CROSS=aarch64-linux-gnu-

# The ABI ("6.1.0-57", "7.2.13+deb14") of the amd64 kernel of a series
# ("6.1", "6.12", "sid") the harness has: the arm64 build of the same ABI
# matches its linux-kbuild (the host's, or the sid root's).
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

# Static aarch64 guest programs: the workloads and the stale-TLB detector.
# (tlbpath-geometry reads CPUID: x86 only.)
build_guest_programs_arm64() {
	local out="$BUILD/guest-bin-arm64" src bin
	mkdir -p "$out"
	for src in "$TOP"/bench/*.c "$TOP"/tests/vm/*.c; do
		[ -e "$src" ] || continue
		bin="$out/$(basename "${src%.c}")"
		if [ ! -e "$bin" ] || [ "$src" -nt "$bin" ]; then
			${ARM64_CROSS}gcc -static -O2 -Wall -Wextra -Werror -pthread -o "$bin" "$src" ||
				return 1
		fi
	done
	echo "$out"
}

# /init for the arm64 guest.  QEMU's virt machine has one UART, the
# kernel's console: the results go to a virtio console (hvc0) instead,
# whose drivers Debian builds as modules.  6.12 and 7.2 build
# virtio_console in: /dev/hvc0 is there before its port is (open: ENODEV),
# so wait until it opens.
arm64_init_hook() {
	local root=$1 kroot m ko mods=""
	kroot=$(arm64_root "${ARM64_KVER%-arm64}")
	for m in virtio/virtio_mmio char/virtio_console; do
		ko=$(ls "$kroot"/{,usr/}lib/modules/"$ARM64_KVER"/kernel/drivers/$m.ko 2>/dev/null | head -n1)
		[ -n "$ko" ] || continue
		cp "$ko" "$root/" || return 1
		mods="$mods insmod /$(basename "$ko");"
	done
	sed -i -e 's|/dev/ttyS1|/dev/hvc0|g' \
		-e 's#^sh /run-tests#'"$mods"'\
i=0; until [ -c /dev/hvc0 ] \&\& { : >/dev/hvc0; } 2>/dev/null || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done\
&#' "$root/init"
}

# boot for arm64: the same contract as vmlib.sh's boot().  The CPU is
# QEMU's max (FEAT_TLBIRANGE among the rest) without pointer
# authentication: with it, every switch between a user task and a kernel
# thread rewrites SCTLR_EL1 (the user's PAC enables), and QEMU empties its
# whole TLB on each such write, which real CPUs do not do; a lost TLBI
# could then never leave a stale entry for the detector to find.
boot_arm64() {
	local kver=$1 initrd=$2 console=$3 output=$4 smp=${5:-2}
	guest_run "$console" "$output" qemu-system-aarch64 \
		-M virt -cpu "${VM_CPU:-max,pauth=off}" -accel tcg,thread=multi \
		-smp "$smp" -m "${VM_MEM:-1G}" \
		-kernel "$(arm64_root "${kver%-arm64}")/Image" -initrd "$initrd" \
		-append "console=ttyAMA0 panic=-1 oops=panic" \
		-display none -monitor none -no-reboot \
		-serial "file:$console" \
		-device virtio-serial-device \
		-chardev "file,id=out,path=$output" -device virtconsole,chardev=out
}

# Switch the harness (vm-test.sh) over to the arm64 kernel of a series
# ("6.1", "6.12", "sid").
use_arm64() {
	ARM64_KVER=$(find_kernel_arm64 "${1:-6.1}")
	find_kernel() { echo "$ARM64_KVER"; }
	kdir_of() { arm64_kdir "$1"; }
	KMAKE_ARGS="ARCH=arm64 CROSS_COMPILE=$ARM64_CROSS"
	build_guest_programs() { build_guest_programs_arm64; }
	boot() { boot_arm64 "$@"; }
	# What the guest finds in /kconfig: the arm64 kernel's options.
	kconfig_of() {
		grep -E '^CONFIG_(ARM64_TLB_RANGE|ARM64_LPA2|UNMAP_KERNEL_AT_EL0|DYNAMIC_FTRACE_WITH_[A-Z]+)=' \
			"$(arm64_kdir "$ARM64_KVER")/.config" || true
	}
	GUEST_BUSYBOX="$(arm64_root "${ARM64_KVER%-arm64}")/bin/busybox"
	GUEST_INIT_HOOK=arm64_init_hook
	export ARM64_KVER
}
