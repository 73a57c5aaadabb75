# SPDX-License-Identifier: GPL-2.0
#
# The long tier: tlbpath loaded and unloaded 50 times while stress-ng's
# flushing stressors verify their memory, the stale-TLB detector runs, and
# another process rewrites threshold and toggles enabled all the while.
. /guest-lib.sh

orig=$(ceiling)
ncpu=$(nproc)
cycles=${STRESS_CYCLES:-50}
diag "kernel $(uname -r), $ncpu CPUs, $cycles load/unload cycles, stock ceiling $orig"
rm -f /tmp/stop

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

# The stale-TLB detector, and the admin who cannot leave the knobs alone.
detector_start
tuner_start
# The other users of tlbpath's functions (tests/vm/guest-coexist.sh)
# switched on and off beside the cycles, so that each is loaded and
# unloaded before and after tlbpath in every order; the function tracer
# on the shared function only (on *tlb*, this load crawls).
coexist=${COEXIST_BESIDE-function,kprobe,kretprobe,bpf-kprobe,bpf-fentry,bpf-fexit,ipmodify,klp}
COEXIST_FILTER=$FN
[ -z "$coexist" ] || coexist_start "$coexist"

bad=$(load_cycles "$cycles")
check "$cycles load/unload cycles under load: ceiling restored and sysfs gone every time" test $bad = 0

touch /tmp/stop
kill -INT $sng 2>/dev/null
wait $sng
sng_rc=$?
wait $DETECTOR_PID $TUNER_PID ${COEXIST_PID:-} 2>/dev/null
# What stress-ng said of its stressors, and anything about one that did
# not pass, so that a failure here can be told apart (a stressor out of
# resources is not a corrupted page).
grep -iE 'stress-ng: (info|fail|error).*(tlb|mremap|mprotect|madvise|fork|vm|passed|failed|successful)|error|warn|skip|abort|killed|signal|untrustworthy|exit' \
	/tmp/sng.log | head -n 20 | sed 's/^/# /'
check "stress-ng exited cleanly (exit status $sng_rc)" test $sng_rc = 0
check "stress-ng reports no failures" sh -c "! grep -qiE 'fail(ed|ure)?[^ ]* *: *[1-9]|verification fail|: fail:' /tmp/sng.log"
rounds=$(detector_runs)
detector_summary
check "the detector ran throughout ($rounds runs)" test "$rounds" -ge 3
check "the detector saw no stale TLB entry" test ! -e /tmp/st.fail
if [ -n "$coexist" ]; then
	coexist_summary "$coexist"
	check "the cycles and the other users over: nothing left behind" all_gone
fi
