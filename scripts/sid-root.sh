#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sid-root.sh: a root of Debian's unstable suite (sid), made with
# debootstrap once per machine and kept outside the repository, holding
# the newest linux-headers-*-amd64 sid offers, the compiler and make those
# headers need, sid's dkms, and that kernel's vmlinuz.  The in-VM tests build tlbpath
# with this root's compiler (chroot) and boot this vmlinuz
# (tests/vm/debian-sid-*.t; scripts/vmlib.sh: SID_ROOT, find_kernel sid,
# kernel_root, build_in_root).  Prints the kernel release it holds.
#
#   TLBPATH_SID_ROOT        where the root lives (/var/cache/tlbpath/sid-root)
#   TLBPATH_SID_REFRESH_MIN look for a newer sid kernel at most this often
#                           (360 minutes); 0 looks every time
#
# The mirror is the one this machine's apt already uses: its URI is read
# from the configured sources, never written here.  A refresh that cannot
# reach it keeps the kernel the root already has (and says so).
set -euo pipefail

[ "$(id -u)" = 0 ] || { echo "sid-root: must run as root" >&2; exit 1; }

export DEBIAN_FRONTEND=noninteractive LC_ALL=C
ROOT=${TLBPATH_SID_ROOT:-/var/cache/tlbpath/sid-root}
REFRESH_MIN=${TLBPATH_SID_REFRESH_MIN:-360}
stamp=$ROOT/.tlbpath-refreshed

log() { echo "sid-root: $*" >&2; }

. "$(dirname "$0")/mirror.sh"

# Newest kernel release with headers in the root ("" if none).
root_kernel() {
	local k best=""
	for k in "$ROOT"/boot/vmlinuz-*-amd64; do
		[ -e "$k" ] || continue
		k=${k#"$ROOT"/boot/vmlinuz-}
		[ -e "$ROOT/lib/modules/$k/build/Makefile" ] || continue
		best=$(printf '%s\n%s\n' "$best" "$k" | sed '/^$/d' | sort -V | tail -n1)
	done
	echo "$best"
}

case $ROOT in
/?*) ;;
*) log "TLBPATH_SID_ROOT must be an absolute path below /"; exit 1 ;;
esac

mkdir -p "$(dirname "$ROOT")"
exec 9>"$ROOT.lock"
flock 9

# Once per machine: debootstrap sid, into a scratch directory first, so an
# interrupted run never leaves a half-made root behind.
if [ ! -e "$ROOT/.tlbpath-root" ]; then
	if [ -e "$ROOT" ] && [ -n "$(ls -A "$ROOT" 2>/dev/null)" ]; then
		log "$ROOT exists and was not made by sid-root.sh: not touching it"
		exit 1
	fi
	uri=$(mirror_uri)
	[ -n "$uri" ] || { log "no Debian mirror configured in apt"; exit 1; }
	if ! command -v debootstrap >/dev/null; then
		apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends debootstrap >/dev/null
	fi
	new=$ROOT.new
	rm -rf "$new"
	log "creating the sid root in $ROOT (once per machine)"
	t0=$(date +%s)
	debootstrap --variant=minbase --components=main sid "$new" "$uri" >"$ROOT.debootstrap.log" 2>&1 ||
		{ tail -n 20 "$ROOT.debootstrap.log" >&2; log "debootstrap failed"; exit 1; }
	# Nothing the build does not need: no documentation, manuals or locales.
	cat >"$new/etc/dpkg/dpkg.cfg.d/tlbpath-nodoc" <<'CFG'
path-exclude=/usr/share/doc/*
path-exclude=/usr/share/man/*
path-exclude=/usr/share/info/*
path-exclude=/usr/share/locale/*
CFG
	cat >"$new/etc/apt/apt.conf.d/90tlbpath" <<'CFG'
APT::Install-Recommends "false";
APT::Install-Suggests "false";
CFG
	touch "$new/.tlbpath-root"
	rmdir "$ROOT" 2>/dev/null || true
	mv "$new" "$ROOT"
	log "debootstrap took $(( $(date +%s) - t0 )) s"
fi

have=$(root_kernel)
# sid's own DKMS (tests/host/dkms-sid.t); a root made before it was needed
# gets it here, from the package lists it already has.
if [ -n "$have" ] && [ ! -x "$ROOT/usr/sbin/dkms" ]; then
	log "installing dkms in the sid root"
	cp -L /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true
	in_root "$ROOT" apt-get install -y -qq dkms >"$ROOT.install.log" 2>&1 ||
		{ tail -n 20 "$ROOT.install.log" >&2; log "installing dkms failed"; exit 1; }
fi
if [ -n "$have" ] && [ -e "$stamp" ] && [ "$REFRESH_MIN" != 0 ] &&
   [ -z "$(find "$stamp" -mmin +"$REFRESH_MIN")" ]; then
	echo "$have"
	exit 0
fi

cp -L /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true
# A mirror that lags (a snapshot, a stale cache) serves a sid Release whose
# Valid-Until has passed; apt then refuses it.  Only in that case, and
# saying so, is the date check dropped for this update.
update() {
	in_root "$ROOT" apt-get "$@" update -qq >"$ROOT.update.log" 2>&1 &&
		! grep -q '^[EW]: ' "$ROOT.update.log"
}
if ! update && grep -q 'is expired' "$ROOT.update.log"; then
	log "the mirror's sid Release has expired; updating without the Valid-Until check"
	update -o Acquire::Check-Valid-Until=false || true
fi
if grep -q '^E: ' "$ROOT.update.log"; then
	cat "$ROOT.update.log" >&2
	if [ -n "$have" ]; then
		log "cannot refresh; keeping $have"
		echo "$have"
		exit 0
	fi
	log "apt-get update failed in the sid root"
	exit 1
fi

# The newest flavourless amd64 kernel sid offers whose headers it offers too.
want=$(in_root "$ROOT" apt-cache search --names-only '^linux-headers-[0-9].*-amd64$' |
       awk '{ print $1 }' | sed -n 's/^linux-headers-\([0-9].*-amd64\)$/\1/p' |
       grep -Ev -- '-(rt|cloud)-amd64$' | sort -V |
       while read -r k; do
		in_root "$ROOT" apt-cache show --no-all-versions "linux-image-$k" >/dev/null 2>&1 && echo "$k"
       done | tail -n1)
[ -n "$want" ] || {
	[ -n "$have" ] || { log "sid offers no linux-headers-*-amd64"; exit 1; }
	log "sid offers no kernel now; keeping $have"; echo "$have"; exit 0; }

if [ "$want" != "$have" ]; then
	log "installing linux-headers-$want, gcc, make and dkms in the sid root"
	t0=$(date +%s)
	in_root "$ROOT" apt-get install -y -qq "linux-headers-$want" gcc make dkms >"$ROOT.install.log" 2>&1 ||
		{ tail -n 20 "$ROOT.install.log" >&2; log "installing linux-headers-$want failed"; exit 1; }
	# Only the kernel image itself is needed: the guest boots a busybox
	# initramfs and loads nothing but test modules.  So the image package
	# is unpacked, not installed (no initramfs is generated, no modules
	# land): linux-image-* and the linux-*-<release> packages it depends on,
	# but the modules.  Sid's kernels keep vmlinuz in /usr/lib/modules/<release>/
	# (older ones in /boot/); either way it is laid at /boot/vmlinuz-<release>.
	img=$ROOT/var/tmp/tlbpath-image
	rm -rf "$img"
	mkdir -p "$img"
	in_root "$ROOT" chown _apt /var/tmp/tlbpath-image 2>/dev/null || true	# apt's download user
	parts=$(in_root "$ROOT" apt-cache depends "linux-image-$want" |
		sed -n "s/^ *Depends: \(linux-[a-z]*-$want\)\$/\1/p" | grep -v '^linux-modules-' || true)
	in_root "$ROOT" sh -c "cd /var/tmp/tlbpath-image && apt-get download -qq linux-image-$want $(echo $parts)" \
		>"$ROOT.download.log" 2>&1 ||
		{ cat "$ROOT.download.log" >&2; log "downloading linux-image-$want failed"; exit 1; }
	for deb in "$img"/*.deb; do
		dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$img" --wildcards '*vmlinuz*' 2>/dev/null || true
	done
	vmlinuz=$(find "$img" -name 'vmlinuz*' -type f | head -n1)
	[ -n "$vmlinuz" ] || { log "no vmlinuz in linux-image-$want ${parts}"; exit 1; }
	mkdir -p "$ROOT/boot"
	cp "$vmlinuz" "$ROOT/boot/vmlinuz-$want"
	rm -rf "$img"
	[ -e "$ROOT/lib/modules/$want/build/Makefile" ] ||
		{ log "linux-headers-$want gave no build tree"; exit 1; }
	# Older sid kernels go: the harness only ever uses the newest.
	for k in "$ROOT"/boot/vmlinuz-*; do
		k=${k#"$ROOT"/boot/vmlinuz-}
		[ "$k" = "$want" ] && continue
		in_root "$ROOT" apt-get purge -y -qq "linux-headers-$k" >/dev/null 2>&1 || true
		rm -f "$ROOT"/boot/*-"$k"
	done
	in_root "$ROOT" apt-get autoremove --purge -y -qq >/dev/null 2>&1 || true
	in_root "$ROOT" apt-get clean
	log "sid kernel $want ready ($(( $(date +%s) - t0 )) s)"
fi
touch "$stamp"
echo "$want"
