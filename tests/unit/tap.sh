# SPDX-License-Identifier: GPL-2.0
# TAP for the shell tests of tests/unit: "ok STATUS NAME [DIAG]" numbers
# each test and passes where STATUS is 0; a failure's DIAG follows it, 20
# lines at most.  The plan: echo "1..$n".
n=0
ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		[ -z "${3:-}" ] || printf '%s\n' "$3" | head -n 20 | sed 's/^/#   /'
	fi
}
