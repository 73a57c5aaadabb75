// SPDX-License-Identifier: GPL-2.0
/*
 * failload N MODULE [PARAMS]: load MODULE (finit_module(2)) with the Nth
 * fault-injection point the load passes failing, through the task's
 * /proc/thread-self/fail-nth (CONFIG_FAULT_INJECTION; failslab and
 * fail_page_alloc must not ignore sleeping allocations).  The file is
 * opened and the module read before N is written, so only the load's own
 * allocations count.  Prints "loaded" or "failed errno=E", and
 * "injected=1" if the Nth point was reached, "injected=0" if the load
 * passed fewer than N.  Exit status: 0 loaded, 1 failed, 2 usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char buf[32];
	int fd, nth, r, err;
	ssize_t len;

	if (argc < 3 || atoi(argv[1]) < 1) {
		fprintf(stderr, "usage: %s N MODULE [PARAMS]\n", argv[0]);
		return 2;
	}
	fd = open(argv[2], O_RDONLY | O_CLOEXEC);
	nth = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	if (fd < 0 || nth < 0) {
		perror("failload: open");
		return 2;
	}
	len = snprintf(buf, sizeof(buf), "%d", atoi(argv[1]));
	if (write(nth, buf, len) != len) {
		perror("failload: fail-nth");
		return 2;
	}
	r = syscall(SYS_finit_module, fd, argc > 3 ? argv[3] : "", 0);
	err = errno;
	/* What is left of N: 0 once the Nth point failed. */
	len = pread(nth, buf, sizeof(buf) - 1, 0);
	buf[len > 0 ? len : 0] = '\0';
	if (write(nth, "0", 1) != 1)
		perror("failload: reset fail-nth");
	if (r == 0)
		printf("loaded injected=%d\n", atoi(buf) == 0);
	else
		printf("failed errno=%d (%s) injected=%d\n", err, strerror(err), atoi(buf) == 0);
	return r == 0 ? 0 : 1;
}
