# SPDX-License-Identifier: GPL-2.0
# needs: stress-ng
#
# The long tier: tlbpath loaded and unloaded 50 times while stress-ng's
# flushing stressors verify their memory, the stale-TLB detector runs, and
# another process rewrites threshold and toggles enabled all the while.
. /guest-lib.sh

orig=$(ceiling)
ncpu=$(nproc)
cycles=${STRESS_CYCLES:-50}
diag "kernel $(uname -r), $ncpu CPUs, $cycles load/unload cycles, stock ceiling $orig"
rm -f /tmp/stop /tmp/st.fail

# stress-ng runs as an unprivileged user.  As root its madvise stressor
# also poisons pages (MADV_HWPOISON), and on 6.12 the SIGBUS that follows
# kills it: exit status 2, "unsuccessful run", with no tlbpath loaded as
# well.  Unprivileged, it exercises every other advice as before.
echo "stress:x:1000:1000::/tmp:/bin/sh" >> /etc/passwd
echo "stress:x:1000:" >> /etc/group
chmod 1777 /tmp
stressors="--tlb-shootdown 1 --mremap 1 --mprotect 1 --madvise 1 --fork 1 --vm 1 --vm-bytes 16M"
su -s /bin/sh stress -c "cd /tmp && exec stress-ng $stressors --verify --timeout 1800s --metrics-brief" \
	> /tmp/sng.log 2>&1 &
sng=$!

# The detector, reader and revoker on the last two CPUs, round after round.
( while [ ! -e /tmp/stop ]; do
	staletlb -m all -n 1,8,33,34,64,513 -r 1 -a $((ncpu - 2)) -b $((ncpu - 1)) \
		>> /tmp/st.log 2>&1 || touch /tmp/st.fail
  done ) &
det=$!

# The admin who cannot leave the knobs alone (fails quietly while unloaded).
( while [ ! -e /tmp/stop ]; do
	for t in 0 1 8 33 64 200 512 auto; do echo $t > $T/threshold; done
	echo 0 > $T/enabled; echo 1 > $T/enabled
  done 2>/dev/null ) &
tuner=$!

bad=0 i=0
while [ $i -lt $cycles ]; do
	i=$((i + 1))
	if ! insmod /tlbpath.ko threshold=$(( (i * 37) % 513 )); then
		diag "cycle $i: insmod failed: $(dmesg | tail -n 1)"
		bad=$((bad + 1))
		continue
	fi
	sleep 0.2
	if ! rmmod tlbpath; then
		diag "cycle $i: rmmod failed"
		bad=$((bad + 1))
		continue
	fi
	if [ "$(ceiling)" != "$orig" ] || [ -e $T ]; then
		diag "cycle $i: ceiling $(ceiling) (want $orig) or $T still there"
		bad=$((bad + 1))
	fi
done
check "$cycles load/unload cycles under load: ceiling restored and sysfs gone every time" test $bad = 0

touch /tmp/stop
kill -INT $sng 2>/dev/null
wait $sng
sng_rc=$?
wait $det $tuner 2>/dev/null
# What stress-ng said of its stressors, and anything about one that did
# not pass, so that a failure here can be told apart (a stressor out of
# resources is not a corrupted page).
grep -iE 'stress-ng: (info|fail|error).*(tlb|mremap|mprotect|madvise|fork|vm|passed|failed|successful)|error|warn|skip|abort|killed|signal|untrustworthy|exit' \
	/tmp/sng.log | head -n 20 | sed 's/^/# /'
check "stress-ng exited cleanly (exit status $sng_rc)" test $sng_rc = 0
check "stress-ng reports no failures" sh -c "! grep -qiE 'fail(ed|ure)?[^ ]* *: *[1-9]|verification fail|: fail:' /tmp/sng.log"
rounds=$(grep -c '^staletlb total' /tmp/st.log)
diag "detector: $rounds runs, $(awk '/^staletlb total/ { r += substr($3, 7); s += substr($4, 7) } END { print r " reads, " s " stale" }' /tmp/st.log)"
check "the detector ran throughout ($rounds runs)" test "$rounds" -ge 3
check "the detector saw no stale TLB entry" test ! -e /tmp/st.fail
