// SPDX-License-Identifier: GPL-2.0
/*
 * tlbpath: an alternative TLB flush decision for a running distro kernel.
 *
 * Load order: check the parameters, read every CPU (and measure costs),
 * hook the flush paths (passive), make the kernel flush to prove the hooks
 * run and learn where they are, find the kernel's own limit from that,
 * publish sysfs, and only then let the hooks decide.  Unload undoes it in
 * reverse and leaves the kernel as it was found.
 */
#include <linux/module.h>
#include "arch.h"
#include "sysfs.h"
#include "tunables.h"

static int __init tlbp_init(void)
{
	unsigned long stock;
	int ret;

	ret = tlbp_tunables_init();
	if (ret)
		return ret;

	ret = tlbp_arch_init();
	if (ret)
		return ret;

	/* Passive until tlbp_live: the hooks only note where they run. */
	ret = tlbp_hooks_register();
	if (ret)
		goto fail_arch;

	ret = tlbp_hooks_selftest();
	if (ret) {
		pr_err("the ftrace hooks never run (is kernel.ftrace_enabled 0, or memory short?)\n");
		goto fail_hooks;
	}

	ret = tlbp_arch_find_stock(&stock);
	if (ret)
		goto fail_hooks;
	tlbp_tunables_set_stock(stock);

	ret = tlbp_sysfs_init();
	if (ret) {
		pr_err("cannot create /sys/kernel/tlbpath (%d)\n", ret);
		goto fail_hooks;
	}
	ret = tlbp_arch_sysfs_init();
	if (ret) {
		pr_err("cannot create /sys/kernel/tlbpath (%d)\n", ret);
		goto fail_sysfs;
	}

	tlbp_tunables_start();
	tlbp_arch_report(true);
	return 0;

fail_sysfs:
	tlbp_sysfs_exit();
fail_hooks:
	tlbp_hooks_unregister();
fail_arch:
	tlbp_arch_exit();
	return ret;
}

static void __exit tlbp_exit(void)
{
	/* No sysfs writer can run past this point. */
	tlbp_arch_sysfs_exit();
	tlbp_sysfs_exit();

	/* Nothing the architecture runs moves the policy's inputs any more. */
	tlbp_arch_exit();

	tlbp_tunables_stop();

	/* Waits until no callback is running any more. */
	tlbp_hooks_unregister();
	tlbp_arch_report(false);
}

module_init(tlbp_init);
module_exit(tlbp_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("The tlbpath authors");
MODULE_DESCRIPTION("Geometry-aware choice between per-page and full TLB flushes");
MODULE_VERSION(TLBPATH_VERSION);
