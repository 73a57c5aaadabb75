# SPDX-License-Identifier: GPL-2.0
#
# The benchmark suite, run in the guest (busybox ash) by scripts/bench.sh,
# or on a real machine by bench/bench-host.sh.  Settings come from
# /bench.conf (BENCH_CONF overrides the path).
#
# For each repetition it runs every workload in every configuration:
#   stock      tlbpath not loaded: the kernel's own ceiling decides
#   ceiling33  tlbpath loaded, threshold 33 (the stock ceiling)
#   default    tlbpath loaded, threshold "auto" (the stock ceiling)
#   model      tlbpath loaded, threshold "auto", model=1 (calibrated model)
#   sweep      tlbpath loaded, threshold = each value of $SWEEP
# Odd repetitions go through the configurations in that order, even ones
# in reverse, so a slow drift over the run (fragmentation, page cache)
# does not line up with the threshold.
#
# Output, one line each:
#   R,config,threshold,workload,param,metric,rep,value   a result
#   FAIL,config,threshold,workload,rep,reason             a wrong result
#   # ...                                                 diagnostics
# The host adds kernel, CPU model, vCPUs and date.

CONF=${BENCH_CONF:-/bench.conf}
. "$CONF"
T=/sys/kernel/tlbpath
DBG=/sys/kernel/debug/x86/tlb_single_page_flush_ceiling
KO=${KO:-/tlbpath.ko}
NCPU=${NCPU:-$(grep -c '^processor' /proc/cpuinfo)}
OUT=/tmp/bench.out
ERR=/tmp/bench.err
CTRS="user_perpage user_widened user_remote kept_where_stock_full full_where_stock_kept"

cfg= thr= rep=

fail() {	# fail WORKLOAD REASON
	echo "FAIL,$cfg,$thr,$1,$rep,$2"
}

loaded() { [ -d $T ]; }

# Without debugfs (lockdown) assume mainline's constant.
stock_ceiling() { cat $DBG 2>/dev/null || echo 33; }

# Results from "name key=value..." lines: one R line per metric, with the
# value of key PKEY as the param column.
emit_kv() {	# emit_kv WORKLOAD PKEY METRIC...
	local w=$1 pk=$2
	shift 2
	awk -v pre="R,$cfg,$thr,$w" -v rep="$rep" -v pk="$pk" -v ms="$*" '
	{
		for (i = 2; i <= NF; i++) {
			eq = index($i, "=")
			kv[substr($i, 1, eq - 1)] = substr($i, eq + 1)
		}
		n = split(ms, m, " ")
		for (j = 1; j <= n; j++)
			if (m[j] in kv)
				printf "%s,%s=%s,%s,%s,%s\n", pre, pk, kv[pk], m[j], rep, kv[m[j]]
	}' $OUT
}

# What tlbpath decided during the last workload (nothing when stock).
emit_counters() {	# emit_counters WORKLOAD PARAM
	local c
	loaded || return 0
	for c in $CTRS; do
		echo "R,$cfg,$thr,$1,$2,ctr_$c,$rep,$(cat $T/counters/$c)"
	done
}

# Run a workload; a non-zero exit or no output is a wrong result.
run() {	# run WORKLOAD CMD...
	local w=$1 rc
	shift
	! loaded || echo 1 > $T/counters/reset
	"$@" </dev/null >$OUT 2>$ERR
	rc=$?
	if [ $rc != 0 ]; then
		fail "$w" "exit status $rc: $*"
		sed 's/^/# stderr: /' $ERR | head -n 5
		return 1
	fi
	if ! grep -q . $OUT; then
		fail "$w" "printed nothing: $*"
		return 1
	fi
}

# A self-checking workload whose self-check did not run proves nothing.
checked() {	# checked WORKLOAD
	if grep -q ' checks=0' $OUT || ! grep -q ' checks=' $OUT; then
		fail "$1" "self-check did not run"
		return 1
	fi
}

w_mprotect() {
	run mprotect mprotect $MPROTECT_ARGS && checked mprotect || return
	emit_kv mprotect n ns_per_call ns_per_mprotect ns_per_access
	emit_counters mprotect "n=$(sed -n 's/.* n=\([0-9]*\).*/\1/p' $OUT)"
}

w_munmap() {
	run munmap munmap $MUNMAP_ARGS -t $((NCPU - 1)) && checked munmap || return
	emit_kv munmap n ns_per_munmap ns_per_loop ns_per_thread_access
	emit_counters munmap "n=$(sed -n 's/.* n=\([0-9]*\).*/\1/p' $OUT)"
}

w_tlbmiss() {
	run tlbmiss tlbmiss $TLBMISS_ARGS || return
	emit_kv tlbmiss pages ns_per_access
}

# stress-ng, a flusher we did not write: bogo ops per second (real time)
# from --metrics-brief, whose rows read
#   stress-ng: metrc: [pid] NAME OPS REAL USR SYS OPS/S(real) OPS/S(usr+sys)
sng() {		# its report goes to stderr
	stress-ng "$@" 2>&1
}

w_stressng() {	# w_stressng STRESSOR INSTANCES
	local s=$1 w=stress-ng-$1 v extra=
	# mremap's default 256 MiB takes longer than a run under TCG.
	[ $s != mremap ] || extra="--mremap-bytes 4M"
	# A fixed amount of work when STRESSNG_OPS is set (the timeout then
	# only guards against a hang), else whatever fits in the timeout.
	[ -z "$STRESSNG_OPS" ] || extra="$extra --$s-ops $STRESSNG_OPS"
	run "$w" sng --$s "$2" $extra --timeout "$STRESSNG_TIMEOUT" --verify \
		--metrics-brief --temp-path /tmp || return
	v=$(awk -v s="$s" '$2 == "metrc:" && $4 == s { print $9 }' $OUT)
	case $v in
	''|*[!0-9.]*) fail "$w" "no bogo ops/s in its output"; return 1 ;;
	esac
	echo "R,$cfg,$thr,$w,instances=$2,bogo_ops_per_s,$rep,$v"
	emit_counters "$w" "instances=$2"
}

workloads() {
	local s
	w_mprotect
	w_munmap
	case " $TLBMISS_CONFIGS " in
	*" $cfg "*|" all ") w_tlbmiss ;;
	esac
	for s in $STRESSNG; do
		case $s in
		tlb-shootdown) w_stressng $s $NCPU ;;
		*) w_stressng $s 1 ;;
		esac
	done
}

# QEMU translates guest code on first use, and a loaded module's code (and
# ftrace's trampolines) is new code: whatever ran first would pay for the
# translation.  A short untimed run of each workload takes that cost.
warm_up() {
	mprotect -n 64 -l 1 -p 16 -s 1 -c 0 >/dev/null 2>&1
	munmap -n 64 -l 4 -s 1 -c 0 -t $((NCPU - 1)) >/dev/null 2>&1
	[ -z "$STRESSNG" ] || stress-ng --tlb-shootdown $NCPU --tlb-shootdown-ops 20 \
		--timeout 10 >/dev/null 2>&1
}

want_loaded() {
	if [ "$1" = 1 ] && ! loaded; then
		insmod $KO || { fail load "insmod failed"; dmesg | tail -n 3 | sed 's/^/# /'; return 1; }
		warm_up
	elif [ "$1" = 0 ] && loaded; then
		# What each CPU's adaptive controller learnt (x86; stock without a PMU).
		[ ! -e $T/adapt/by_cpu ] || sed 's/^/# adapt: /' $T/adapt/by_cpu
		rmmod tlbpath || { fail load "rmmod failed"; return 1; }
	fi
}

# One configuration: stock, ceiling33, default, model or a sweep threshold.
run_config() {	# run_config NAME [THRESHOLD]
	cfg=$1
	if [ $cfg = stock ]; then
		want_loaded 0 || return
		thr=$(stock_ceiling)
	else
		want_loaded 1 || return
		if [ $cfg = model ]; then echo 1; else echo 0; fi > $T/model
		echo "${2:-auto}" > $T/threshold || { thr=$2; fail threshold "write $2 refused"; return; }
		thr=$(cat $T/threshold)
	fi
	workloads
}

configs() {
	local t
	echo stock
	echo ceiling33 33
	echo default auto
	echo model auto
	for t in $SWEEP; do echo sweep $t; done
}

echo "# kernel $(uname -r), $NCPU CPUs, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)"
echo "# stock ceiling $(stock_ceiling); reps $REPS; sweep $SWEEP"
if want_loaded 1; then
	echo "# tlbpath: geometry $(cat $T/geometry/source) l1d_4k=$(cat $T/geometry/l1d_4k)" \
		"hypervisor=$(cat $T/geometry/hypervisor) calibration: $(cat $T/calibration/status) invlpg $(cat $T/calibration/invlpg_cycles) full $(cat $T/calibration/full_cycles) refill $(cat $T/calibration/refill_cycles) reach $(cat $T/calibration/reach) limit_4k $(cat $T/calibration/limit_4k)"
fi
configs >/tmp/configs
want_loaded 0
warm_up
tlbmiss -m 8 -f 64 -a 1000 >/dev/null 2>&1
rep=1
while [ $rep -le $REPS ]; do
	start=$(date +%s)
	if [ $((rep % 2)) = 1 ]; then cat /tmp/configs; else sed '1!G;h;$!d' /tmp/configs; fi >/tmp/order
	while read -r name t; do
		run_config $name $t
	done </tmp/order
	echo "# rep $rep took $(( $(date +%s) - start )) s"
	rep=$((rep + 1))
done
want_loaded 0
echo "# stock ceiling after unload $(stock_ceiling)"
