// SPDX-License-Identifier: GPL-2.0
/*
 * tpctl: steer tlbtrace-plugin from inside the guest (CPUID leaf
 * "TLBP"; outside the plugin it is a harmless CPUID).
 *
 *   tpctl arm          give the plugin the kernel symbols it hooks, from
 *                      /proc/kallsyms (as root), and let it hook them
 *   tpctl start        open the recorded window
 *   tpctl stop         close it
 *   tpctl mark N       write N into the log
 *   tpctl run CMD...   start, run CMD, stop; CMD's exit status
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tlbpath/types.h"

#define TP_MAGIC	0x544c4250u
enum { TP_SYM = 1, TP_ARM, TP_START, TP_STOP, TP_MARK };

/* In the order of tlbtrace-plugin.c's enum tp_sym. */
static const char *const syms[] = {
	"flush_tlb_mm_range", "switch_mm_irqs_off", "__set_task_comm", "__mmdrop",
	"page_offset_base", "__per_cpu_offset", "ldt_dup_context",
};

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define NR_SYMS		ARRAY_SIZE(syms)

static void tp(u32 cmd, u64 arg)
{
	u64 a = TP_MAGIC, b = cmd, c = arg, d = 0;

	asm volatile("cpuid" : "+a"(a), "+b"(b), "+c"(c), "+d"(d) : : "memory");
}

static int arm(void)
{
	u64 addr[NR_SYMS] = { 0 };
	char line[512], name[256], type;
	unsigned long long a;
	unsigned int i, bad = 0;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f) {
		perror("tpctl: /proc/kallsyms");
		return 1;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &a, &type, name) != 3 || strchr(line, '['))
			continue;
		for (i = 0; i < NR_SYMS; i++)
			if (!addr[i] && !strcmp(name, syms[i]))
				addr[i] = a;
	}
	fclose(f);
	for (i = 0; i < NR_SYMS; i++) {
		if (!addr[i]) {
			fprintf(stderr,
				"tpctl: %s is not in /proc/kallsyms (or reads as 0: not root?)\n",
				syms[i]);
			bad = 1;
		}
	}
	if (bad)
		return 1;
	for (i = 0; i < NR_SYMS; i++)
		tp(TP_SYM | i << 8, addr[i]);
	tp(TP_ARM, 0);
	return 0;
}

int main(int argc, char **argv)
{
	int status;
	pid_t pid;

	if (argc >= 2 && !strcmp(argv[1], "arm"))
		return arm();
	if (argc == 2 && !strcmp(argv[1], "start")) {
		tp(TP_START, 0);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "stop")) {
		tp(TP_STOP, 0);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "mark")) {
		tp(TP_MARK, strtoull(argv[2], NULL, 0));
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "run")) {
		tp(TP_START, 0);
		pid = fork();
		if (pid == 0) {
			execvp(argv[2], argv + 2);
			perror(argv[2]);
			_exit(127);
		}
		if (pid < 0 || waitpid(pid, &status, 0) < 0) {
			perror("tpctl");
			tp(TP_STOP, 0);
			return 1;
		}
		tp(TP_STOP, 0);
		return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	}
	fprintf(stderr, "usage: tpctl arm | start | stop | mark N | run CMD [ARGS...]\n");
	return 2;
}
