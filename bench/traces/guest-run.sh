#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest-run.sh NAME: in the corpus guest (guest-init.sh), the workload
# NAME of workloads.tsv, with the recorded window (tpctl start/stop, or
# tpctl run: around the one command) around what is traced.
set -euo pipefail
T=/opt/tlbtrace
W=$T/workloads
cd /tmp

# handshake CMD...: run CMD, a program that warms up, prints "ready" and
# waits for a line on its standard input, then works, prints "done ..."
# and exits: the window is open from "ready" to "done", the program's
# start-up and exit left out.
handshake() {
	local line
	coproc P { "$@"; }
	read -r line <&"${P[0]}" && [ "$line" = ready ] ||
		{ echo "guest-run: $1 did not say ready ($line)" >&2; exit 1; }
	$T/tpctl start
	echo go >&"${P[1]}"
	read -r line <&"${P[0]}" || true
	$T/tpctl stop
	echo "$line"
	wait "$P_PID"
}

case $1 in
python3)
	$T/tpctl run python3 $W/python3.py
	;;
sqlite3)
	$T/tpctl run sqlite3 /tmp/corpus.db <$W/sqlite3.sql
	;;
cc1)
	$T/tpctl run gcc -O2 -c -o /tmp/tiny.o $T/cc/tiny.c
	;;
redis-server)
	# In the background, not --daemonize: the daemon would be a fork
	# of the process exec'd.
	redis-server --port 0 --unixsocket /tmp/redis.sock --save '' --appendonly no \
		--logfile /tmp/redis.log &
	i=0
	until redis-cli -s /tmp/redis.sock ping >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -lt 100 ] || { cat /tmp/redis.log; exit 1; }
		sleep 0.1
	done
	$T/tpctl start
	redis-benchmark -s /tmp/redis.sock -q -n 1000 -c 8 -d 512 -t set,get,lpush,lpop
	redis-cli -s /tmp/redis.sock flushall
	sleep 12
	$T/tpctl stop
	redis-cli -s /tmp/redis.sock shutdown nosave || true
	wait
	;;
java-g1)
	handshake java -XX:+UseG1GC -Xms4m -Xmx256m -cp $W Churn 2000
	;;
java-parallel)
	handshake java -XX:+UseParallelGC -Xms4m -Xmx256m -cp $W Churn 2000
	;;
node)
	handshake node $W/node.js 4000
	;;
go)
	$T/tpctl run $W/scavenge
	;;
xz)
	cat /usr/lib/x86_64-linux-gnu/libstdc++.so.6 /usr/bin/bash >/tmp/xz.all
	head -c 512K /tmp/xz.all >/tmp/xz.in
	$T/tpctl run xz -T2 -1 --block-size=128KiB -k -c /tmp/xz.in >/dev/null
	;;
*)
	echo "guest-run: no workload $1" >&2
	exit 2
	;;
esac
