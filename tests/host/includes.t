#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The module's files include each other one way (Documentation/design.md,
# "Source layout"): a .c file depends on the .c file of each header it
# includes (foo.h, tlbpath/foo.h: foo.c), and no chain of those comes back
# to where it started.  tsort(1) finds any loop.  TLBPATH_TOP points it at
# another tree (its mutant: a header include that closes a loop).
set -uo pipefail
top=${TLBPATH_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$top" || exit 1

echo "1..2"
edges=$(for c in src/*.c; do
	from=$(basename "$c" .c)
	sed -n 's/^#include "\(tlbpath\/\)\{0,1\}\([a-z0-9_]*\)\.h"$/\2/p' "$c" | sort -u |
	while read -r h; do
		[ "$h" != "$from" ] && [ -e "src/$h.c" ] && echo "$from $h"
	done
done)
n=$(echo "$edges" | grep -c .)
if loops=$(echo "$edges" | tsort 2>&1 >/dev/null) && [ -z "$loops" ]; then
	echo "ok 1 - src/: $n includes between files, none in a loop"
else
	echo "not ok 1 - src/: an include loop"
	echo "$loops" | sed 's/^/# /'
fi

# The check can fail: the same graph with one edge that closes a loop.
if echo "$edges"$'\n'"$(echo "$edges" | head -n 1 | awk '{ print $2, $1 }')" | tsort >/dev/null 2>&1; then
	echo "not ok 2 - tsort missed the loop of a reversed include"
else
	echo "ok 2 - a reversed include makes a loop, and tsort says so"
fi
