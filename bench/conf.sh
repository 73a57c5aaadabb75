# SPDX-License-Identifier: GPL-2.0
# Shared by scripts/bench.sh (QEMU) and bench/bench-host.sh (native): the
# settings bench/guest-bench.sh reads.  Source, don't run.

write_bench_conf() {	# write_bench_conf FILE
	cat >"$1" <<EOF2
REPS=$REPS
SWEEP="$SWEEP"
MPROTECT_ARGS="$MPROTECT_ARGS"
MUNMAP_ARGS="$MUNMAP_ARGS"
TLBMISS_ARGS="$TLBMISS_ARGS"
TLBMISS_CONFIGS="$TLBMISS_CONFIGS"
STRESSNG="$STRESSNG"
STRESSNG_OPS=$STRESSNG_OPS
STRESSNG_TIMEOUT=$STRESSNG_TIMEOUT
EOF2
}
