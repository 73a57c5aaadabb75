# SPDX-License-Identifier: GPL-2.0
# Shared by the QEMU harness scripts: pick a Debian kernel, build tlbpath for
# it, pack a busybox initramfs, boot it under TCG.  Source, don't run.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
# The version, written in dkms.conf only (DKMS reads it there).
TLBPATH_VERSION=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$TOP/dkms.conf")

die() { echo "$*" >&2; exit 1; }

# Where the harness finds kernels besides this host's /boot and
# /lib/modules (TLBPATH_HOST_ROOT: another root laid out the same way,
# for tests/host/find-kernel.t):
#   sid    a debootstrap root of Debian's unstable suite, made once per
#          machine by scripts/sid-root.sh (make deps), holding sid's newest
#          kernel, its headers and the compiler they need; modules for it
#          are built in that root (chroot);
#   debug  the debug tier's kernel, built once per machine from Debian's
#          linux-source-6.1 by scripts/debug-kernel.sh (make check-debug);
#   arm64  Debian's arm64 kernels, unpacked by scripts/install-arm64.sh.
HOST_ROOT=${TLBPATH_HOST_ROOT:-}
SID_ROOT=${TLBPATH_SID_ROOT:-/var/cache/tlbpath/sid-root}
DEBUG_ROOT=${TLBPATH_DEBUG_ROOT:-/var/cache/tlbpath/debug-6.1}
ARM64_CACHE=${ARM64_CACHE:-/var/cache/tlbpath/arm64}

# Debian's flavour of a kernel release: what follows its version and ABI
# ("6.1.0-57-rt-amd64": rt-amd64; "6.12.95+deb12-amd64", "6.12.9+bpo-amd64": amd64;
# "6.1.192-tlbpath-debug": tlbpath-debug).
kernel_flavour() {
	sed -E 's/^[0-9]+\.[0-9]+(\.[0-9]+)?(-[0-9]+|\+[a-z]+[0-9]*)?-//' <<<"$1"
}

# find_kernel KERNEL: the release of the newest kernel with headers of
# exactly the series and flavour KERNEL names, or nothing:
#   6.1, 6.12           Debian's generic amd64 kernel of that series
#   6.1-rt, 6.1-cloud   its PREEMPT_RT or cloud flavour
#   sid                 the sid root's generic amd64 kernel
#   debug               the debug tier's kernel
#   <any of those>-arm64  the arm64 build of the same ABI (unpacked)
# Another flavour installed beside is never taken for the one asked for.
find_kernel() {
	local want=$1 root=$HOST_ROOT series flavour=amd64 k best=""
	case $want in
	*-arm64) find_kernel_arm64 "${want%-arm64}"; return ;;
	sid) root=$SID_ROOT series="" ;;
	debug) root=$DEBUG_ROOT series=6.1 flavour=tlbpath-debug ;;
	*-*) series=${want%%-*} flavour=${want#*-}-amd64 ;;
	*) series=$want ;;
	esac
	for k in "$root"/boot/vmlinuz-*; do
		[ -e "$k" ] || continue
		k=${k#"$root"/boot/vmlinuz-}
		[ "$(kernel_flavour "$k")" = "$flavour" ] || continue
		[ -z "$series" ] || case $k in "$series".*) ;; *) continue ;; esac
		[ -d "$root/lib/modules/$k/build" ] || continue
		best=$(printf '%s\n%s\n' "$best" "$k" | sed '/^$/d' | sort -V | tail -n1)
	done
	echo "$best"
}

# The root kernel $1 and its headers live in: this host's (HOST_ROOT), the
# sid root or the debug kernel's.
kernel_root() {
	local r
	for r in "$HOST_ROOT" "$SID_ROOT" "$DEBUG_ROOT"; do
		[ -d "$r/lib/modules/$1/build" ] && { echo "$r"; return; }
	done
}

# The Debian kernels the host tests (DKMS, the package, sparse) cover
# that are installed with headers.
installed_kernels() {
	local s
	for s in 6.1 6.12; do
		find_kernel "$s"
	done | sed '/^$/d'
}

# The arch of kernel release $1, and what it takes to build and boot it.
arch_of() {
	case $1 in *-arm64) echo arm64 ;; *) echo x86 ;; esac
}
kdir_of() {
	case $(arch_of "$1") in
	arm64) arm64_kdir "$1" ;;
	*) echo "$(kernel_root "$1")/lib/modules/$1/build" ;;
	esac
}
kmake_args_of() {
	[ "$(arch_of "$1")" = x86 ] || echo "ARCH=arm64 CROSS_COMPILE=$ARM64_CROSS"
}

. "$TOP/scripts/vmlib-arm64.sh"

# build_kmod KVER NAME PATH...: build the module whose Kbuild and sources
# are PATH... (copied, so each kernel gets its own build) with W=1 and
# KMAKE_EXTRA (make's arguments besides); any warning fails.  Prints the
# .ko's path.
build_kmod() {
	local kver=$1 name=$2 dir="$BUILD/$1/$2"
	shift 2
	rm -rf "$dir"
	mkdir -p "$dir"
	cp -r "$@" "$dir/"
	if [ "$(kernel_root "$kver")" = "$SID_ROOT" ]; then
		build_in_root "$SID_ROOT" "$kver" "$dir" || { cat "$dir/build.log" >&2; return 1; }
	else
		make -s -C "$(kdir_of "$kver")" M="$dir" W=1 $(kmake_args_of "$kver") ${KMAKE_EXTRA:-} \
			TLBPATH_VERSION="$TLBPATH_VERSION" \
			modules >"$dir/build.log" 2>&1 || { cat "$dir/build.log" >&2; return 1; }
	fi
	if grep -E 'warning:|error:' "$dir/build.log" >&2; then
		echo "build_kmod: warnings building $name for $kver" >&2
		return 1
	fi
	ls "$dir"/*.ko
}

# run_in_root ROOT CMD...: CMD in ROOT (chroot) with a clean environment
# and a /proc of its own (objtool reads it), gone when CMD ends.  A shared
# lock keeps scripts/sid-root.sh from swapping the kernel meanwhile.
run_in_root() {
	local root=$1
	shift
	(
		flock -s 8
		unshare --mount --pid --fork --mount-proc="$root/proc" \
			chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C "$@"
	) 8>>"$root.lock"
}

# build_in_root ROOT KVER DIR: build the module in DIR against KVER's
# headers in ROOT with ROOT's own compiler and make (chroot; a copy of DIR
# inside ROOT, the .ko files copied back), W=1 and KMAKE_EXTRA, log in
# DIR/build.log.
build_in_root() {
	local root=$1 kver=$2 dir=$3 rel rc
	rel=/var/tmp/tlbpath-build.$$.$(basename "$dir")
	rm -rf "$root$rel"
	mkdir -p "$root$rel"
	cp -r "$dir"/. "$root$rel/"
	run_in_root "$root" make -s -C "/lib/modules/$kver/build" M="$rel" W=1 \
		TLBPATH_VERSION="$TLBPATH_VERSION" ${KMAKE_EXTRA:-} \
		modules >"$dir/build.log" 2>&1
	rc=$?
	[ $rc != 0 ] || cp "$root$rel"/*.ko "$dir/" || rc=1
	rm -rf "$root$rel"
	return $rc
}

# tlbpath.ko for kernel $1.
build_module() {
	build_kmod "$1" module "$TOP/src" "$TOP/include" "$TOP/Kbuild"
}

# build_mutant KVER NAME: tlbpath.ko built with Kbuild's TLBP_MUTANT=NAME
# (tests only), as tlbpath-NAME.ko; prints its path.
build_mutant() {
	local ko
	ko=$(KMAKE_EXTRA="TLBP_MUTANT=$2" build_kmod "$1" "mutant-$2" "$TOP/src" "$TOP/include" \
		"$TOP/Kbuild") || return 1
	mv "$ko" "$(dirname "$ko")/tlbpath-$2.ko" && echo "$(dirname "$ko")/tlbpath-$2.ko"
}

# The test-only modules (tests/vm/*/Kbuild, and for the debug kernel
# tests/debug/*/Kbuild: the mutants), never part of tlbpath.
build_test_modules() {
	local kver=$1 d
	local debug=""
	[ "$(kernel_root "$kver")" != "$DEBUG_ROOT" ] || debug="$TOP/tests/debug/*/Kbuild"
	for d in "$TOP"/tests/vm/*/Kbuild $debug; do
		[ -e "$d" ] || continue
		d=$(dirname "$d")
		build_kmod "$kver" "test-$(basename "$d")" "$d"/. || return 1
	done
}

# build_guest_programs ARCH: static guest programs (bench workloads and
# test helpers) for ARCH (x86, arm64); prints their directory.
build_guest_programs() {
	local arch=${1:-x86} out="$BUILD/guest-bin-${1:-x86}" cc=gcc src bin
	[ "$arch" = x86 ] || cc=${ARM64_CROSS}gcc
	mkdir -p "$out"
	for src in "$TOP"/bench/*.c "$TOP"/tests/vm/*.c "$TOP"/tests/debug/*.c; do
		[ -e "$src" ] || continue
		bin="$out/$(basename "${src%.c}")"
		if [ ! -e "$bin" ] || [ "$src" -nt "$bin" ] || [ "$TOP/bench/benchlib.h" -nt "$bin" ]; then
			$cc -static -O2 -Wall -Wextra -Werror -pthread -o "$bin" "$src" || return 1
		fi
	done
	# tlbpath-geometry reads CPUID, tlbpath-probe the TSC: x86 only.
	if [ "$arch" = x86 ]; then
		$cc -static -O2 -Wall -Wextra -Werror -I"$TOP/include" -o "$out/tlbpath-geometry" \
			"$TOP/tools/tlbpath-geometry.c" "$TOP/src/geometry.c" || return 1
		$cc -static -O2 -Wall -Wextra -Werror -I"$TOP/include" -pthread \
			-DTLBPATH_VERSION="\"$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$TOP/dkms.conf")\"" \
			-o "$out/tlbpath-probe" "$TOP/tools/tlbpath-probe.c" "$TOP/src/geometry.c" -lm ||
			return 1
	fi
	echo "$out"
}

# binary_root ROOT PROGRAM: a host program, its shared libraries and the
# dynamic loader, laid out at the paths it asks for under ROOT, to be laid
# over the initramfs root (stress-ng, perf).
binary_root() {
	local root=$1 bin lib
	bin=$(command -v "$2") || { echo "$2 is not installed (make deps)" >&2; return 1; }
	mkdir -p "$root/bin"
	cp "$bin" "$root/bin/$2"
	for lib in $(ldd "$bin" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}

stressng_root() {
	rm -rf "$1"
	binary_root "$1" stress-ng
}

# The kernel's own mm selftests (Debian's linux-source-6.1), built static
# into $1/selftests: the ones that need no extra libraries.
MM_SELFTESTS="mremap_test madv_populate map_fixed_noreplace map_populate mremap_dontunmap
	mlock2-tests userfaultfd soft-dirty transhuge-stress"
mm_selftests_root() {
	local root=$1 src="$BUILD/ksrc" tarball=/usr/src/linux-source-6.1.tar.xz t vm
	[ -e "$tarball" ] || { echo "linux-source-6.1 is not installed (make deps)" >&2; return 1; }
	vm="$src/linux-source-6.1/tools/testing/selftests/vm"
	if [ ! -d "$vm" ] || [ "$tarball" -nt "$src/stamp" ]; then
		mkdir -p "$src"
		tar -C "$src" -xJf "$tarball" linux-source-6.1/tools/testing/selftests/vm \
			linux-source-6.1/tools/testing/selftests/kselftest.h \
			linux-source-6.1/tools/include || return 1
		touch "$src/stamp"
	fi
	mkdir -p "$root/selftests"
	for t in $MM_SELFTESTS; do
		[ "$root/selftests/$t" -nt "$vm/$t.c" ] && continue
		gcc -static -O2 -w -I"$vm/.." -I"$src/linux-source-6.1/tools/include" \
			-o "$root/selftests/$t" "$vm/$t.c" $(grep -q vm_util.h "$vm/$t.c" && echo "$vm/vm_util.c") \
			-lpthread -lrt -lm || return 1
	done
}

# The options of kernel KVER that the guest tests
# ask about (/kconfig in the guest).
kconfig_of() {
	grep -E '^CONFIG_(BROADCAST_TLB_FLUSH|X86_KERNEL_IBT|PAGE_TABLE_ISOLATION|ARM64_TLB_RANGE|ARM64_LPA2|UNMAP_KERNEL_AT_EL0|DYNAMIC_FTRACE_WITH_[A-Z]+|PREEMPT_RT|KASAN|DEBUG_KMEMLEAK|FAULT_INJECTION)=' \
		"$(kdir_of "$1")/.config" || true
}

# make_initramfs OUT.cpio.gz KO GUEST_SCRIPT [extra files...]
# The guest runs GUEST_SCRIPT as /run-tests with tests/vm/guest-lib.sh
# beside, its output on the device the arch's boot gives it (guest_out),
# after loading the drivers that device needs (guest_drivers).
make_initramfs() {
	local out=$1 ko=$2 script=$3 root bins kver arch ko_drv
	shift 3
	kver=$(modinfo -F vermagic "$ko" | cut -d' ' -f1)
	arch=$(arch_of "$kver")
	root=$(mktemp -d)
	mkdir -p "$root"/{bin,sbin,proc,sys,dev,tmp,mnt,root,etc}
	cp "$(guest_busybox "$kver")" "$root/bin/busybox"
	bins=$(build_guest_programs "$arch") || return 1
	cp "$bins"/* "$TOP/tools/tlbpath-stat" "$root/bin/"
	cp "$ko" "$root/"
	kconfig_of "$kver" >"$root/kconfig"
	[ -z "${TLBPATH_EXTRA_KO:-}" ] || cp $TLBPATH_EXTRA_KO "$root/"
	# A tree laid over the root as is (the benchmarks' stress-ng and its libraries).
	[ -z "${TLBPATH_EXTRA_ROOT:-}" ] || cp -a "$TLBPATH_EXTRA_ROOT"/. "$root/"
	cp "$TOP/tests/vm/guest-lib.sh" "$root/guest-lib.sh"
	cp "$script" "$root/run-tests"
	[ $# -eq 0 ] || cp "$@" "$root/"
	mkdir -p "$root/drivers"
	for ko_drv in $(guest_drivers "$kver"); do
		cp "$ko_drv" "$root/drivers/" || return 1
	done
	# The output device comes after its driver (a virtio console's port
	# is added later) and can exist before it opens: wait until it is
	# there and opens, 10 s at most.  Writing before it exists would
	# create a plain file in its place.
	cat >"$root/init" <<INIT
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing
export PATH=/bin:/sbin
cd /
for m in \$(ls /drivers); do insmod /drivers/\$m; done
out=$(guest_out "$kver")
i=0
until { [ -c \$out ] && { : >\$out; } 2>/dev/null; } || [ \$i -ge 100 ]; do sleep 0.1; i=\$((i + 1)); done
sh /run-tests >\$out 2>&1
echo "tlbpath-guest: done" >\$out
sync
poweroff -f
INIT
	chmod +x "$root/init" "$root/run-tests"
	(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$out"
	rm -rf "$root"
}

# boot KVER INITRAMFS CONSOLE_LOG OUTPUT_LOG [SMP]
# Console (kernel log) and the guest's output go to separate devices, so
# kernel messages can never split a result line.  VM_CPU picks QEMU's CPU
# model (the arch's default_cpu otherwise), VM_MEM (default 1G) the
# guest's memory, VM_ICOUNT=1 makes guest time count instructions.
boot() {
	local kver=$1 initrd=$2 console=$3 output=$4 smp=${5:-2} arch
	arch=$(arch_of "$kver")
	# One host thread runs all vCPUs in turn (single-threaded TCG) unless
	# VM_TCG_THREAD says otherwise: under multi-threaded TCG, Debian's x86
	# kernels now and then die in live text patching ("Oops: int3"; see
	# Documentation/testing.md).  The vCPUs still interleave and keep TLBs
	# of their own, so the stale-TLB detector still catches a narrowed
	# flush.  The benchmarks time vCPUs running at once: multi-threaded.
	guest_run "$console" "$output" $(qemu_of "$arch") \
		-accel tcg,thread="${VM_TCG_THREAD:-$(default_tcg_thread "$arch")}" \
		-smp "$smp" -m "${VM_MEM:-1G}" -cpu "${VM_CPU:-$(default_cpu "$arch")}" \
		${VM_ICOUNT:+-icount shift=0,sleep=off} \
		-kernel "$(kernel_image "$kver")" -initrd "$initrd" \
		-append "console=$(console_of "$arch") panic=-1 oops=panic" \
		-display none -monitor none -no-reboot \
		-serial "file:$console" $(output_args "$arch" "$output")
}

# What differs between the arches' guests, as data.
qemu_of() {
	case $1 in
	arm64) echo qemu-system-aarch64 -M virt ;;
	*) echo qemu-system-x86_64 ;;
	esac
}
# arm64: QEMU's max CPU (FEAT_TLBIRANGE among the rest) without pointer
# authentication, which makes QEMU empty its whole TLB on every switch
# between a user task and a kernel thread (Documentation/arm64.md).
default_cpu() {
	case $1 in arm64) echo max,pauth=off ;; *) echo max ;; esac
}
default_tcg_thread() {
	case $1 in arm64) echo multi ;; *) echo single ;; esac
}
console_of() {
	case $1 in arm64) echo ttyAMA0 ;; *) echo ttyS0 ;; esac
}
# The guest's output: x86's second UART; QEMU's virt machine has one UART,
# so arm64's goes to a virtio console.
output_args() {
	case $1 in
	arm64) echo "-device virtio-serial-device -chardev file,id=out,path=$2 -device virtconsole,chardev=out" ;;
	*) echo "-serial file:$2" ;;
	esac
}
guest_out() {
	case $(arch_of "$1") in arm64) echo /dev/hvc0 ;; *) echo /dev/ttyS1 ;; esac
}
kernel_image() {
	case $(arch_of "$1") in
	arm64) echo "$(arm64_root "${1%-arm64}")/Image" ;;
	*) echo "$(kernel_root "$1")/boot/vmlinuz-$1" ;;
	esac
}
guest_busybox() {
	case $(arch_of "$1") in
	arm64) echo "$(arm64_root "${1%-arm64}")/bin/busybox" ;;
	*) echo /bin/busybox ;;
	esac
}
guest_drivers() {
	case $(arch_of "$1") in arm64) arm64_drivers "$1" ;; esac
}

# guest_run CONSOLE_LOG OUTPUT_LOG QEMU_COMMAND...
# Run QEMU for at most VM_TIMEOUT seconds (default 600).  A kernel that
# has not started /init within VM_BOOT_TIMEOUT seconds (default 240) is
# stopped and booted again, VM_BOOT_TRIES times in all (default 3), each
# try said on stdout and its console log kept as CONSOLE_LOG.hungN; so is
# an /init that dies before the guest's script printed anything
# (CONSOLE_LOG.diedN).  Neither can be tlbpath's: no module is loaded
# yet.  A guest that hangs or dies later is never retried
# (Documentation/testing.md).
guest_run() {
	local console=$1 output=$2 try pid start
	shift 2
	for try in $(seq 1 "${VM_BOOT_TRIES:-3}"); do
		: >"$console"
		: >"$output"
		timeout "${VM_TIMEOUT:-600}" "$@" </dev/null &
		pid=$!
		start=$(date +%s)
		while ! grep -q 'Run /init as init process' "$console"; do
			kill -0 "$pid" 2>/dev/null || break
			if [ $(( $(date +%s) - start )) -ge "${VM_BOOT_TIMEOUT:-240}" ]; then
				kill "$pid"
				wait "$pid"
				cp "$console" "$console.hung$try"
				echo "# boot: the guest kernel did not start /init in ${VM_BOOT_TIMEOUT:-240} s" \
					"(try $try of ${VM_BOOT_TRIES:-3}); its log: $console.hung$try"
				continue 2
			fi
			sleep 1
		done
		wait "$pid"
		local rc=$?
		# /init died before the guest's script wrote a line.
		if [ ! -s "$output" ] && grep -q 'Attempted to kill init' "$console"; then
			cp "$console" "$console.died$try"
			echo "# boot: the guest's /init died before its first result" \
				"(try $try of ${VM_BOOT_TRIES:-3}); its log: $console.died$try"
			continue
		fi
		return $rc
	done
	return 1
}

# qemu_ended RC: how guest_run's QEMU ended, in words, for a guest that
# did not finish.  With -no-reboot a reset ends QEMU with 0, and a panic
# (panic=-1) or a triple fault resets: only the console tells them apart.
qemu_ended() {
	case $1 in
	0) echo "QEMU exited 0: the guest reset or powered off" ;;
	124) echo "QEMU stopped after VM_TIMEOUT=${VM_TIMEOUT:-600} s" ;;
	12[5-9] | 1[3-9][0-9] | 2[0-9][0-9]) echo "QEMU died of signal $(($1 - 128)) ($(kill -l $(($1 - 128)) 2>/dev/null))" ;;
	*) echo "QEMU exited with status $1" ;;
	esac
}

# Lines that mean the guest kernel found a bug: its own reports (BUG,
# WARNING, Oops, kernel BUG at), KASAN's and UBSAN's, lockdep's and RCU's
# (WARNING, INFO), sysfs and kobject failures, lockups and stalls, and any
# stack dump.  Between the guest's "tlbpath-fault-injection: begin" and
# "end" lines, where allocations fail on purpose, two reports are the
# kernel's expected answer, and so is the one stack dump that follows
# each: an allocation-failure warning (or fault injection's own, at
# verbose 2), and the WARN_ON_ONCE with which
# event_define_fields() (kernel/trace/trace_events.c) meets -ENOMEM while
# the module loader adds the module's trace events; and a kobject that
# could not be added for -ENOMEM.  (kmemleak's reports
# are judged in the guest: tests/vm/guest-lib.sh.)
guest_log_bad() {
	awk '/tlbpath-fault-injection: begin/ { fi = 1 } /tlbpath-fault-injection: end/ { fi = 0 }
	     fi && /page allocation failure:|vmalloc error:|FAULT_INJECTION: forcing a failure/ { expected = 1 }
	     fi && /WARNING: CPU: [0-9]+ PID: [0-9]+ at kernel\/trace\/trace_events\.c:[0-9]+ event_define_fields/ { expected = 1; next }
	     fi && /kobject_add_internal failed for .* \(error: -12 / { next }
	     /Call Trace/ && expected { expected = 0; next }
	     /BUG:|WARNING:|INFO:|Oops|kernel BUG at|UBSAN:|general protection fault|Kernel panic|soft lockup|hard LOCKUP|detected stall|cannot create duplicate filename|kobject_add_internal failed|Call Trace/ {
		print NR ": " $0; bad = 1 }
	     END { exit !bad }' "$1"
}
