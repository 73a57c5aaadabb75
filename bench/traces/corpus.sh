#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/traces/corpus.sh: the trace corpus as others use it.
#
#   corpus.sh list      NAME<TAB>PATH of each trace of corpus.tsv, in its order;
#                       fails if one is missing from the cache or its checksum
#                       differs (make traces records it)
#   corpus.sh paths     the paths only
#   corpus.sh check     the checks only, one line each
#
# TRACES_CACHE: where make traces put them (/var/cache/tlbpath/traces).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=${TRACES_CACHE:-/var/cache/tlbpath/traces}
TSV=$HERE/corpus.tsv

[ $# = 1 ] || { echo "usage: corpus.sh list|paths|check" >&2; exit 2; }
[ -s "$TSV" ] || { echo "corpus.sh: $TSV is missing: run make traces" >&2; exit 1; }
bad=0
out=()
while IFS=$'\t' read -r name _ _ sum _; do
	[ "$name" = name ] && continue
	f=$CACHE/$name.tbt
	if [ ! -f "$f" ]; then
		echo "corpus.sh: $name: $f is missing (make traces)" >&2
		bad=1
		continue
	fi
	have=$(sha256sum <"$f" | cut -d' ' -f1)
	if [ "$have" != "$sum" ]; then
		echo "corpus.sh: $name: $f has checksum $have, corpus.tsv says $sum (make traces)" >&2
		bad=1
		continue
	fi
	case $1 in
	list) out+=("$name	$f") ;;
	paths) out+=("$f") ;;
	check) out+=("ok $name $f") ;;
	*) echo "usage: corpus.sh list|paths|check" >&2; exit 2 ;;
	esac
done <"$TSV"
[ ${#out[@]} = 0 ] || printf '%s\n' "${out[@]}"
exit $bad
