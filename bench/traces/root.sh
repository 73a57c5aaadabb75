#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/traces/root.sh: the guest userland of the trace corpus, a Debian
# bookworm root made with debootstrap once per machine and kept outside
# the repository (TLBPATH_CORPUS_ROOT, /var/cache/tlbpath/corpus-root),
# holding the programs the corpus traces (bench/traces/README.md) and the
# compilers that build its workloads (Go, Java).  Rebuilt when the package
# list below changes.  Prints the root's path.
#
# The mirror is the one this machine's apt already uses (scripts/mirror.sh).
set -euo pipefail

[ "$(id -u)" = 0 ] || { echo "corpus-root: must run as root" >&2; exit 1; }

export DEBIAN_FRONTEND=noninteractive LC_ALL=C
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
ROOT=${TLBPATH_CORPUS_ROOT:-/var/cache/tlbpath/corpus-root}
SUITE=bookworm
# What the workloads run (bench/traces/workloads.txt) and build with.
PKGS=(python3 sqlite3 gcc libc6-dev redis-server redis-tools openjdk-17-jdk-headless
      nodejs golang-go xz-utils procps)

log() { echo "corpus-root: $*" >&2; }

. "$TOP/scripts/mirror.sh"

case $ROOT in
/?*) ;;
*) log "TLBPATH_CORPUS_ROOT must be an absolute path below /"; exit 1 ;;
esac

want="$SUITE ${PKGS[*]}"
mkdir -p "$(dirname "$ROOT")"
exec 9>"$ROOT.lock"
flock 9

if [ -e "$ROOT/.tlbpath-corpus-root" ] && [ "$(cat "$ROOT/.tlbpath-corpus-root")" = "$want" ]; then
	echo "$ROOT"
	exit 0
fi
if [ -e "$ROOT" ] && [ ! -e "$ROOT/.tlbpath-corpus-root" ] && [ -n "$(ls -A "$ROOT" 2>/dev/null)" ]; then
	log "$ROOT exists and was not made by root.sh: not touching it"
	exit 1
fi

uri=$(mirror_uri)
[ -n "$uri" ] || { log "no Debian mirror configured in apt"; exit 1; }
if ! command -v debootstrap >/dev/null; then
	apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends debootstrap >/dev/null
fi
# Made in a scratch directory first, so an interrupted run never leaves a
# half-made root behind.
new=$ROOT.new
rm -rf "$new"
log "creating the corpus root ($SUITE) in $ROOT"
t0=$(date +%s)
debootstrap --variant=minbase --components=main "$SUITE" "$new" "$uri" >"$ROOT.debootstrap.log" 2>&1 ||
	{ tail -n 20 "$ROOT.debootstrap.log" >&2; log "debootstrap failed"; exit 1; }
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
# No service starts in the chroot (redis-server's postinst would try).
printf '#!/bin/sh\nexit 101\n' >"$new/usr/sbin/policy-rc.d"
chmod +x "$new/usr/sbin/policy-rc.d"
cp -L /etc/resolv.conf "$new/etc/resolv.conf" 2>/dev/null || true
log "installing ${PKGS[*]}"
in_root "$new" sh -c "apt-get update -qq && apt-get install -y -qq ${PKGS[*]} && apt-get clean" \
	>"$ROOT.install.log" 2>&1 ||
	{ tail -n 20 "$ROOT.install.log" >&2; log "installing the packages failed"; exit 1; }
# shellcheck disable=SC2016
in_root "$new" dpkg-query -W -f='${Package} ${Version}\n' >"$new/.tlbpath-packages"
echo "$want" >"$new/.tlbpath-corpus-root"
rm -rf "$ROOT"
mv "$new" "$ROOT"
log "root ready ($(( $(date +%s) - t0 )) s, $(du -sm "$ROOT" | cut -f1) MiB)"
echo "$ROOT"
