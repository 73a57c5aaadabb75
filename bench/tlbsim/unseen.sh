#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/tlbsim/unseen.sh: the first of make sim's criteria (the default
# at most 1.02 of stock in every cell) on cells make sim does not have:
# CPUs from ../shared/cpuid that are not in its set, gen.c's workloads at
# other scales, the bench programs with other settings, under make sim's
# cost sets (from its sim.csv) and both kinds of loads, at several noise
# seeds.  Stock and the default only: no sweep, so no best fixed
# threshold and none of the other criteria.  A few minutes here.
#
# Settings (environment):
#   SEEDS    noise seeds (default "1 2 3")
#   RESULTS  the make sim run whose cost sets to use (default bench/tlbsim/results)
#   JOBS     parallel tlbsim runs (default 2)
#   WORST    how many of the worst cells to list (default 5)
#   LIMIT    the criterion's bound (default 1.02)
set -euo pipefail
SIM=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$SIM/../.." && pwd)
RESULTS=${RESULTS:-$SIM/results}
SEEDS=${SEEDS:-"1 2 3"}
JOBS=${JOBS:-2}
WORST=${WORST:-5}
LIMIT=${LIMIT:-1.02}
CPUID_CORPUS=${CPUID_CORPUS:-$TOP/../shared/cpuid}

die() { echo "unseen: $*" >&2; exit 1; }
[ -f "$RESULTS/sim.csv" ] && [ -f "$RESULTS/run.txt" ] || die "no make sim run in $RESULTS"
make -s -C "$SIM" >/dev/null || die "building tlbsim failed"
bin=$SIM/build/bin
[ -x "$bin/gen" ] && [ -x "$bin/mprotect" ] && [ -x "$bin/munmap" ] ||
	die "no workload programs in $bin: make sim (or make sim-quick) builds them"

# CPUs of the pinned dumps (tests/unit/cpuid: there without
# ../shared/cpuid) that make sim does not run, and their page walkers as
# make sim's set gives their cores' kin: Ice Lake's two for Tiger Lake,
# Raptor Lake P's four for Alder Lake P, Zen 5's six for Turin.
CPUS="Bloomfield=GenuineIntel00106A4_Bloomfield_CPUID 1
TigerLake=GenuineIntel00806C1_TigerLake_CPUID3 2
AlderLake-P=GenuineIntel00906A4_AlderLakeP_01_CPUID 4
Kabini=AuthenticAMD0700F01_K16_Kabini_CPUID 1
Carrizo=AuthenticAMD0660F01_K15_Carrizo_CPUID 1
Turin=AuthenticAMD0B00F21_K20_Turin_01_CPUID 6"
copts=()
while read -r spec walkers; do
	name=${spec%%=*} dump=${spec#*=}
	grep -q "($dump\.raw" "$RESULTS/run.txt" && die "$name ($dump) is one of make sim's CPUs"
	path=$TOP/tests/unit/cpuid/$dump.raw
	[ -f "$path" ] || path=$CPUID_CORPUS/$dump.raw
	[ -f "$path" ] || die "no $dump.raw in tests/unit/cpuid or $CPUID_CORPUS"
	copts+=(-c "$path%$walkers#$name")
done <<< "$CPUS"

# Workloads make sim does not run: gen's at 30% and 300% (make sim's are
# at 100%), the bench programs with other sizes, loops and strides.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
norand=()
setarch -R true 2>/dev/null && norand=(setarch -R)
for w in phase gc-large gc-small mtu 2m t2; do
	for s in 30 300; do
		"$bin/gen" $w $s > "$work/gen-$w-$s.trace" || die "gen $w $s failed"
	done
done
while read -r name prog args; do
	"${norand[@]}" "$bin/$prog" $args -T "$work/$name.trace" > /dev/null ||
		die "$prog $args failed"
done <<'EOF'
mprotect-n24 mprotect -n 24 -l 16 -p 256 -s 8
mprotect-n48-t2 mprotect -n 48 -l 8 -p 96 -s 4 -t 2
mprotect-n200 mprotect -n 200 -l 4 -p 300 -s 16
munmap-96 munmap -n 96 -l 60 -p 96 -s 8 -c 8
EOF

# make sim's cost sets: "name inv/full/hit/walk/issue".
awk -F, 'NR > 1 { print $1, $10 }' "$RESULTS/sim.csv" | sort -u > "$work/costs"
[ -s "$work/costs" ] || die "no cost sets in $RESULTS/sim.csv"

for tr in "$work"/*.trace; do
	while read -r set costs; do
		IFS=/ read -r inv full hit walk issue <<< "$costs"
		for loads in indep dep; do
			for seed in $SEEDS; do
				printf '%s,%s, %s --no-header -n %s -l %s -p stock,tlbpath --invlpg %s --full %s --stlb-hit %s --walk %s --issue %s %s %s\n' \
					"$set" "$seed" "$SIM/build/tlbsim" "$seed" "$loads" "$inv" "$full" \
					"$hit" "$walk" "${issue:-0}" "${copts[*]}" "$tr"
			done
		done
	done < "$work/costs"
done > "$work/cmds"
tr '\n' '\0' < "$work/cmds" | xargs -0 -P "$JOBS" -n 1 sh -c \
	'p=${0%%, *}; $(echo "${0#*, }") | sed "s/^/$p,/"' > "$work/rows"

# Rows: set,seed,<tlbsim's columns>: workload 3, CPU 4, loads 12, policy 13, cycles 16.
awk -F, -v worst="$WORST" -v limit="$LIMIT" '
	{ k = $1 " / " $3 " / " $4 " / " $12 " loads / seed " $2
	  if ($13 == "stock") s[k] = $16; else if ($13 == "tlbpath") d[k] = $16 }
	END {
		list = "sort -rn | head -n " worst " | sed \"s/^/  /\""
		for (k in d) {
			r = d[k] / s[k]; n++; g += log(r)
			if (r > limit) m++
			printf "%.4f %s\n", r, k | list
		}
		close(list)
		printf "%d cells: <= %s stock: %d miss; geomean / stock %.3f\n", n, limit, m, exp(g / n)
	}' "$work/rows"
