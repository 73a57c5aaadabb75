#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/bench.sh: the benchmark suite under QEMU (TCG).
#
# Boots each Debian kernel once per (kernel, CPU model, vCPU count) and, in
# that boot, runs every workload (bench/guest-bench.sh) REPS times in each
# configuration: tlbpath not loaded (stock), loaded at the stock ceiling
# (33), loaded at its default ("auto"), and loaded at each threshold of
# SWEEP.  Writes, under RESULTS:
#   raw.csv       kernel,cpu,vcpus,date,config,threshold,workload,param,metric,rep,value
#   summary.csv   medians, min/max and quartiles per setup and
#                 (config, threshold, workload, param, metric)
#   *.png         each workload's figure against the threshold, tlbmiss
#                 against the footprint (gnuplot)
#   results.md    the ratio table (bench/report.sh)
#   run.txt       settings, wall time, the guests' diagnostics
# Every time is QEMU TCG's emulated time: compare ratios within one run,
# never these numbers with hardware.
#
# Settings (environment):
#   KERNELS  Debian kernel series          (default "6.1 6.12")
#   CPUS     QEMU -cpu models              (default "max Skylake-Client-v4")
#   SMP      vCPU counts                   (default "2 4")
#   REPS     repetitions                   (default 5)
#   SWEEP    thresholds swept              (default "0 1 2 4 8 16 32 64 128 256 512")
#   RESULTS  output folder                 (default bench/results)
#   QUICK=1  a tiny run for `make check`: 6.1, -cpu max, 2 vCPUs, 1 rep,
#            thresholds 0 64 512, tiny sizes, results under build/bench-quick;
#            any wrong result, missing output or unhappy guest fails it.
# Workload sizes: MPROTECT_ARGS, MUNMAP_ARGS, TLBMISS_ARGS, STRESSNG
# (stress-ng stressors, default tlb-shootdown), STRESSNG_OPS (bogo ops per
# run; empty: run for STRESSNG_TIMEOUT seconds), TLBMISS_CONFIGS (configs
# that run tlbmiss, which flushes nothing while it measures; "all" for
# every one).
set -uo pipefail
. "$(dirname "$0")/vmlib.sh"
. "$TOP/bench/conf.sh"
. "$TOP/bench/benchlib.sh"

QUICK=${QUICK:-0}
if [ "$QUICK" = 1 ]; then
	KERNELS=${KERNELS:-6.1}
	CPUS=${CPUS:-max}
	SMP=${SMP:-2}
	REPS=${REPS:-1}
	SWEEP=${SWEEP:-0 64 512}
	RESULTS=${RESULTS:-$BUILD/bench-quick}
	MPROTECT_ARGS=${MPROTECT_ARGS:--n 64 -l 2 -p 32 -s 1 -c 8}
	MUNMAP_ARGS=${MUNMAP_ARGS:--n 64 -l 10 -s 1 -c 4}
	TLBMISS_ARGS=${TLBMISS_ARGS:--m 8 -f 256 -a 20000}
	STRESSNG_OPS=${STRESSNG_OPS:-50}
	VM_TIMEOUT=${VM_TIMEOUT:-240}
fi
KERNELS=${KERNELS:-6.1 6.12}
CPUS=${CPUS:-max Skylake-Client-v4}
SMP=${SMP:-2 4}
REPS=${REPS:-5}
SWEEP=${SWEEP:-0 1 2 4 8 16 32 64 128 256 512}
RESULTS=${RESULTS:-$TOP/bench/results}
MPROTECT_ARGS=${MPROTECT_ARGS:--n 128 -l 8 -p 128 -s 4}
MUNMAP_ARGS=${MUNMAP_ARGS:--n 64 -l 30 -s 8 -c 8}
TLBMISS_ARGS=${TLBMISS_ARGS:--m 8 -f 4096 -a 1000000}
STRESSNG=${STRESSNG:-tlb-shootdown}
STRESSNG_OPS=${STRESSNG_OPS-200}
STRESSNG_TIMEOUT=${STRESSNG_TIMEOUT:-20}
TLBMISS_CONFIGS=${TLBMISS_CONFIGS:-stock default}
export VM_TIMEOUT=${VM_TIMEOUT:-1800}
WORKLOADS="mprotect munmap tlbmiss $(for s in $STRESSNG; do printf 'stress-ng-%s ' "$s"; done)"

deps() {
	local missing=""
	command -v qemu-system-x86_64 >/dev/null || missing="$missing qemu-system-x86"
	command -v stress-ng >/dev/null || missing="$missing stress-ng"
	# The quick run checks the workloads; it plots only if gnuplot is there.
	[ "$QUICK" = 1 ] || command -v gnuplot >/dev/null || missing="$missing gnuplot-nox"
	[ -n "$missing" ] || return 0
	if [ "$(id -u)" = 0 ]; then
		echo "bench: installing$missing"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing >/dev/null ||
			die "bench: apt-get install$missing failed"
	else
		die "bench: missing$missing (apt-get install$missing)"
	fi
}

# guest_log_bad, less one line that is no kernel warning: with a Skylake
# model and no microcode mitigation the kernel reports at boot
# "RETBleed: WARNING: Spectre v2 mitigation leaves CPU vulnerable ...".
console_bad() {	# console_bad CONSOLE_LOG
	grep -v 'RETBleed: WARNING: Spectre v2 mitigation leaves CPU vulnerable' "$1" >"$1.checked"
	guest_log_bad "$1.checked"
}

# Guest output to CSV rows; prints the guest's diagnostics and failures.
collect() {	# collect OUTPUT_LOG KERNEL CPU SMP DATE
	local log=$1 prefix="$2,$3,$4,$5"
	tr -d '\r' <"$log" | awk -F, -v OFS=, -v p="$prefix" -v raw="$RESULTS/raw.csv" '
		$1 == "R" { print p, $2, $3, $4, $5, $6, $7, $8 >> raw; next }
		$1 == "FAIL" { print "bench: FAIL " substr($0, 6); next }
		{ print "  " $0 }'
}

# Which workloads this boot reported nothing for.
missing_workloads() {	# missing_workloads KERNEL CPU SMP DATE
	local w
	for w in $WORKLOADS; do
		grep -q "^$1,$2,$3,$4,[^,]*,[^,]*,$w," "$RESULTS/raw.csv" || printf ' %s' "$w"
	done
}

# One boot: every workload in every configuration; 0 if all went right.
bench_boot() {	# bench_boot KVER INITRD CPU SMP
	local kver=$1 initrd=$2 cpu=$3 smp=$4 work date start out bad miss ok=0
	work="$BUILD/bench/$kver-$cpu-smp$smp"
	mkdir -p "$work"
	date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
	start=$(date +%s)
	echo "bench: $kver, -cpu $cpu, $smp vCPUs: booting ($date)"
	VM_CPU=$cpu VM_TCG_THREAD=${VM_TCG_THREAD:-multi} boot "$kver" "$initrd" "$work/console.log" "$work/output.log" "$smp" \
		2>"$work/qemu.err"
	# Named models ask for features TCG lacks (PCID, x2APIC...); it says so.
	grep -v "TCG doesn't support requested feature" "$work/qemu.err" >&2
	echo "bench: $kver, -cpu $cpu, $smp vCPUs: guest ran $(( $(date +%s) - start )) s"
	out=$(collect "$work/output.log" "$kver" "$cpu" "$smp" "$date")
	echo "$out" | grep -v '^  tlbpath-guest: done'
	grep -q '^bench: FAIL' <<<"$out" && ok=1
	if ! grep -q '^tlbpath-guest: done' "$work/output.log"; then
		echo "bench: FAIL the guest did not finish (timeout ${VM_TIMEOUT}s?); $work/console.log:"
		tail -n 20 "$work/console.log" | sed 's/^/  console: /'
		ok=1
	fi
	if bad=$(console_bad "$work/console.log"); then
		echo "bench: FAIL the guest kernel complained:"
		echo "$bad" | head -n 20 | sed 's/^/  console: /'
		ok=1
	fi
	miss=$(missing_workloads "$kver" "$cpu" "$smp" "$date")
	if [ -n "$miss" ]; then
		echo "bench: FAIL no results from:$miss"
		ok=1
	fi
	return $ok
}

# each_kernel's three: a boot per (CPU model, vCPU count) of each kernel.
no_kernel() {
	echo "bench: FAIL no Debian $1 kernel with headers installed (make deps)"
	fail=1
}

no_module() {
	echo "bench: FAIL building tlbpath for $1"
	fail=1
}

bench_kernel() {	# bench_kernel KVER KO
	local kver=$1 ko=$2 cpu smp initrd="$BUILD/bench/initrd-$1.gz"
	TLBPATH_EXTRA_ROOT="$BUILD/bench/stressng-root" \
		make_initramfs "$initrd" "$ko" "$TOP/bench/guest-bench.sh" \
		"$BUILD/bench/bench.conf" || die "bench: cannot pack the initramfs"
	for cpu in $CPUS; do
		for smp in $SMP; do
			bench_boot "$kver" "$initrd" "$cpu" "$smp" 2>&1 | tee -a "$RESULTS/run.txt"
			[ "${PIPESTATUS[0]}" = 0 ] || fail=1
			boots=$((boots + 1))
		done
	done
}

main() {
	local t0 fail=0 boots=0
	deps
	t0=$(date +%s)
	mkdir -p "$RESULTS" "$BUILD/bench"
	rm -f "$RESULTS"/raw.csv "$RESULTS"/summary.csv "$RESULTS"/*.png "$RESULTS"/results.md
	echo "kernel,cpu,vcpus,date,config,threshold,workload,param,metric,rep,value" >"$RESULTS/raw.csv"
	stressng_root "$BUILD/bench/stressng-root" || die "bench: cannot pack stress-ng"
	write_bench_conf "$BUILD/bench/bench.conf"
	{
		echo "QEMU TCG (emulation, not hardware); $(qemu-system-x86_64 --version | head -n 1)"
		echo "host: $(nproc) CPUs, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)"
		echo "KERNELS=$KERNELS CPUS=$CPUS SMP=$SMP QUICK=$QUICK"
		cat "$BUILD/bench/bench.conf"
	} >"$RESULTS/run.txt"

	each_kernel no_kernel no_module bench_kernel

	"$TOP/bench/summarize.sh" "$RESULTS/raw.csv" >"$RESULTS/summary.csv" || fail=1
	"$TOP/bench/report.sh" "$RESULTS/summary.csv" >"$RESULTS/results.md" || fail=1
	if command -v gnuplot >/dev/null; then
		echo "bench: $("$TOP/bench/plot.sh" "$RESULTS" | wc -l) figures" || fail=1
	fi
	echo "bench: $boots boots, $(( $(date +%s) - t0 )) s wall; results in $RESULTS" |
		tee -a "$RESULTS/run.txt"
	if [ $fail != 0 ]; then
		echo "bench: FAILED (see above)"
		return 1
	fi
}

main "$@"
