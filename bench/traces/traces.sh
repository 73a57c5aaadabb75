#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/traces/traces.sh (make traces): record the trace corpus, real
# programs traced in a QEMU guest by tlbtrace-plugin (README.md beside
# this file), into TRACES_CACHE, and write into the repository only what
# is small: corpus.tsv (each trace's SHA-256 and statistics) and
# corpus-env.txt (what recorded them).
#
# Needs root (debootstrap, apt).  Installs what it lacks: bookworm-
# backports' QEMU 10 unpacked under QEMU10_DIR (the host's QEMU stays),
# the plugin API header from Debian's qemu source package, libglib2.0-dev,
# the corpus root (root.sh).  One guest at a time.
#
#   TRACES="python3 go"   only these workloads (default: all of workloads.tsv)
#   FORCE=1               record even where the cached trace matches corpus.tsv
#   TRACES_CACHE          /var/cache/tlbpath/traces
#   QEMU10_DIR            /var/cache/tlbpath/qemu-10
#   TRACE_LIMIT           stop recording a guest after this many accesses (100000000);
#                         a workload that reaches it fails
#   KEEP_RAW=1            keep the plugin's logs (RAW/NAME.raw) beside the traces
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
CACHE=${TRACES_CACHE:-/var/cache/tlbpath/traces}
Q10=${QEMU10_DIR:-/var/cache/tlbpath/qemu-10}
LIMIT=${TRACE_LIMIT:-100000000}
BUILD=$TOP/build/traces
TSV=$HERE/corpus.tsv
ENVF=$HERE/corpus-env.txt
export DEBIAN_FRONTEND=noninteractive LC_ALL=C

say() { echo "traces: $*" >&2; }
die() { say "$*"; exit 1; }

[ "$(id -u)" = 0 ] || die "must run as root (debootstrap, apt, the root's chroot)"
. "$TOP/scripts/mirror.sh"
. "$TOP/scripts/vmlib.sh"

apt_install() {
	apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "$@" \
		>"$CACHE/apt.log" 2>&1 || { tail -n 20 "$CACHE/apt.log" >&2; die "apt-get install $* failed"; }
}

mkdir -p "$CACHE" "$BUILD"

# ---- QEMU 10 from bookworm-backports, unpacked beside the host's QEMU ----
qemu10() {
	local ver tmp d uri
	[ -x "$Q10/usr/bin/qemu-system-x86_64" ] && [ -e "$Q10/include/qemu-plugin.h" ] && return
	ver=$(apt-cache madison qemu-system-x86 | awk -F'|' '$3 ~ /backports/ { gsub(/ /, "", $2); print $2; exit }')
	[ -n "$ver" ] || die "no qemu-system-x86 in bookworm-backports (make deps adds the suite)"
	case $ver in 1:1[0-9].*) ;; *) die "backports offers QEMU $ver: the plugin needs 10 or newer" ;; esac
	say "unpacking QEMU $ver into $Q10 (the host's QEMU stays)"
	tmp=$(mktemp -d)
	chmod 755 "$tmp"
	(cd "$tmp" && apt-get download -qq "qemu-system-x86=$ver" "qemu-system-common=$ver" \
		"qemu-system-data=$ver" 2>"$tmp/err") || { cat "$tmp/err" >&2; die "apt-get download failed"; }
	rm -rf "$Q10.new"
	mkdir -p "$Q10.new/include"
	for d in "$tmp"/*.deb; do
		dpkg-deb -x "$d" "$Q10.new"
	done
	# The plugin API header is in no binary package: Debian's source
	# package, through apt with a private source list (nothing is added
	# to this machine's apt sources).
	uri=$(mirror_uri)
	[ -n "$uri" ] || die "no Debian mirror configured in apt"
	d=$Q10.new/apt-src
	mkdir -p "$d/lists/partial" "$d/cache" "$d/src"
	printf 'Types: deb-src\nURIs: %s\nSuites: bookworm-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
		"$uri" >"$d/src.sources"
	local A=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$d"
		 -o "Dir::State::Lists=$d/lists" -o "Dir::Cache=$d/cache")
	apt-get "${A[@]}" update -qq >"$d/update.log" 2>&1 || { cat "$d/update.log" >&2; die "apt-get update (deb-src) failed"; }
	# Only the upstream tarball is needed; a mirror without the Debian
	# part of the source package still serves it (apt checks its hash).
	(cd "$d/src" && apt-get "${A[@]}" source --download-only -qq "qemu=$ver" >"$d/source.log" 2>&1) || true
	local orig
	orig=$(find "$d/src" -maxdepth 1 -name 'qemu_*.orig.tar.*' | head -n1)
	[ -n "$orig" ] || { cat "$d/source.log" >&2; die "no qemu source tarball for $ver"; }
	tar -xf "$orig" -C "$d/src" --wildcards '*/include/qemu/qemu-plugin.h'
	cp "$d"/src/*/include/qemu/qemu-plugin.h "$Q10.new/include/"
	rm -rf "$d/src" "$tmp"
	echo "$ver" >"$Q10.new/version"
	rm -rf "$Q10"
	mv "$Q10.new" "$Q10"
}

# ---- the tools: plugin, tpctl (guest), tpsplit, tlbtrace ----
build_tools() {
	pkg-config --exists glib-2.0 2>/dev/null || apt_install libglib2.0-dev pkg-config
	# shellcheck disable=SC2046
	gcc -shared -fPIC -O2 -g -Wall -Wextra -Werror $(pkg-config --cflags glib-2.0) \
		-I"$Q10/include" -I"$TOP/include" -o "$BUILD/tlbtrace-plugin.so" "$HERE/tlbtrace-plugin.c"
	gcc -static -O2 -Wall -Wextra -Werror -I"$TOP/include" -o "$BUILD/tpctl" "$HERE/tpctl.c"
	gcc -O2 -Wall -Wextra -Werror -I"$TOP/include" -I"$TOP/bench/tlbsim" -o "$BUILD/tpsplit" \
		"$HERE/tpsplit.c" "$TOP/bench/tlbsim/tracebin.c" -lz
	make -s -C "$TOP/bench/tlbsim" >/dev/null
}

# ---- the guest: the corpus root with the workloads, as an initramfs ----
# Left out: what no workload runs (the Go toolchain, the JDK's jmods, apt's lists).
EXCLUDE=(./usr/lib/go-1.19 ./usr/share/go-1.19 ./var/lib/apt ./var/cache/apt
	 ./usr/lib/jvm/java-17-openjdk-amd64/jmods ./usr/share/doc ./usr/share/man)

guest_image() {
	local root=$1 opt=$1/opt/tlbtrace sum prune=() e
	rm -rf "$opt"
	mkdir -p "$opt/workloads" "$opt/cc"
	cp "$BUILD/tpctl" "$HERE/guest-run.sh" "$opt/"
	cp "$HERE/guest-init.sh" "$root/init"
	cp "$HERE"/workloads/* "$opt/workloads/"
	cp "$TOP/bench/tlbsim/tiny.c" "$opt/cc/"
	in_root "$root" sh -c 'cd /opt/tlbtrace/workloads &&
		javac -d . Churn.java &&
		HOME=/tmp GOCACHE=/tmp/go-cache CGO_ENABLED=0 go build -trimpath -o scavenge scavenge.go &&
		rm -rf /tmp/go-cache' >"$CACHE/build.log" 2>&1 ||
		{ cat "$CACHE/build.log" >&2; die "building the workloads in the root failed"; }
	# Every file and its name, in a fixed order, with fixed dates: the
	# same image for the same root and workloads.
	for e in "${EXCLUDE[@]}"; do
		prune+=(-path "$e" -prune -o)
	done
	sum=$( (cd "$root" && find . "${prune[@]}" -print | sort) | sha256sum | cut -c1-16)
	IMAGE_ID=$( (cat "$root/.tlbpath-packages" "$root/init" &&
		     find "$opt" -type f | sort | xargs cat) | sha256sum | cut -c1-16)-$sum
	IMAGE=$CACHE/guest-$IMAGE_ID.cpio
	[ -s "$IMAGE" ] && return
	rm -f "$CACHE"/guest-*.cpio
	say "packing the guest image ($IMAGE)"
	(cd "$root" && find . "${prune[@]}" -print | sort |
		cpio -o -H newc --quiet --reproducible >"$IMAGE.new") || die "cpio failed"
	mv "$IMAGE.new" "$IMAGE"
}

# ---- one recording ----
record() {	# record NAME COMM VCPUS
	local name=$1 comm=$2 vcpus=$3 raw log t0 t1
	raw=$CACHE/$name.raw
	log=$CACHE/$name.console
	rm -f "$raw" "$log"
	say "recording $name (${vcpus} vCPUs)"
	t0=$(date +%s)
	timeout 3600 "$Q10/usr/bin/qemu-system-x86_64" -L "$Q10/usr/share/qemu" -L /usr/share/qemu \
		-M pc -accel tcg,thread=single -icount shift=0,sleep=off -seed 1 \
		-rtc base=2024-01-01T00:00:00,clock=vm -smp "$vcpus" -m 4G -cpu max,la57=off \
		-kernel "$VMLINUZ" -initrd "$IMAGE" \
		-append "console=ttyS0 rdinit=/init nokaslr pti=off panic=-1 quiet tlbtrace.workload=$name" \
		-display none -monitor none -no-reboot -nic none -serial "file:$log" \
		-plugin "$BUILD/tlbtrace-plugin.so,out=$raw,limit=$LIMIT" -d plugin -D "$CACHE/$name.plugin" \
		2>"$CACHE/$name.qemu" || { tail -n 5 "$CACHE/$name.qemu" >&2; say "$name: QEMU failed"; return 1; }
	t1=$(date +%s)
	if ! grep -q "^tlbtrace-guest: $name exit 0" "$log"; then
		tail -n 30 "$log" >&2
		say "$name: the workload failed in the guest (log $log)"
		return 1
	fi
	if grep -q 'accesses' "$CACHE/$name.plugin" &&
	   [ "$(sed -n 's/^tlbtrace-plugin: \([0-9]*\) accesses.*/\1/p' "$CACHE/$name.plugin")" = "$LIMIT" ]; then
		say "$name: stopped at TRACE_LIMIT=$LIMIT accesses: the workload is too long"
		return 1
	fi
	TASKS=$("$BUILD/tpsplit" -c "$comm" -o "$CACHE/$name.tbt.new" \
		-C " corpus trace $name: $(sed -n "s/^$name\t[^\t]*\t[^\t]*\t//p" "$HERE/workloads.tsv")" \
		"$raw" | cut -f7) || { say "$name: tpsplit failed"; return 1; }
	mv "$CACHE/$name.tbt.new" "$CACHE/$name.tbt"
	[ "${KEEP_RAW:-0}" = 1 ] || rm -f "$raw"
	SECONDS_TAKEN=$((t1 - t0))
	say "$name: $(tr -d '\n' <"$CACHE/$name.plugin"), ${SECONDS_TAKEN} s"
}

start=$(date +%s)
qemu10
build_tools
ROOT=$("$HERE/root.sh")
KREL=$(find_kernel 6.1)
[ -n "$KREL" ] || die "Debian's 6.1 kernel is not installed (make deps)"
VMLINUZ=$(kernel_image "$KREL")
guest_image "$ROOT"

env_now=$(printf 'kernel %s\nqemu %s\nroot %s\nimage %s\n' "$KREL" "$(cat "$Q10/version")" \
	"$(sha256sum <"$ROOT/.tlbpath-packages" | cut -c1-16)" "$IMAGE_ID")
header=$(printf 'name\tcomm\tvcpus\tsha256\tbytes\t%s\ttasks\trecord_s' \
	"$("$TOP/bench/tlbsim/build/tlbtrace" stats -T | cut -f2-)")
old=$(mktemp)
trap 'rm -f "$old"' EXIT
[ -f "$TSV" ] && cp "$TSV" "$old"
same_env=0
[ -f "$ENVF" ] && [ "$(grep -v '^#' "$ENVF")" = "$env_now" ] && same_env=1

rows=()
failed=()
while IFS=$'\t' read -r name comm vcpus _; do
	case $name in ''|'#'*) continue ;; esac
	if [ -n "${TRACES:-}" ] && ! [[ " $TRACES " = *" $name "* ]]; then
		row=$(awk -F'\t' -v n="$name" '$1 == n' "$old")
		[ -n "$row" ] && rows+=("$row")
		continue
	fi
	want=$(awk -F'\t' -v n="$name" '$1 == n { print $4 }' "$old")
	have=""
	[ -f "$CACHE/$name.tbt" ] && have=$(sha256sum <"$CACHE/$name.tbt" | cut -d' ' -f1)
	if [ "${FORCE:-0}" != 1 ] && [ "$same_env" = 1 ] && [ -n "$want" ] && [ "$have" = "$want" ]; then
		say "$name: cached, checksum as in corpus.tsv"
		rows+=("$(awk -F'\t' -v n="$name" '$1 == n' "$old")")
		continue
	fi
	if ! record "$name" "$comm" "$vcpus"; then
		failed+=("$name")
		row=$(awk -F'\t' -v n="$name" '$1 == n' "$old")
		[ -n "$row" ] && rows+=("$row")
		continue
	fi
	sum=$(sha256sum <"$CACHE/$name.tbt" | cut -d' ' -f1)
	if [ -n "$want" ]; then
		if [ "$sum" = "$want" ]; then
			say "$name: the same checksum as corpus.tsv's"
		else
			say "$name: checksum differs from corpus.tsv's ($([ "$same_env" = 1 ] &&
				echo "same kernel, QEMU, root and image: another host's recording?" ||
				echo "another kernel, QEMU, root or image"))"
		fi
	fi
	stats=$("$TOP/bench/tlbsim/build/tlbtrace" stats -t "$name" "$CACHE/$name.tbt" | cut -f2-) ||
		die "$name: tlbtrace stats failed"
	rows+=("$(printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s' "$name" "$comm" "$vcpus" "$sum" \
		"$(stat -c %s "$CACHE/$name.tbt")" "$stats" "$TASKS" "$SECONDS_TAKEN")")
done <"$HERE/workloads.tsv"

{
	echo "$header"
	printf '%s\n' "${rows[@]}"
} >"$TSV"
{
	echo "# What recorded corpus.tsv's traces (bench/traces/traces.sh); the same"
	echo "# lines and the same command give the same checksums."
	echo "$env_now"
} >"$ENVF"
say "corpus.tsv: ${#rows[@]} traces in $CACHE ($(( $(date +%s) - start )) s)"
[ ${#failed[@]} = 0 ] || die "failed: ${failed[*]} (their rows in corpus.tsv are the old ones)"
