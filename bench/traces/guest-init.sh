#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# /init of the corpus guest: the corpus root in an initramfs (no disk: a
# disk's I/O would complete at host-timed moments and make runs differ),
# the plugin given the kernel's symbols, the workload named on the
# kernel's command line (tlbtrace.workload=NAME), power off.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C TMPDIR=/tmp
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mount -t tmpfs -o size=1g tmp /tmp
ln -sf /proc/self/fd /dev/fd
w=$(sed -n 's/.*tlbtrace\.workload=\([^ ]*\).*/\1/p' /proc/cmdline)
echo "tlbtrace-guest: kernel $(uname -r), $(nproc) CPUs, THP $(cat /sys/kernel/mm/transparent_hugepage/enabled)"
if /opt/tlbtrace/tpctl arm; then
	/opt/tlbtrace/guest-run.sh "$w"
	echo "tlbtrace-guest: $w exit $?"
else
	echo "tlbtrace-guest: tpctl arm failed"
fi
echo o >/proc/sysrq-trigger
sleep 60
