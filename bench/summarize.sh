#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# summarize.sh RAW.csv > SUMMARY.csv
#
# Medians and spread of the repetitions, per setup (kernel, CPU model,
# vCPUs) and (config, threshold, workload, param, metric).  Quartiles are
# interpolated between order statistics (R's type 7, numpy's default), so
# with 5 repetitions q1 and q3 are the 2nd and 4th values.
set -eu

[ $# = 1 ] || { echo "usage: $0 RAW.csv" >&2; exit 2; }

echo "kernel,cpu,vcpus,config,threshold,workload,param,metric,n,median,min,max,q1,q3"
# raw: kernel,cpu,vcpus,date,config,threshold,workload,param,metric,rep,value
tail -n +2 "$1" |
	awk -F, -v OFS=, '{ print $1, $2, $3, $5, $6, $7, $8, $9, $11 }' |
	LC_ALL=C sort -t, -k1,8 -k9,9g |
	awk -F, -v OFS=, '
	function fmt(v) {
		return v == int(v) ? sprintf("%d", v) : sprintf("%.2f", v)
	}
	function q(p,    h, lo) {	# quantile p of x[1..n], sorted
		h = (n - 1) * p + 1
		lo = int(h)
		return lo >= n ? x[n] : x[lo] + (h - lo) * (x[lo + 1] - x[lo])
	}
	function flush() {
		if (n)
			print key, n, fmt(q(0.5)), fmt(x[1]), fmt(x[n]), fmt(q(0.25)), fmt(q(0.75))
		n = 0
	}
	{
		k = $1
		for (i = 2; i <= 8; i++)
			k = k OFS $i
		if (k != key)
			flush()
		key = k
		x[++n] = $9 + 0
	}
	END { flush() }' |
	LC_ALL=C sort -t, -k1,3 -k6,6 -k8,8 -k7,7V -k4,4 -k5,5n
