// SPDX-License-Identifier: GPL-2.0
/*
 * bpfcount: count the calls of a kernel function with a BPF program,
 * attached the ways bpftrace and libbpf attach one, with nothing but the
 * bpf(2) and perf_event_open(2) system calls (a static binary for the
 * guest: no libbpf, no clang; the program is a dozen instructions).
 *
 *   bpfcount -k KIND -f FUNCTION [-e ARG]
 *
 *   kprobe, kretprobe  a perf kprobe event with a BPF_PROG_TYPE_KPROBE
 *                      program (bpftrace's kprobe:/kretprobe:)
 *   kprobe_multi       a kprobe_multi link (fprobe; bpftrace's wildcards)
 *   fentry, fexit      a BPF trampoline, found by the function's BTF id in
 *                      /sys/kernel/btf/vmlinux (ftrace direct calls)
 *
 * With -e ARG (fentry, fexit), it also counts the calls whose argument
 * number ARG (from 0) is ~0UL ("full"): for flush_tlb_mm_range()'s end
 * argument, the calls the trampoline saw as full flushes (TLB_FLUSH_ALL).
 *
 * Once attached it prints "bpfcount: attached KIND FUNCTION"; on SIGTERM
 * or SIGINT, "bpfcount KIND FUNCTION events=N full=M", and exits 0.  A
 * kernel that cannot attach KIND to FUNCTION: "bpfcount: unsupported:
 * ..." and exit 2; any other failure exits 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The kernel's own "not supported" (include/linux/errno.h, not in UAPI). */
#define ENOTSUPP	524

static const char *kind, *func;

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static void die(int code, const char *what)
{
	int e = errno;

	if (code == 2)
		printf("bpfcount: unsupported: %s %s: %s (%d)\n", kind, func, what, e);
	else
		fprintf(stderr, "bpfcount: %s %s: %s: %s (%d)\n", kind, func, what,
			strerror(e), e);
	fflush(stdout);
	exit(code);
}

/* Attach errors that mean "this kernel cannot", not "this program is wrong". */
static int unsupported(void)
{
	return errno == ENOTSUPP || errno == EOPNOTSUPP || errno == ENODEV ||
	       errno == ENOSYS || errno == ENOENT;
}

/* An array map of two u64 counters: [0] every call, [1] those matching -e. */
static int make_map(void)
{
	union bpf_attr a = { 0 };
	int fd;

	a.map_type = BPF_MAP_TYPE_ARRAY;
	a.key_size = sizeof(uint32_t);
	a.value_size = sizeof(uint64_t);
	a.max_entries = 2;
	fd = sys_bpf(BPF_MAP_CREATE, &a);
	if (fd < 0)
		die(1, "BPF_MAP_CREATE");
	return fd;
}

static uint64_t read_counter(int map, uint32_t key)
{
	union bpf_attr a = { 0 };
	uint64_t v = 0;

	a.map_fd = map;
	a.key = (uintptr_t)&key;
	a.value = (uintptr_t)&v;
	if (sys_bpf(BPF_MAP_LOOKUP_ELEM, &a))
		die(1, "BPF_MAP_LOOKUP_ELEM");
	return v;
}

#define INSN(c, d, s, o, i) \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) })

/* counters[key]++ (clobbers r0-r5): 9 instructions. */
static int emit_count(struct bpf_insn *p, int map, int key)
{
	struct bpf_insn *s = p;

	*p++ = INSN(BPF_ST | BPF_MEM | BPF_W, BPF_REG_10, 0, -4, key);
	*p++ = INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, BPF_PSEUDO_MAP_FD, 0, map);
	*p++ = INSN(0, 0, 0, 0, 0);
	*p++ = INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, BPF_REG_10, 0, 0);
	*p++ = INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, -4);
	*p++ = INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem);
	*p++ = INSN(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 2, 0);
	*p++ = INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_1, 0, 0, 1);
	*p++ = INSN(BPF_STX | BPF_ATOMIC | BPF_DW, BPF_REG_0, BPF_REG_1, 0, BPF_ADD);
	return p - s;
}

/*
 * The program: count every call; with @arg >= 0 (a tracing program,
 * whose context is the array of the function's arguments) also count the
 * calls whose argument @arg is ~0UL.
 */
static int make_prog(int map, int arg, struct bpf_insn *insns)
{
	struct bpf_insn *p = insns;

	*p++ = INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_6, BPF_REG_1, 0, 0);
	p += emit_count(p, map, 0);
	if (arg >= 0) {
		*p++ = INSN(BPF_LDX | BPF_MEM | BPF_DW, BPF_REG_1, BPF_REG_6, arg * 8, 0);
		/* The immediate is sign-extended: -1 is ~0UL. */
		*p++ = INSN(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_1, 0, 9, -1);
		p += emit_count(p, map, 1);
	}
	*p++ = INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0);
	*p++ = INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	return p - insns;
}

static char vlog[65536];

static int load_prog(int type, int attach_type, uint32_t btf_id, int map, int arg)
{
	struct bpf_insn insns[40];
	union bpf_attr a = { 0 };
	int fd;

	a.prog_type = type;
	a.expected_attach_type = attach_type;
	a.attach_btf_id = btf_id;
	a.insns = (uintptr_t)insns;
	a.insn_cnt = make_prog(map, arg, insns);
	a.license = (uintptr_t)"GPL";
	a.log_buf = (uintptr_t)vlog;
	a.log_size = sizeof(vlog);
	a.log_level = 1;
	fd = sys_bpf(BPF_PROG_LOAD, &a);
	if (fd < 0) {
		int e = errno;

		fprintf(stderr, "%s", vlog);
		errno = e;
		die(unsupported() ? 2 : 1, "BPF_PROG_LOAD");
	}
	return fd;
}

/* The BTF id of the FUNC @name in the kernel's own BTF. */
static uint32_t btf_func_id(const char *name)
{
	struct btf_header h;
	unsigned char *b, *t, *end;
	size_t cap, n = 0;
	uint32_t id = 1;
	ssize_t got;
	int fd;

	fd = open("/sys/kernel/btf/vmlinux", O_RDONLY);
	if (fd < 0)
		die(2, "no /sys/kernel/btf/vmlinux");
	/* A sysfs binary file: read it to the end. */
	cap = 1 << 22;
	b = malloc(cap);
	while (b && (got = read(fd, b + n, cap - n)) > 0) {
		n += got;
		if ((size_t)n == cap)
			b = realloc(b, cap *= 2);
	}
	close(fd);
	if (!b || n < sizeof(h))
		die(1, "reading /sys/kernel/btf/vmlinux");
	memcpy(&h, b, sizeof(h));
	if (h.magic != BTF_MAGIC)
		die(1, "/sys/kernel/btf/vmlinux is no BTF");
	t = b + h.hdr_len + h.type_off;
	end = t + h.type_len;
	while (t + sizeof(struct btf_type) <= end) {
		struct btf_type *bt = (struct btf_type *)t;
		unsigned int k = BTF_INFO_KIND(bt->info), vlen = BTF_INFO_VLEN(bt->info);
		const char *s = (const char *)b + h.hdr_len + h.str_off + bt->name_off;

		if (k == BTF_KIND_FUNC && !strcmp(s, name))
			return id;
		t += sizeof(*bt);
		/* What follows each kind's struct btf_type (include/uapi/linux/btf.h). */
		switch (k) {
		case BTF_KIND_INT:
		case BTF_KIND_VAR:
		case 17:	/* BTF_KIND_DECL_TAG */
			t += 4;
			break;
		case BTF_KIND_ARRAY:
			t += sizeof(struct btf_array);
			break;
		case BTF_KIND_STRUCT:
		case BTF_KIND_UNION:
		case BTF_KIND_DATASEC:
		case 19:	/* BTF_KIND_ENUM64 */
			t += vlen * 12;
			break;
		case BTF_KIND_ENUM:
		case BTF_KIND_FUNC_PROTO:
			t += vlen * 8;
			break;
		default:
			break;
		}
		id++;
	}
	errno = ENOENT;
	die(2, "no BTF FUNC of that name");
	return 0;
}

/* A perf kprobe event (kprobe PMU) on @func, running @prog. */
static int attach_perf_kprobe(int prog, int ret)
{
	struct perf_event_attr pa = { 0 };
	char buf[64] = "";
	int fd, type, bit = 0;
	FILE *f;

	f = fopen("/sys/bus/event_source/devices/kprobe/type", "r");
	if (!f || fscanf(f, "%d", &type) != 1)
		die(2, "no kprobe PMU");
	fclose(f);
	if (ret) {
		f = fopen("/sys/bus/event_source/devices/kprobe/format/retprobe", "r");
		if (!f || !fgets(buf, sizeof(buf), f) || sscanf(buf, "config:%d", &bit) != 1)
			die(2, "no kprobe PMU retprobe format");
		fclose(f);
	}
	pa.size = sizeof(pa);
	pa.type = type;
	pa.config = ret ? 1ULL << bit : 0;
	pa.config1 = (uintptr_t)func;	/* kprobe_func */
	pa.config2 = 0;			/* probe_offset */
	pa.sample_period = 1;
	pa.wakeup_events = 1;
	fd = syscall(__NR_perf_event_open, &pa, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		die(unsupported() ? 2 : 1, "perf_event_open(kprobe)");
	if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog) || ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
		die(1, "PERF_EVENT_IOC_SET_BPF");
	return fd;
}

static int attach_kprobe_multi(int prog)
{
	const char *syms[1] = { func };
	union bpf_attr a = { 0 };
	int fd;

	a.link_create.prog_fd = prog;
	a.link_create.attach_type = BPF_TRACE_KPROBE_MULTI;
	a.link_create.kprobe_multi.cnt = 1;
	a.link_create.kprobe_multi.syms = (uintptr_t)syms;
	fd = sys_bpf(BPF_LINK_CREATE, &a);
	if (fd < 0)
		die(unsupported() ? 2 : 1, "BPF_LINK_CREATE(kprobe_multi)");
	return fd;
}

static int attach_tracing(int prog)
{
	union bpf_attr a = { 0 };
	int fd;

	a.raw_tracepoint.name = 0;
	a.raw_tracepoint.prog_fd = prog;
	fd = sys_bpf(BPF_RAW_TRACEPOINT_OPEN, &a);
	if (fd < 0)
		die(unsupported() ? 2 : 1, "BPF_RAW_TRACEPOINT_OPEN(trampoline)");
	return fd;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	int map, prog, c, arg = -1;
	sigset_t block, old;

	while ((c = getopt(argc, argv, "k:f:e:")) != -1) {
		switch (c) {
		case 'k':
			kind = optarg;
			break;
		case 'f':
			func = optarg;
			break;
		case 'e':
			arg = atoi(optarg);
			break;
		default:
			return 1;
		}
	}
	if (!kind || !func) {
		fprintf(stderr, "usage: bpfcount -k kprobe|kretprobe|kprobe_multi|fentry|fexit\n"
			"                -f FUNCTION [-e ARG]\n");
		return 1;
	}
	/* Blocked until sigsuspend(), so that no signal falls in between. */
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigprocmask(SIG_BLOCK, &block, &old);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	map = make_map();
	if (!strcmp(kind, "kprobe") || !strcmp(kind, "kretprobe")) {
		prog = load_prog(BPF_PROG_TYPE_KPROBE, 0, 0, map, -1);
		attach_perf_kprobe(prog, !strcmp(kind, "kretprobe"));
	} else if (!strcmp(kind, "kprobe_multi")) {
		prog = load_prog(BPF_PROG_TYPE_KPROBE, BPF_TRACE_KPROBE_MULTI, 0, map, -1);
		attach_kprobe_multi(prog);
	} else if (!strcmp(kind, "fentry") || !strcmp(kind, "fexit")) {
		prog = load_prog(BPF_PROG_TYPE_TRACING,
				 !strcmp(kind, "fentry") ? BPF_TRACE_FENTRY : BPF_TRACE_FEXIT,
				 btf_func_id(func), map, arg);
		attach_tracing(prog);
	} else {
		fprintf(stderr, "bpfcount: unknown kind %s\n", kind);
		return 1;
	}
	printf("bpfcount: attached %s %s\n", kind, func);
	fflush(stdout);
	while (!stop)
		sigsuspend(&old);
	printf("bpfcount %s %s events=%llu full=%llu\n", kind, func,
	       (unsigned long long)read_counter(map, 0),
	       (unsigned long long)read_counter(map, 1));
	return 0;
}
