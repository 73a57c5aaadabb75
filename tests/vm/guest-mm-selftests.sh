# SPDX-License-Identifier: GPL-2.0
#
# The kernel's own mm selftests (from Debian's linux-source-6.1), first on
# the stock kernel, then under tlbpath at several thresholds: each must
# end exactly as it did without the module (pass, skip or fail alike).
. /guest-lib.sh

# A test that fails is run again, up to three times in all, with or
# without tlbpath alike: some of 6.1's selftests race on newer kernels
# (userfaultfd's event test once failed its UFFDIO_COPY on the stock 6.12
# kernel).  A test that tlbpath breaks fails every time, and its retries
# are reported.
run_all() {	# run_all LABEL: "name=rc" per test, with kselftest's totals
	local t rc try
	for t in mremap_test madv_populate map_fixed_noreplace map_populate \
		 mremap_dontunmap mlock2-tests soft-dirty "userfaultfd anon 8 16" \
		 "userfaultfd shmem 8 16"; do
		for try in 1 2 3; do
			/selftests/$t > /tmp/mm.out 2>&1
			rc=$?
			[ $rc = 0 ] && break
			[ $try = 3 ] || echo "# $1: $t failed ($rc, try $try of 3): $(tail -n 1 /tmp/mm.out)" >&2
		done
		echo "$t=$rc $(grep -o 'pass:[0-9]* fail:[0-9]*' /tmp/mm.out | tail -n 1)" |
			sed 's/ *$//' | tr ' ' _
		[ "$1" = stock ] && [ $rc != 0 ] && tail -n 2 /tmp/mm.out | sed "s|^|# $t: |" >&2
	done
	# transhuge-stress runs until stopped (143: by timeout's SIGTERM).
	timeout 5 /selftests/transhuge-stress 16 > /dev/null 2>&1
	echo "transhuge-stress=$?"
}

stock=$(run_all stock)
diag "stock: $(echo $stock)"
passed=$(echo "$stock" | grep -c '=0\(_\|$\)')
check "the stock kernel passes most of the mm selftests ($passed)" test "$passed" -ge 6

insmod /tlbpath.ko
for t in 0 33 $(cat $T/cap); do
	echo $t > $T/threshold
	got=$(run_all "tlbpath threshold=$t" 2>&1 >/tmp/mm.got)
	[ -z "$got" ] || echo "$got"
	got=$(cat /tmp/mm.got)
	[ "$got" = "$stock" ] || diag "threshold=$t: $(echo $got)"
	check "tlbpath threshold=$t: mm selftests end as on the stock kernel" [ "$got" = "$stock" ]
done
diag "tlbpath counters: perpage=$(cnt user_perpage) widened=$(cnt user_widened) remote=$(cnt user_remote)"
rmmod tlbpath
