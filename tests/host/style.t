#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Kernel coding style: checkpatch.pl --strict, from Debian's linux-source-6.1,
# must report nothing on the module's and the tools' C sources.
set -uo pipefail
. "$(dirname "$0")/../../scripts/vmlib.sh"

tarball=$(ls /usr/src/linux-source-6.1.tar.xz 2>/dev/null)
if [ -z "$tarball" ]; then
	echo "1..0 # SKIP linux-source-6.1 is not installed (make deps)"
	exit 0
fi
dir="$BUILD/checkpatch"
if [ ! -x "$dir/linux-source-6.1/scripts/checkpatch.pl" ] || [ "$tarball" -nt "$dir/stamp" ]; then
	mkdir -p "$dir"
	tar -C "$dir" -xJf "$tarball" linux-source-6.1/scripts/checkpatch.pl \
		linux-source-6.1/scripts/spelling.txt \
		linux-source-6.1/scripts/const_structs.checkpatch && touch "$dir/stamp"
fi

cd "$TOP"
files=$(git ls-files 'src/*.[ch]' 'include/*.h' 'tools/*.c' 'tests/vm/*/*.[ch]' 'tests/debug/*.c' 'tests/debug/*/*.[ch]' \
	'bench/traces/*.c')
echo "1..$(echo "$files" | wc -w)"
n=0
for f in $files; do
	n=$((n + 1))
	# TRACE_EVENT's layout trips two layout checks, in the kernel's own
	# include/trace/events/*.h as well; everything else is checked there too.
	ignore=
	[ "$f" = src/trace.h ] && ignore="--ignore PARENTHESIS_ALIGNMENT,OPEN_ENDED_LINE"
	# The QEMU plugin API's types are glib's (GHashTable, GByteArray).
	[ "$f" = bench/traces/tlbtrace-plugin.c ] && ignore="--ignore CAMELCASE"
	out=$("$dir/linux-source-6.1/scripts/checkpatch.pl" --no-tree --strict --terse $ignore \
		-f "$f" 2>&1 | grep -v '^total:')
	if [ -z "$out" ]; then
		echo "ok $n - checkpatch --strict $f"
	else
		echo "not ok $n - checkpatch --strict $f"
		echo "$out" | sed 's/^/# /'
	fi
done
