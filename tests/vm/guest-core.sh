# SPDX-License-Identifier: GPL-2.0
# In-guest tests of the core module: load, sysfs, decisions, counters,
# tracepoint agreement, bad input, unload.
. /guest-lib.sh

orig=$(ceiling)
diag "kernel $(uname -r), $(nproc) CPUs, stock ceiling $orig"

# tlbpath-probe, short, on the stock kernel (rows with PROBE=1: a minute
# under TCG): it must pass its own checks and find the ceiling; its
# numbers are emulated here, not checked.
if [ "${PROBE:-0}" = 1 ]; then
	check "tlbpath-probe -q runs on the stock kernel, its own checks pass" \
		sh -c 'tlbpath-probe -q -o /tmp/probe.costs > /tmp/probe.out 2>&1'
	sed -n '/^== what it says/,$p' /tmp/probe.out | sed 's/^/# probe: /'
	check "tlbpath-probe finds the ceiling ($orig) and writes a cost set" \
		sh -c "grep -q '^ceiling=$orig source=' /tmp/probe.out &&
		       grep -Eq '^invlpg [0-9]+\$' /tmp/probe.costs &&
		       grep -Eq '^walk [0-9]+\$' /tmp/probe.costs"
fi

# Bad parameters: refused, nothing left behind, ceiling untouched.
check "insmod threshold=cap+1 is refused" sh -c '! insmod /tlbpath.ko cap=64 threshold=65 2>/dev/null'
check "insmod cap=0 is refused" sh -c '! insmod /tlbpath.ko cap=0 2>/dev/null'
check "refused loads leave no sysfs and no ceiling change" \
	sh -c "[ ! -e $T ] && [ \$(cat $DBG) = $orig ]"
check "refusal is explained by pr_err" sh -c 'dmesg | grep -q "tlbpath: threshold=65 is out of range"'

# Refusals (refused, guest-lib.sh): each leaves nothing behind and says why.
check "a ceiling that cannot be found is refused" \
	refused "cannot find no_such_symbol" ceiling_symbol=no_such_symbol
echo 0 > /proc/sys/kernel/ftrace_enabled
check "kernel.ftrace_enabled=0 is refused (the hooks would never run)" \
	refused "the ftrace hooks never run"
echo 1 > /proc/sys/kernel/ftrace_enabled

check "insmod controller=bogus is refused" refused "controller=bogus is not time, walks or none" controller=bogus
# What auto means with no controller: stock's decisions (the time
# controller's own test is guest-timed.sh).
check "insmod tlbpath.ko controller=none" insmod /tlbpath.ko controller=none
check "adapt/controller reads none, and nothing decides (adapt/active 0)" \
	[ "$(cat $T/adapt/controller)" = none -a "$(cat $T/adapt/active)" = 0 ]
check "a second insmod is refused and the first stays" \
	sh -c "! insmod /tlbpath.ko 2>/dev/null && [ -e $T/threshold ]"
for f in threshold enabled model cap stock_ceiling kernel_ceiling \
	 geometry/source geometry/l1d_4k geometry/l2_4k geometry/l1d_2m geometry/l1i_4k \
	 counters/user_perpage counters/user_widened counters/user_caller_full \
	 counters/user_pages counters/user_remote counters/user_local \
	 counters/kernel_perpage counters/kernel_widened counters/kernel_caller_full \
	 counters/kernel_pages counters/kept_where_stock_full \
	 counters/full_where_stock_kept counters/reset \
	 calibration/invlpg_cycles calibration/full_cycles calibration/refill_cycles \
	 calibration/refill_invlpg_cycles calibration/hit_cycles calibration/reach \
	 calibration/cpu calibration/runs calibration/status calibration/run \
	 calibration/limit_4k calibration/limit_2m calibration/limit_1g; do
	[ -e $T/$f ] || notok "sysfs file $f exists"
done
ok "sysfs files exist"
# 6.15+ kernels with CONFIG_BROADCAST_TLB_FLUSH have an INVLPGB path.
if grep -q '^CONFIG_BROADCAST_TLB_FLUSH=y' /kconfig; then
	check "counters/user_broadcast exists (the kernel has INVLPGB broadcast flushes)" \
		[ -e $T/counters/user_broadcast ]
else
	check "no counters/user_broadcast (the kernel has no INVLPGB path)" \
		[ ! -e $T/counters/user_broadcast ]
fi

src=$(cat $T/geometry/source)
l1d=$(cat $T/geometry/l1d_4k)
diag "geometry: source=$src l1d_4k=$l1d l2_4k=$(cat $T/geometry/l2_4k) hypervisor=$(cat $T/geometry/hypervisor)"
check "geometry source is known" sh -c "case $src in leaf2|leaf18|amd|none) true;; *) false;; esac"
check "geometry is plausible" sh -c "[ $src = none ] && [ $l1d = 0 ] || { [ $l1d -gt 0 ] && [ $l1d -le 4096 ]; }"
# The module and the user-space tool share the parser: same numbers.
tool=$(tlbpath-geometry | sed 's/^cpu=[0-9]* //' | sort -u)
mod=$(sed 's/^cpus=[^ ]* //; s/ threshold=[0-9]*$//' $T/geometry/by_cpu | sort -u)
diag "by_cpu: $(cat $T/geometry/by_cpu)"
check "geometry/by_cpu matches tlbpath-geometry in the guest" [ -n "$tool" -a "$tool" = "$mod" ]
check "by_cpu covers every online CPU" \
	[ "$(cut -d' ' -f1 $T/geometry/by_cpu)" = "cpus=$(cat /sys/devices/system/cpu/online)" ]

# CPU hotplug: a CPU that comes back online is read again.
if [ -w /sys/devices/system/cpu/cpu1/online ]; then
	before=$(cat $T/geometry/by_cpu)
	echo 0 > /sys/devices/system/cpu/cpu1/online
	off=$(cut -d' ' -f1 $T/geometry/by_cpu)
	echo 1 > /sys/devices/system/cpu/cpu1/online
	check "offline cpu1 leaves by_cpu (cpus=0 while off)" [ "$off" = "cpus=0" ]
	check "cpu1 back online is read again" [ "$(cat $T/geometry/by_cpu)" = "$before" ]
else
	skip "no hotpluggable cpu1"
	skip "no hotpluggable cpu1"
fi

check "stock_ceiling is the ceiling found at load" [ "$(cat $T/stock_ceiling)" = "$orig" ]

# Calibration ran at load; its model decides in auto mode once model=1.
C=$T/calibration
cal() { cat $C/$1; }
diag "calibration: cpu $(cal cpu) invlpg $(cal invlpg_cycles) full $(cal full_cycles) refill $(cal refill_cycles) (after invlpg $(cal refill_invlpg_cycles)) hit $(cal hit_cycles) reach $(cal reach) limits $(cal limit_4k)/$(cal limit_2m)/$(cal limit_1g)"
check "calibration ran at load (status ok, 1 run)" [ "$(cal status)" = ok -a "$(cal runs)" = 1 ]
check "calibration measured every cost" \
	[ "$(cal invlpg_cycles)" -gt 0 -a "$(cal full_cycles)" -gt 0 -a "$(cal refill_cycles)" -gt 0 ]
check "a refill costs more than a hit" [ "$(cal refill_cycles)" -gt "$(cal hit_cycles)" ]
check "the probe found the TLB's reach (geometry unknown here)" [ "$(cal reach)" -ge 64 ]
# The break-even at full footprint, (full + reach * refill) / (invlpg + refill), capped.
cap=$(cat $T/cap)
want=$(( ($(cal full_cycles) + $(cal reach) * $(cal refill_cycles)) / ($(cal invlpg_cycles) + $(cal refill_cycles)) ))
[ $want -gt $cap ] && want=$cap
check "limit_4k is the model's break-even ($want)" [ "$(cal limit_4k)" = "$want" ]
thr=$(cat $T/threshold)
check "model is off by default" [ "$(cat $T/model)" = 0 ]
check "threshold (auto, no model) is the stock ceiling" [ "$thr" = "$orig" ]
check "threshold_auto=1" [ "$(cat $T/threshold_auto)" = 1 ]
check "kernel ceiling follows the threshold" [ "$(ceiling)" = "$thr" ]
echo 1 > $T/model
want=$orig
for l in $(cal limit_4k) $(cal limit_2m) $(cal limit_1g); do [ $l -gt $want ] && want=$l; done
[ $want -gt $cap ] && want=$cap
check "model=1: threshold is the largest model limit or stock ($want)" [ "$(cat $T/threshold)" = "$want" ]
check "model=1: the kernel ceiling follows" [ "$(ceiling)" = "$want" ]
check "by_cpu shows each CPU's limit" \
	[ "$(sed -n 's/.* threshold=\([0-9]*\)$/\1/p' $T/geometry/by_cpu | sort -n | tail -n 1)" = "$want" ]

# Footprint: 500-page ranges in a 1 MiB process and in a 64 MiB one.  Every
# decision the model made must be the formula's, from the published costs
# and the footprint the event reports: keep when
# n * (invlpg + refill) <= full + min(footprint >> (stride - 12), reach) * refill.
echo 0 > $TR/trace
echo 1 > $TR/events/tlbpath/decision/enable
taskset -c 0 mprotect -f 500 -l 10 -p 16 -s 1 >/dev/null
taskset -c 0 mprotect -f 500 -l 10 -p 16 -s 64 >/dev/null
echo 0 > $TR/events/tlbpath/decision/enable
grep 'reason=model' $TR/trace | sed 's/.* stride=\([0-9]*\) entries=\([0-9]*\) footprint=\([0-9]*\) decision=\([a-z]*\) .*/\1 \2 \3 \4/' > /tmp/model.txt
awk -v inv=$(cal invlpg_cycles) -v full=$(cal full_cycles) -v refill=$(cal refill_cycles) \
    -v reach=$(cal reach) '
	{ d = 1; for (i = 12; i < $1; i++) d *= 2	# busybox awk: no ^
	  h = int($3 / d); if (h > reach) h = reach
	  want = $2 * (inv + refill) <= full + h * refill ? "perpage" : "widen"
	  n++; if ($4 != want) { bad++; if (bad < 4) print "# " $0 " wants " want }
	  if ($2 == 500) seen[$4]++ }
	END { printf "# model decisions: %d, disagreeing: %d, 500-page kept %d widened %d\n",
		 n, bad, seen["perpage"], seen["widen"]
	      exit !(n >= 20 && bad == 0) }' /tmp/model.txt > /tmp/model.out
check "model: every decision is the formula's, from sysfs costs and the traced footprint" [ $? = 0 ]
cat /tmp/model.out
check "model: footprint decides, 500-page ranges both widened (1 MiB) and kept (64 MiB)" \
	grep -qE 'kept [1-9][0-9]* widened [1-9]' /tmp/model.out
# Stride: hugetlb ranges come with stride 21 and are counted in 2M entries.
# (hugetlbfs pages are not in the RSS counters: the model sees a small
# footprint and widens, which is what the stock kernel does above 33.)
echo 64 > /proc/sys/vm/nr_hugepages
if [ "$(cat /proc/sys/vm/nr_hugepages)" -ge 50 ]; then
	echo 0 > $TR/trace
	echo 1 > $TR/events/tlbpath/decision/enable
	taskset -c 0 mprotect -h -f 40 -l 5 -p 4 -s 8 >/dev/null
	echo 0 > $TR/events/tlbpath/decision/enable
	check "2M stride: 40 huge pages counted as 40 entries, judged by the model" \
		test "$(grep -c 'stride=21 entries=40 footprint=[-0-9]* decision=widen reason=model' $TR/trace)" -ge 5
else
	skip "cannot reserve 50 huge pages"
fi
echo 0 > /proc/sys/vm/nr_hugepages
echo 0 > $TR/trace
echo 1 > $TR/events/tlbpath/decision/enable
taskset -c 0 mprotect -f 33 -l 10 -p 16 -s 1 >/dev/null
echo 0 > $TR/events/tlbpath/decision/enable
check "model: 33 pages are kept as stock keeps them" \
	test "$(grep -c 'entries=33 footprint=[-0-9]* decision=perpage reason=stock' $TR/trace)" -ge 10
echo 0 > $T/model
check "model=0: back to the stock ceiling" [ "$(cat $T/threshold)" = "$orig" -a "$(ceiling)" = "$orig" ]
for v in 2 -1 x ""; do
	check "model rejects '$v'" rejects $T/model "$v"
done

grep -q 'flush_tlb_mm_range.*tlbp_mm_range_cb' $TR/enabled_functions &&
grep -q 'flush_tlb_kernel_range.*tlbp_kernel_range_cb' $TR/enabled_functions
check "both hooks are live in enabled_functions" [ $? = 0 ]

# Small ranges (1..8 pages), local only: kept per-page at the default.
reset_counters
# Pinned from exec on, so no other CPU ever has this mm: local flushes.
taskset -c 0 mprotect -n 8 -l 50 -p 16 >/dev/null
pp=$(cnt user_perpage); pages=$(cnt user_pages)
diag "n=8: user_perpage=$pp user_widened=$(cnt user_widened) user_pages=$pages local=$(cnt user_local)"
check "small ranges are kept per-page" [ "$pp" -ge 400 ]
check "pages flushed per-page are counted" [ "$pages" -gt "$pp" ]
check "local flushes are counted as local" [ "$(cnt user_local)" -ge 400 ]

# threshold=0: every user range becomes a full flush, and the kernel agrees.
echo 0 > $T/threshold
check "threshold=0 sets the kernel ceiling to 0" [ "$(ceiling)" = 0 ]
echo 0 > $TR/trace
echo 1 > $TR/events/tlb/tlb_flush/enable
reset_counters
mprotect -n 8 -l 50 -p 16 >/dev/null
echo 0 > $TR/events/tlb/tlb_flush/enable
diag "threshold=0: user_perpage=$(cnt user_perpage) user_pages=$(cnt user_pages) user_widened=$(cnt user_widened)"
check "threshold=0: no user range kept" [ "$(cnt user_perpage)" = 0 ]
check "threshold=0: ranges widened" [ "$(cnt user_widened)" -ge 400 ]
check "threshold=0: counted against stock" [ "$(cnt full_where_stock_kept)" -ge 400 ]
# The kernel's tlb_flush events of user ranges of PAGES (a regex) pages;
# -i: 7.x spells it "local MM shootdown (3)", 6.x "local mm shootdown".
flushes() { grep -iE "tlb_flush: pages:$1 reason:(local mm|remote) shootdown" $TR/trace; }
ranged=$(flushes '[0-9]+' | wc -l)
full=$(flushes -1 | wc -l)
diag "threshold=0 trace: ranged=$ranged full=$full"
flushes '[0-9]+' | head -n 3 | sed 's/^/# ranged: /'
check "threshold=0: tracepoint shows no ranged flush" [ "$ranged" = 0 ]
check "threshold=0: tracepoint shows full flushes" [ "$full" -ge 400 ]

# The same with the kernel's ceiling put back to stock behind tlbpath's
# back: now only the callback's argument rewrite can widen the ranges.
echo "$orig" > $DBG
echo 0 > $TR/trace
echo 1 > $TR/events/tlb/tlb_flush/enable
mprotect -n 8 -l 50 -p 16 >/dev/null
echo 0 > $TR/events/tlb/tlb_flush/enable
ranged=$(flushes '[0-9]+' | wc -l)
full=$(flushes -1 | wc -l)
diag "threshold=0, ceiling $orig: ranged=$ranged full=$full"
check "the argument rewrite alone widens (ceiling at stock)" test "$ranged" = 0 -a "$full" -ge 400
echo 0 > $T/threshold

# A large threshold keeps 64-page ranges that the stock 33 would widen.
cap=$(cat $T/cap)
echo "$cap" > $T/threshold
check "threshold=cap sets the kernel ceiling" [ "$(ceiling)" = "$cap" ]
echo 0 > $TR/trace
echo 1 > $TR/events/tlb/tlb_flush/enable
reset_counters
mprotect -f 64 -l 200 -p 16 >/dev/null
echo 0 > $TR/events/tlb/tlb_flush/enable
check "threshold=cap: 64-page ranges kept" [ "$(cnt user_perpage)" -ge 200 ]
check "threshold=cap: nothing the stock kernel keeps is widened" [ "$(cnt full_where_stock_kept)" = 0 ]
check "threshold=cap: counted against stock" [ "$(cnt kept_where_stock_full)" -ge 200 ]
r64=$(flushes 64 | wc -l)
diag "threshold=$cap trace: 64-page flushes=$r64"
check "threshold=cap: tracepoint shows 64-page flushes" [ "$r64" -ge 100 ]

# tlbpath:decision, read through tracefs: what, how and why.
decisions() {	# decisions THRESHOLD: trace 64-page mprotects at THRESHOLD
	echo "$1" > $T/threshold
	echo 0 > $TR/trace
	echo 1 > $TR/events/tlbpath/decision/enable
	taskset -c 0 mprotect -f 64 -l 20 -p 16 >/dev/null
	echo 0 > $TR/events/tlbpath/decision/enable
}
check "the tlbpath:decision event exists in tracefs" test -e $TR/events/tlbpath/decision/format
decisions 33
check "tlbpath:decision: 64-page ranges widened, by the threshold, local" \
	test "$(grep -c 'decision: .* entries=64 footprint=[-0-9]* decision=widen reason=threshold remote=0' $TR/trace)" -ge 20
decisions "$cap"
check "tlbpath:decision: 64-page ranges kept at threshold=cap" \
	test "$(grep -c 'decision: .* stride=12 entries=64 footprint=[-0-9]* decision=perpage reason=threshold' $TR/trace)" -ge 20
check "tlbpath:decision: whole-mm flushes are the caller's" \
	sh -c "grep -q 'decision: .* end=0xffffffffffffffff .* decision=full reason=caller' $TR/trace"
grep -m 2 'decision:' $TR/trace | sed 's/^ */# trace: /'

# Remote: a thread pinned to the other CPU keeps the mm live there, so
# each of the loop's 400 mprotects flushes remotely (a few spared for a
# moment when another task has CPU 1).
reset_counters
mprotect -n 8 -l 50 -p 16 -t 1 >/dev/null
diag "threaded: remote=$(cnt user_remote) local=$(cnt user_local)"
check "flushes with a live mm elsewhere are counted as remote" [ "$(cnt user_remote)" -ge 390 ]
# One cat reads them all: a process of its own would flush between reads.
set -- $(cd $T/counters && cat user_remote user_local user_perpage user_widened \
	 user_caller_full $([ ! -e user_broadcast ] || echo user_broadcast))
bcast=${6:-0}
check "each user flush is counted on one path (remote $1 + local $2 + broadcast $bcast)" \
	[ $(( $1 + $2 + bcast )) = $(( $3 + $4 + $5 )) ]
if ! grep -qw invlpgb /proc/cpuinfo; then
	check "no broadcast flushes on a CPU without INVLPGB" [ $bcast = 0 ]
fi

# enabled=0: stock decisions (and the stock ceiling), still counted.
echo 0 > $T/threshold
echo 0 > $T/enabled
check "enabled=0 restores the stock ceiling" [ "$(ceiling)" = "$orig" ]
reset_counters
mprotect -n 8 -l 50 -p 16 >/dev/null
check "enabled=0: stock keeps small ranges despite threshold=0" [ "$(cnt user_perpage)" -ge 400 ]
check "enabled=0: nothing differs from stock" \
	[ "$(cnt kept_where_stock_full)$(cnt full_where_stock_kept)" = 00 ]
echo 1 > $T/enabled
check "enabled=1 applies the threshold again" [ "$(ceiling)" = 0 ]
echo "$thr" > $T/threshold

# Bad input changes nothing.
long=$(printf '%5000s' '' | tr ' ' 1)
for v in abc -1 "" 12abc " 5" "5 " "	5" "  " 99999999999999999999 $((cap + 1)) 0x10 1.5 "$long"; do
	check "threshold rejects '$(echo "$v" | cut -c1-24)'" rejects $T/threshold "$v"
done
before=$(cat $T/threshold)
check "threshold rejects an embedded NUL" sh -c "! printf '1\\0002' > $T/threshold 2>/dev/null"
check "... and keeps its value" [ "$(cat $T/threshold)" = "$before" ]

# Junk from several writers at once: every write fails, nothing changes.
echo 40 > $T/threshold
junk() { local i=0; while [ $i -lt 200 ]; do
	printf 'x%d' $i > $T/threshold; printf -- '-%d' $i > $T/threshold
	printf '%d' 9999999 > $T/threshold; printf 2 > $T/enabled
	i=$((i + 1)); done 2>/dev/null; }
junk & junk & junk & junk &
wait
check "4 concurrent junk writers changed nothing" \
	test "$(cat $T/threshold)" = 40 -a "$(cat $T/enabled)" = 1 -a "$(ceiling)" = 40
for v in 2 -1 yes "" 1x; do
	check "enabled rejects '$v'" rejects $T/enabled "$v"
done
check "reset rejects '0'" sh -c "! echo 0 > $T/counters/reset 2>/dev/null"
check "threshold accepts a trailing newline" sh -c "echo 40 > $T/threshold && [ \$(cat $T/threshold) = 40 ]"
check "a written threshold clears threshold_auto" [ "$(cat $T/threshold_auto)" = 0 ]
echo auto > $T/threshold
check "threshold 'auto' returns to the calibrated default" \
	[ "$(cat $T/threshold_auto)" = 1 -a "$(cat $T/threshold)" = "$thr" -a "$(ceiling)" = "$thr" ]

# Measuring again on demand; junk is refused.
echo 1 > $T/model
echo 1 > $C/run
check "calibration/run measures again" [ "$(cal runs)" = 2 -a "$(cal status)" = ok ]
check "the kernel ceiling follows a new calibration" [ "$(ceiling)" = "$(cat $T/threshold)" ]
echo 0 > $T/model
for v in 0 2 x ""; do
	check "calibration/run rejects '$v'" sh -c "! { [ -n '$v' ] && printf '%s' '$v' || echo; } > $C/run 2>/dev/null"
done
check "... and runs nothing" [ "$(cal runs)" = 2 ]

# At threshold == stock nothing can count as kept-where-stock-full, so a
# reset must leave that counter at 0 even while the system keeps flushing.
echo "$cap" > $T/threshold
mprotect -f 64 -l 20 -p 16 >/dev/null
before=$(cnt kept_where_stock_full)
pp_before=$(cnt user_perpage)
echo "$orig" > $T/threshold
reset_counters
kept_after=$(cnt kept_where_stock_full)
pp_after=$(cnt user_perpage)
diag "reset: kept_where_stock_full $before -> $kept_after, user_perpage $pp_before -> $pp_after"
check "reset zeroes the counters" \
	test "$before" -ge 20 -a "$kept_after" = 0 -a "$pp_after" -lt "$pp_before"

# tlbpath-stat: rates that move with a workload, JSON for machines.
echo "$thr" > $T/threshold
(sleep 1; mprotect -n 8 -l 100 -p 16 > /dev/null) &
tlbpath-stat -n 3 1 > /tmp/stat.out
wait
sed 's/^/# stat: /' /tmp/stat.out
# The header: the tunables, a line per CPU, "per second:", the columns.
check "tlbpath-stat prints a header with a line per CPU, and 3 lines" \
	test "$(wc -l < /tmp/stat.out)" = $(($(nproc) + 6)) -a \
	"$(grep -c '^  cpu=[0-9]* mode=' /tmp/stat.out)" = "$(nproc)"
check "tlbpath-stat's header shows the calibration" \
	grep -qE 'calibration ok \(invlpg [0-9]+, full [0-9]+, refill [0-9]+ cycles, reach [0-9]+\)' /tmp/stat.out
check "tlbpath-stat shows per-page flushes per second" \
	test "$(tail -n 3 /tmp/stat.out | awk '{ s += $1 } END { print s }')" -ge 100
check "tlbpath-stat --json prints JSON objects" \
	sh -c "tlbpath-stat --json -n 1 1 | grep -qE '^\\{\"time\":[0-9]+,.*\"user_perpage\":[0-9]+,.*\\}\$'"

# An admin changed the ceiling through debugfs while tlbpath was loaded:
# unload still restores the original, and says so.
echo 77 > $DBG
check "rmmod tlbpath" rmmod tlbpath
tlbpath-stat -n 1 > /tmp/stat.out 2>&1
check "tlbpath-stat fails and says so when tlbpath is not loaded" \
	sh -c "[ $? = 1 ] && grep -q 'tlbpath is not loaded' /tmp/stat.out"
check "unload restores the kernel ceiling" [ "$(ceiling)" = "$orig" ]
check "unload reports a ceiling changed behind its back" \
	sh -c 'dmesg | grep -q "tlb_single_page_flush_ceiling was changed behind our back (77)"' 
check "unload removes /sys/kernel/tlbpath" [ ! -e $T ]
check "unload removes the hooks" sh -c "! grep -q tlbp_ $TR/enabled_functions"
check "module parameters: threshold=100 enabled=0 at load" \
	sh -c "insmod /tlbpath.ko threshold=100 enabled=0 && [ \$(cat $T/threshold) = 100 ] && [ \$(cat $DBG) = $orig ] && rmmod tlbpath"
check "ceiling restored after the second unload" [ "$(ceiling)" = "$orig" ]
check "calibrate=0 model=1: no calibration, so no model: stock" \
	sh -c "insmod /tlbpath.ko calibrate=0 model=1 && [ \$(cat $C/status) = off ] &&
	       [ \$(cat $T/model) = 1 ] && [ \$(cat $T/threshold) = $orig ] &&
	       [ \$(cat $C/limit_4k) = 0 ] && rmmod tlbpath"
check "model=1 at load: the model decides from the start" \
	sh -c "insmod /tlbpath.ko model=1 && [ \$(cat $T/threshold) -gt $orig ] && rmmod tlbpath"

# modprobe with options from /etc/modprobe.d, the module where DKMS puts it
# (busybox's modprobe and depmod stand in for kmod's here).
mods=/lib/modules/$(uname -r)
mkdir -p $mods/updates/dkms /etc/modprobe.d
cp /tlbpath.ko $mods/updates/dkms/
depmod
echo "options tlbpath threshold=48 cap=256" > /etc/modprobe.d/tlbpath.conf
check "modprobe tlbpath takes its options from /etc/modprobe.d" \
	sh -c "modprobe tlbpath && [ \$(cat $T/threshold) = 48 ] && [ \$(cat $T/cap) = 256 ] &&
	       [ \$(cat $DBG) = 48 ] && modprobe -r tlbpath && [ ! -e $T ]"
