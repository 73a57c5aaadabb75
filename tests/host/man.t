#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The man pages say what the code and the ABI document say: tlbpath(4)
# lists exactly the sysfs files of Documentation/ABI/testing/
# sysfs-kernel-tlbpath and exactly the module's parameters, the tools'
# pages every option their usage lines name, and man renders all three
# without a warning.  TLBPATH_TOP points it at another tree (a mutant).
set -uo pipefail
. "$(dirname "$0")/../../scripts/vmlib.sh"
top=${TLBPATH_TOP:-$TOP}

echo "1..7"
n=0
# same DESCRIPTION LEFT RIGHT: two sorted lists, equal, or the difference.
same() {
	n=$((n + 1))
	if [ -n "$2" ] && [ "$2" = "$3" ]; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1"
		diff <(echo "$2") <(echo "$3") | grep '^[<>]' | sed 's/^/# /'
	fi
}

# The terms (.B/.BI right after .TP or .TQ) of one section of a man page.
section() {
	awk -v s="$2" '/^\.SH / { on = ($0 == ".SH " s) }
		on && term && /^\.BI? / { print $2 }
		{ term = /^\.T[PQ]$/ }' "$1"
}

abi=$(sed -n 's,^What:[[:space:]]*/sys/kernel/tlbpath/,,p' \
	"$top/Documentation/ABI/testing/sysfs-kernel-tlbpath" | sort -u)
man=$(section "$top/man/tlbpath.4" 'SYSFS FILES' | sort -u)
same "tlbpath(4) documents the sysfs files the ABI document does (ABI < > man)" "$abi" "$man"

params=$(cat "$top"/src/*.c | sed -n 's/^module_param[a-z_]*(\([a-z_0-9]*\),.*/\1/p' | sort -u)
man=$(section "$top/man/tlbpath.4" PARAMETERS | sed 's/=.*//' | sort -u)
same "tlbpath(4) documents the module's parameters (src < > man)" "$params" "$man"

# Options in the tools' usage lines, and the page's .B/.BI option lines.
opts() { grep -o -- ' \[\?-[-a-zA-Z]*' | tr -d ' [' | sort -u; }
manopts() { section "$1" OPTIONS | sed 's/\\-/-/g' | sort -u; }
same "tlbpath-stat(8) documents the options its usage names" \
	"$(sed -n '/^usage()/,/^}/p' "$top/tools/tlbpath-stat" | grep -v -- '--help' | opts)" \
	"$(manopts "$top/man/tlbpath-stat.8")"

same "tlbpath-probe(8) documents the options its usage names" \
	"$(sed -n '/^static const char usage\[\]/,/;$/p' "$top/tools/tlbpath-probe.c" |
	   grep '^"\(usage:\| \)' | head -n 2 | opts)" \
	"$(manopts "$top/man/tlbpath-probe.8")"

same "the tracepoint tlbpath(4) names is the module's" \
	"$(sed -n 's/^#define TRACE_SYSTEM //p' "$top/src/trace.h"):$(sed -n 's/^TRACE_EVENT(\([a-z_]*\),.*/\1/p' "$top/src/trace.h")" \
	"$(sed -n '/^\.SH TRACEPOINT/,/^\.SH/s/^\.B \([a-z_]*:[a-z_]*\)$/\1/p' "$top/man/tlbpath.4")"

n=$((n + 1))
warn=$(for f in "$top"/man/*.[48]; do
	LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z "$f" 2>&1 >/dev/null |
		sed "s,^,$(basename "$f"): ,"
done)
if [ -z "$warn" ] && command -v man >/dev/null; then
	echo "ok $n - man --warnings renders every page silently"
else
	echo "not ok $n - man --warnings renders every page silently"
	echo "${warn:-no man command}" | sed 's/^/# /'
fi

# The dry run's output is read whole: grep -q on a pipe would exit at its
# match, and under pipefail make's SIGPIPE on the next line fails the test.
n=$((n + 1))
dry=$(make -s -C "$top" -n install-tools DESTDIR=/nonexistent PREFIX=/usr 2>/dev/null)
if grep -q 'man8/tlbpath-stat.8' <<<"$dry" && grep -q 'man8/tlbpath-probe.8' <<<"$dry" &&
	grep -qx 'man/tlbpath.4' "$top/debian/tlbpath-dkms.manpages"; then
	echo "ok $n - make install-tools installs the tools' pages, tlbpath-dkms carries tlbpath(4)"
else
	echo "not ok $n - make install-tools installs the tools' pages, tlbpath-dkms carries tlbpath(4)"
fi
