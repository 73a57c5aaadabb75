#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tlbpath-stat --prometheus on a real module run in a Debian 6.1 guest:
# the guest's checks (guest-prometheus.sh), then, here, promtool check
# metrics on what it printed and its version against dkms.conf's.
set -uo pipefail
dir=$(dirname "$0")
. "$dir/../../scripts/vmlib.sh"

if ! command -v promtool >/dev/null; then
	echo "1..0 # SKIP promtool is not installed (make deps: Debian's prometheus)"
	exit 0
fi
out=$("$TOP/scripts/vm-test.sh" 6.1 prometheus 2)
rc=$?
case $out in "1..0 "*)
	echo "$out"
	exit 0 ;;
esac
echo "$out" | grep -v -e '^1\.\.' -e '^# guest: prom: '
n=$(echo "$out" | sed -n 's/^1\.\.\([0-9]*\)$/\1/p')
n=${n:-0}

metrics=$(echo "$out" | sed -n 's/^# guest: prom: //p')
n=$((n + 1))
if [ "$(echo "$metrics" | grep -c '^tlbpath_')" -gt 20 ] &&
   lint=$(echo "$metrics" | promtool check metrics 2>&1); then
	echo "ok $n - promtool check metrics: clean ($(echo "$metrics" | grep -c '^tlbpath_') samples)"
else
	echo "not ok $n - promtool check metrics: clean"
	echo "${lint:-no metrics came back}" | sed 's/^/# /'
	rc=1
fi
n=$((n + 1))
ver=$TLBPATH_VERSION
if grep -qx "tlbpath_info{version=\"$ver\"} 1" <<<"$metrics"; then
	echo "ok $n - the guest's module says dkms.conf's version ($ver)"
else
	echo "not ok $n - the guest's module says dkms.conf's version ($ver)"
	rc=1
fi
echo "1..$n"
exit $rc
