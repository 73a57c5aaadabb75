# SPDX-License-Identifier: GPL-2.0
# In-guest tests of tlbpath-stat --prometheus against the loaded module:
# its numbers are sysfs's; the metrics go back as "prom: " lines, which
# the host checks with promtool (tests/vm/prometheus.t).
. /guest-lib.sh

P=/tmp/metrics.prom
# val NAME: the value of the sample NAME (with its labels) in $P.
val() { awk -v n="$1" '$1 == n { print $2 }' $P; }

check "without the module: exit 1 and no metrics" \
	sh -c '! tlbpath-stat --prometheus >/tmp/none 2>/dev/null && [ ! -s /tmp/none ]'
check "insmod tlbpath.ko" insmod /tlbpath.ko
echo 7 > $T/threshold
# Some flushes of every kind: processes come and go, pages are unmapped.
for i in 1 2 3 4 5; do staletlb -m all -n 1,8,64 -r 2 -a 0 -b 1 >/dev/null 2>&1; done

for f in $T/counters/*; do
	[ "${f##*/}" = reset ] || echo "${f##*/} $(cat $f)"
done >/tmp/before
check "tlbpath-stat --prometheus exits 0" sh -c "tlbpath-stat --prometheus >$P"
for f in $T/counters/*; do
	[ "${f##*/}" = reset ] || echo "${f##*/} $(cat $f)"
done >/tmp/after

# Each counter: HELP, TYPE counter, and a value between the reads around it.
bad=""
while read -r c b; do
	a=$(awk -v c="$c" '$1 == c { print $2 }' /tmp/after)
	v=$(val "tlbpath_${c}_total")
	grep -q "^# TYPE tlbpath_${c}_total counter\$" $P && grep -q "^# HELP tlbpath_${c}_total " $P &&
		[ -n "$v" ] && [ "$v" -ge "$b" ] && [ "$v" -le "$a" ] || bad="$bad $c($b<=${v:-none}<=$a)"
done </tmp/before
check "every counter as tlbpath_<name>_total, with HELP and TYPE, its sysfs value ($(wc -l </tmp/before) counters)" \
	[ -z "$bad" ]
[ -z "$bad" ] || diag "wrong:$bad"
check "the counters moved (flushes were counted)" \
	[ "$(awk '{ s += $2 } END { print s }' /tmp/after)" -gt 0 ]

check "tunables as gauges: threshold 7, threshold_auto 0, enabled 1, cap $(cat $T/cap)" \
	sh -c "[ '$(val tlbpath_threshold)' = 7 ] && [ '$(val tlbpath_threshold_auto)' = 0 ] &&
	       [ '$(val tlbpath_enabled)' = 1 ] && [ '$(val tlbpath_cap)' = '$(cat $T/cap)' ] &&
	       grep -q '^# TYPE tlbpath_threshold gauge\$' $P"

# Per CPU: one threshold sample per online CPU, the boot CPU's TLBs as
# geometry/ says them.
cpus=$(sed -n 's/^tlbpath_cpu_threshold{cpu="\([0-9]*\)"}.*/\1/p' $P | sort -n | tr '\n' ' ')
check "one tlbpath_cpu_threshold per online CPU ($cpus)" \
	[ "$cpus" = "$(seq 0 $(($(nproc) - 1)) | tr '\n' ' ')" ]
geo_ok=1
for t in l1d_4k l1i_4k l2_4k l1d_2m l2_2m; do
	[ "$(val "tlbpath_tlb_entries{cpu=\"0\",tlb=\"${t%_*}\",page=\"${t#*_}\"}")" = "$(cat $T/geometry/$t)" ] ||
		geo_ok=0
done
check "CPU 0's tlbpath_tlb_entries are geometry/'s ($(cat $T/geometry/source), l1d_4k $(cat $T/geometry/l1d_4k))" \
	[ $geo_ok = 1 ]
check "tlbpath_geometry_info names CPU 0's source" \
	[ "$(val "tlbpath_geometry_info{cpu=\"0\",source=\"$(cat $T/geometry/source)\"}")" = 1 ]
modes=$(sed -n 's/^cpu=\([0-9]*\) mode=\([a-z]*\) why=\([a-z-]*\) .*/\1 \2 \3/p' $T/adapt/by_cpu |
	while read -r c m w; do val "tlbpath_cpu_mode{cpu=\"$c\",mode=\"$m\",why=\"$w\"}"; done | tr -d '\n')
check "tlbpath_cpu_mode says each CPU's mode and why as adapt/by_cpu does" \
	[ "$modes" = "$(printf '1%.0s' $(seq 1 $(nproc)))" ]
check "tlbpath_controller_info names the controller ($(cat $T/adapt/controller))" \
	[ "$(val "tlbpath_controller_info{controller=\"$(cat $T/adapt/controller)\",active=\"$(cat $T/adapt/active)\"}")" = 1 ]
keep0=$(sed -n 's/^cpu=0 .* keep=\([0-9]*\) .*/\1/p' $T/adapt/by_cpu)
check "tlbpath_cpu_keep: CPU 0 keeps what adapt/by_cpu says ($keep0)" \
	[ "$(val 'tlbpath_cpu_keep{cpu="0",path="local"}')" = "$keep0" ]
if [ "$(cat $T/adapt/controller)" = time ]; then
	free0=$(sed -n 's/^cpu=0 .* free=\([a-z-]*\) .*/\1/p' $T/adapt/by_cpu)
	check "tlbpath_cpu_free_samples: CPU 0's free samples are what adapt/by_cpu says ($free0)" \
		[ "$(val 'tlbpath_cpu_free_samples{cpu="0",path="local"}')" = "$([ "$free0" = used ] && echo 1 || echo 0)" ]
	probed0=$(sed -n 's/^cpu=0 .* probed_refill_lo=\([0-9]*\) .*/\1/p' $T/adapt/by_cpu)
	check "tlbpath_cpu_refill: CPU 0's probed_low is adapt/by_cpu's probed_refill_lo (${probed0:-none})" \
		[ "$(val 'tlbpath_cpu_refill{cpu="0",bound="probed_low"}')" = "${probed0:-none}" ]
	rprobed0=$(sed -n 's/^cpu=0 .* remote_probed=\([0-9]*\)$/\1/p' $T/adapt/by_cpu)
	check "tlbpath_cpu_remote_probed: CPU 0's is adapt/by_cpu's remote_probed (${rprobed0:-none})" \
		[ "$(val 'tlbpath_cpu_remote_probed{cpu="0"}')" = "${rprobed0:-none}" ]
fi
ver=$(cat /sys/module/tlbpath/version)
check "tlbpath_info carries /sys/module/tlbpath/version ($ver)" \
	[ "$(val "tlbpath_info{version=\"$ver\"}")" = 1 ]
diag "module version $ver"
sed 's/^/prom: /' $P

check "rmmod tlbpath" rmmod tlbpath
check "after rmmod: exit 1 again" sh -c '! tlbpath-stat --prometheus >/dev/null 2>&1'
