# SPDX-License-Identifier: GPL-2.0
# Shared by the QEMU harness scripts: pick a Debian kernel, build tlbpath for
# it, pack a busybox initramfs, boot it under TCG.  Source, don't run.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}

die() { echo "$*" >&2; exit 1; }

# Debian's unstable suite (sid): a debootstrap root outside the tree,
# made once per machine by scripts/sid-root.sh (make deps), holding sid's
# newest kernel (boot/vmlinuz-<release>), its headers, and the compiler
# those headers need.  Modules for it are built in that root (chroot).
SID_ROOT=${TLBPATH_SID_ROOT:-/var/cache/tlbpath/sid-root}

# Newest installed Debian kernel of a series ("6.1", "6.12") with headers;
# "sid": the newest kernel of the sid root.
find_kernel() {
	local series=$1 root="" pat k best=""
	if [ "$series" = sid ]; then
		root=$SID_ROOT pat='*-amd64'
	else
		pat="$series.*-amd64"
	fi
	for k in "$root"/boot/vmlinuz-$pat; do
		[ -e "$k" ] || continue
		k=${k#"$root"/boot/vmlinuz-}
		[ -d "$root/lib/modules/$k/build" ] || continue
		best=$(printf '%s\n%s\n' "$best" "$k" | sed '/^$/d' | sort -V | tail -n1)
	done
	echo "$best"
}

# Where kernel $1 and its headers live: "" (this host) or the sid root.
kernel_root() {
	if [ ! -d "/lib/modules/$1/build" ] && [ -d "$SID_ROOT/lib/modules/$1/build" ]; then
		echo "$SID_ROOT"
	fi
}

# The Debian kernels the tests cover that are installed with headers.
installed_kernels() {
	local s
	for s in 6.1 6.12; do
		find_kernel "$s"
	done | sed '/^$/d'
}

# The build tree of kernel $1, and what make needs besides to build for
# it (vmlib-arm64.sh sets both for its cross builds).
kdir_of() { echo "/lib/modules/$1/build"; }
KMAKE_ARGS=${KMAKE_ARGS:-}

# build_kmod KVER NAME PATH...: build the module whose Kbuild and sources
# are PATH... (copied, so each kernel gets its own build) with W=1; any
# warning fails.  Prints the .ko's path.
build_kmod() {
	local kver=$1 name=$2 dir="$BUILD/$1/$2"
	shift 2
	rm -rf "$dir"
	mkdir -p "$dir"
	cp -r "$@" "$dir/"
	if [ -n "$(kernel_root "$kver")" ]; then
		build_in_root "$(kernel_root "$kver")" "$kver" "$dir" ||
			{ cat "$dir/build.log" >&2; return 1; }
	else
		make -s -C "$(kdir_of "$kver")" M="$dir" W=1 $KMAKE_ARGS \
			TLBPATH_VERSION="$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$TOP/dkms.conf")" \
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
# inside ROOT, the .ko files copied back), W=1, log in DIR/build.log.
build_in_root() {
	local root=$1 kver=$2 dir=$3 rel rc
	rel=/var/tmp/tlbpath-build.$$.$(basename "$dir")
	rm -rf "$root$rel"
	mkdir -p "$root$rel"
	cp -r "$dir"/. "$root$rel/"
	run_in_root "$root" make -s -C "/lib/modules/$kver/build" M="$rel" W=1 \
		TLBPATH_VERSION="$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$TOP/dkms.conf")" \
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

# The test-only modules (tests/vm/*/Kbuild), never part of tlbpath.
build_test_modules() {
	local kver=$1 d
	for d in "$TOP"/tests/vm/*/Kbuild; do
		d=$(dirname "$d")
		build_kmod "$kver" "test-$(basename "$d")" "$d"/. || return 1
	done
}

# Static guest programs (bench workloads and test helpers).
build_guest_programs() {
	local out="$BUILD/guest-bin" src
	mkdir -p "$out"
	for src in "$TOP"/bench/*.c "$TOP"/tests/vm/*.c; do
		[ -e "$src" ] || continue
		local bin="$out/$(basename "${src%.c}")"
		if [ ! -e "$bin" ] || [ "$src" -nt "$bin" ]; then
			gcc -static -O2 -Wall -Wextra -Werror -pthread -o "$bin" "$src" || return 1
		fi
	done
	gcc -static -O2 -Wall -Wextra -Werror -I"$TOP/include" -o "$out/tlbpath-geometry" \
		"$TOP/tools/tlbpath-geometry.c" "$TOP/src/geometry.c" || return 1
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

# The options of the kernel module KO was built for that the guest tests
# ask about (/kconfig in the guest).
kconfig_of() {
	local kver
	kver=$(modinfo -F vermagic "$1" | cut -d' ' -f1)
	grep -E '^CONFIG_(BROADCAST_TLB_FLUSH|X86_KERNEL_IBT|PAGE_TABLE_ISOLATION)=' \
		"$(kernel_root "$kver")/lib/modules/$kver/build/.config" || true
}

# make_initramfs OUT.cpio.gz KO GUEST_SCRIPT [extra files...]
# The guest runs GUEST_SCRIPT as /run-tests with tests/vm/guest-lib.sh beside.
make_initramfs() {
	local out=$1 ko=$2 script=$3 root bins
	shift 3
	root=$(mktemp -d)
	mkdir -p "$root"/{bin,sbin,proc,sys,dev,tmp,mnt,root,etc}
	cp "${GUEST_BUSYBOX:-/bin/busybox}" "$root/bin/busybox"
	bins=$(build_guest_programs) || return 1
	cp "$bins"/* "$TOP/tools/tlbpath-stat" "$root/bin/"
	cp "$ko" "$root/"
	kconfig_of "$ko" >"$root/kconfig"
	[ -z "${TLBPATH_EXTRA_KO:-}" ] || cp $TLBPATH_EXTRA_KO "$root/"
	# A tree laid over the root as is (the benchmarks' stress-ng and its libraries).
	[ -z "${TLBPATH_EXTRA_ROOT:-}" ] || cp -a "$TLBPATH_EXTRA_ROOT"/. "$root/"
	cp "$TOP/tests/vm/guest-lib.sh" "$root/guest-lib.sh"
	cp "$script" "$root/run-tests"
	[ $# -eq 0 ] || cp "$@" "$root/"
	cat >"$root/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing
export PATH=/bin:/sbin
cd /
sh /run-tests >/dev/ttyS1 2>&1
echo "tlbpath-guest: done" >/dev/ttyS1
sync
poweroff -f
INIT
	# vmlib-arm64.sh adapts /init to its guest.
	[ -z "${GUEST_INIT_HOOK:-}" ] || "$GUEST_INIT_HOOK" "$root" || return 1
	chmod +x "$root/init" "$root/run-tests"
	(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$out"
	rm -rf "$root"
}

# boot KVER INITRAMFS CONSOLE_LOG OUTPUT_LOG [SMP]
# Console (kernel log) and the guest's output go to separate serial ports,
# so kernel messages can never split a result line.  VM_CPU (default max)
# picks QEMU's CPU model, VM_MEM (default 1G) the guest's memory,
# VM_ICOUNT=1 makes guest time count instructions (single-threaded TCG).
boot() {
	local kver=$1 initrd=$2 console=$3 output=$4 smp=${5:-2} thread
	# One host thread runs all vCPUs in turn (single-threaded TCG) unless
	# VM_TCG_THREAD says otherwise.  Under multi-threaded TCG, Debian's
	# kernels now and then die in live text patching ("Oops: int3", or a
	# vCPU looping in exc_int3 on a patched site): sid's 7.2 while booting,
	# before any module is loaded, in 2 boots of 11 here, and 6.1 right
	# after a CPU came back online; single-threaded, neither ever did.  The
	# vCPUs still interleave and keep TLBs of their own, so the stale-TLB
	# detector still catches a narrowed flush (the dropflush mutant).  The
	# benchmarks keep multi-threaded TCG: they time vCPUs running at once.
	thread=${VM_TCG_THREAD:-single}
	# VM_ICOUNT=1: the guest's clock counts instructions, one per ns.
	guest_run "$console" "$output" qemu-system-x86_64 \
		-accel tcg,thread="$thread" -smp "$smp" -m "${VM_MEM:-1G}" -cpu "${VM_CPU:-max}" \
		${VM_ICOUNT:+-icount shift=0,sleep=off} \
		-kernel "$(kernel_root "$kver")/boot/vmlinuz-$kver" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 oops=panic" \
		-display none -monitor none -no-reboot \
		-serial "file:$console" -serial "file:$output"
}

# guest_run CONSOLE_LOG OUTPUT_LOG QEMU_COMMAND...
# Run QEMU for at most VM_TIMEOUT seconds (default 600).  A kernel that
# has not started /init within VM_BOOT_TIMEOUT seconds (default 240; a
# boot takes 3-10 s here) is stopped and booted again, VM_BOOT_TRIES
# times in all (default 3), each try said on stdout and its console log
# kept as CONSOLE_LOG.hungN.  Such a hang comes before the guest's
# /init has loaded any module, so it cannot be tlbpath's: sid's 7.2 with
# 4 vCPUs once stopped for good 0.9 s into its boot, after "HugeTLB:",
# in a CI run, and never in 160 boots here.  So is an /init that dies
# before the guest's script printed anything (kept as CONSOLE_LOG.diedN).
# A guest that hangs or dies later is never retried.
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
		# /init died before the guest's script wrote a line: nothing of
		# tlbpath ran yet (arm64's 6.12 under cortex-a57, once in 9 boots).
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

# Lines that mean the guest kernel is unhappy.
guest_log_bad() {
	grep -nE 'BUG:|WARNING:|Oops|Call Trace|Kernel panic|soft lockup|self-detected stall|rcu_sched detected stall' "$1"
}
