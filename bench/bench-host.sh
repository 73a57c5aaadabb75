#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/bench-host.sh: the benchmark suite on this machine, no QEMU, for
# numbers from real hardware.  Runs bench/guest-bench.sh here: every
# workload, REPS times, with tlbpath not loaded (stock), at the stock
# ceiling, at its default and at each threshold of SWEEP.  It loads and
# unloads tlbpath.ko, so: root, a kernel it builds for, nothing else
# holding tlbpath, and a quiet machine (the timings are only as good as
# the machine is idle).
#
# Writes under RESULTS (default bench/results-host) raw.csv, summary.csv,
# results.md and, with gnuplot, the PNGs, as scripts/bench.sh does; the
# CPU column is "host:" and the CPU's model name.
#
# Settings (environment): REPS (5), SWEEP ("0 1 2 4 ... 512"), KO (a
# built tlbpath.ko; default: build one with `make` for the running
# kernel), NCPU (CPUs the workloads spread over; default all online),
# MPROTECT_ARGS, MUNMAP_ARGS, TLBMISS_ARGS, STRESSNG, STRESSNG_OPS,
# STRESSNG_TIMEOUT, TLBMISS_CONFIGS (see scripts/bench.sh).  Sizes are
# larger than under QEMU, where everything runs some hundred times slower.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
. "$TOP/bench/conf.sh"
RESULTS=${RESULTS:-$TOP/bench/results-host}
REPS=${REPS:-5}
SWEEP=${SWEEP:-0 1 2 4 8 16 32 64 128 256 512}
MPROTECT_ARGS=${MPROTECT_ARGS:--n 128 -l 200 -p 512 -s 64}
MUNMAP_ARGS=${MUNMAP_ARGS:--n 64 -l 5000 -s 16}
TLBMISS_ARGS=${TLBMISS_ARGS:--m 8 -f 16384 -a 4000000}
STRESSNG=${STRESSNG-tlb-shootdown}
STRESSNG_OPS=${STRESSNG_OPS-}
STRESSNG_TIMEOUT=${STRESSNG_TIMEOUT:-5}
TLBMISS_CONFIGS=${TLBMISS_CONFIGS:-stock default}

die() { echo "bench-host: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "needs root (it loads and unloads tlbpath)"
[ "$(uname -m)" = x86_64 ] || die "tlbpath is x86-64 only"
! grep -qs '^tlbpath ' /proc/modules || die "tlbpath is loaded; rmmod it first (the stock runs need it gone)"
if [ -n "$STRESSNG" ] && ! command -v stress-ng >/dev/null; then
	echo "bench-host: no stress-ng (apt-get install stress-ng); running without it" >&2
	STRESSNG=
fi
[ -e /sys/kernel/debug/x86 ] || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null || true

if [ -z "${KO:-}" ]; then
	make -s -C "$TOP" module >/dev/null || die "cannot build tlbpath.ko (headers for $(uname -r)?)"
	KO="$TOP/tlbpath.ko"
fi
[ -e "$KO" ] || die "no module at $KO"

# The workloads, natively built (static, as in the guest).
bin="$BUILD/host-bin"
mkdir -p "$bin" "$RESULTS"
for src in "$TOP"/bench/*.c; do
	gcc -static -O2 -Wall -Wextra -Werror -pthread -o "$bin/$(basename "${src%.c}")" "$src" ||
		die "cannot build $src"
done

conf="$BUILD/bench-host.conf"
write_bench_conf "$conf"

ncpu=${NCPU:-$(nproc)}
model=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1 | tr -d ',' | tr -s ' ')
prefix="$(uname -r),host:$model,$ncpu,$(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "kernel,cpu,vcpus,date,config,threshold,workload,param,metric,rep,value" >"$RESULTS/raw.csv"
{
	echo "hardware: $model, $ncpu CPUs used of $(nproc), kernel $(uname -r)"
	cat "$conf"
} >"$RESULTS/run.txt"

start=$(date +%s)
fails=$(BENCH_CONF="$conf" KO="$KO" NCPU="$ncpu" PATH="$bin:$PATH" sh "$TOP/bench/guest-bench.sh" 2>&1 |
	awk -F, -v OFS=, -v p="$prefix" -v raw="$RESULTS/raw.csv" '
		$1 == "R" { print p, $2, $3, $4, $5, $6, $7, $8 >> raw; next }
		$1 == "FAIL" { n++; print "bench-host: FAIL " substr($0, 6) > "/dev/stderr"; next }
		{ print "  " $0 > "/dev/stderr" }
		END { print n + 0 }' 2> >(tee -a "$RESULTS/run.txt" >&2))
! grep -qs '^tlbpath ' /proc/modules || rmmod tlbpath

label="hardware: $model, $ncpu CPUs"
"$TOP/bench/summarize.sh" "$RESULTS/raw.csv" >"$RESULTS/summary.csv"
"$TOP/bench/report.sh" "$RESULTS/summary.csv" "$label" >"$RESULTS/results.md"
if command -v gnuplot >/dev/null; then
	"$TOP/bench/plot.sh" "$RESULTS" "$label" >/dev/null
fi
echo "bench-host: $(( $(date +%s) - start )) s; results in $RESULTS" | tee -a "$RESULTS/run.txt"
[ "$fails" = 0 ] || die "$fails wrong results (see above)"
