#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tlbpath-geometry on real CPUID dumps: the pinned cases (fixtures under
# tests/unit/cpuid, always) and, when ../shared/cpuid is there, every dump
# of the corpus must parse, and the fixtures must give what the full dumps do.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tool=$top/tools/tlbpath-geometry
fix=$top/tests/unit/cpuid
corpus=${TLBPATH_CPUID_CORPUS:-$top/../shared/cpuid}

[ -x "$tool" ] || { echo "1..0 # SKIP $tool not built (make tools)"; exit 0; }

pinned=$(grep -v '^#' "$fix/expected.txt")
dumps=()
[ -d "$corpus" ] && dumps=("$corpus"/*.raw)
echo "1..$(( $(echo "$pinned" | wc -l) * 2 + ${#dumps[@]} + 1 ))"

n=0
while read -r file want; do
	cpu=${want%% *}
	got=$("$tool" "$fix/$file.raw" | grep "^$cpu ")
	n=$((n + 1))
	if [ "$got" = "$want" ]; then
		echo "ok $n - $file $cpu"
	else
		echo "not ok $n - $file $cpu"
		echo "#   got:  $got"
		echo "#   want: $want"
	fi
	n=$((n + 1))
	if [ ${#dumps[@]} = 0 ]; then
		echo "ok $n - # SKIP $file: $corpus absent"
	elif full=$("$tool" "$corpus/$file.raw" | grep "^$cpu ") && [ "$full" = "$want" ]; then
		echo "ok $n - $file $cpu: the full dump agrees with the fixture"
	else
		echo "not ok $n - $file $cpu: the full dump agrees with the fixture"
		echo "#   full dump: ${full:-nothing}"
	fi
done <<< "$pinned"

for d in "${dumps[@]}"; do
	n=$((n + 1))
	sections=$(grep -cE '^ *CPU( [0-9]+)?:' "$d")
	if out=$("$tool" "$d" 2>&1) &&
	   [ "$(echo "$out" | grep -cE '^cpu=[0-9]+ source=(leaf18|leaf2|amd|none)( [a-z0-9_]+=[0-9]+){8}$')" = "$sections" ]; then
		echo "ok $n - $(basename "$d"): $sections CPUs parsed"
	else
		echo "not ok $n - $(basename "$d") parses ($sections CPU sections)"
		echo "$out" | head -n 3 | sed 's/^/#   /'
	fi
done

n=$((n + 1))
if [ ${#dumps[@]} = 0 ]; then
	echo "ok $n - # SKIP $corpus absent (a user's clone): only the pinned fixtures ran"
else
	echo "ok $n - ${#dumps[@]} real dumps in $corpus"
fi
