# SPDX-License-Identifier: GPL-2.0
# Shared by the QEMU benchmark drivers, scripts/bench.sh and
# scripts/bench-overhead.sh.  Source after scripts/vmlib.sh; don't run.

# For each series of $KERNELS: its Debian kernel (find_kernel) and tlbpath
# built for it with W=1 (build_module), then RUN KVER KO.  A series with no
# kernel installed: NO_KERNEL SERIES; a failed build: NO_MODULE KVER.  The
# three run in this shell, so they may count failures in its variables.
each_kernel() {	# each_kernel NO_KERNEL NO_MODULE RUN
	local series kver ko
	for series in $KERNELS; do
		kver=$(find_kernel "$series")
		if [ -z "$kver" ]; then
			"$1" "$series"
			continue
		fi
		if ko=$(build_module "$kver"); then
			"$3" "$kver" "$ko"
		else
			"$2" "$kver"
		fi
	done
}
