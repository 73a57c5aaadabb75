// SPDX-License-Identifier: GPL-2.0
/*
 * tlbtrace-plugin: a QEMU TCG plugin (x86-64 system emulation) that
 * records what tlbsim needs of every process in a Linux guest: each
 * vCPU's user-space data accesses, the ranges the kernel flushes
 * (flush_tlb_mm_range()), which mm each vCPU runs, each mm's name and
 * the page size its memory is mapped with, in the order the vCPUs
 * executed them.  bench/traces/tpsplit turns its log into one tlbsim
 * trace per program (README.md beside this file).
 *
 *   qemu-system-x86_64 -accel tcg,thread=single -icount shift=0,sleep=off \
 *       -plugin tlbtrace-plugin.so,out=RAW[,limit=N] ...
 *
 * The guest steers it with CPUID, leaf TP_MAGIC in eax, the command in
 * ebx and its argument in rcx (bench/traces/tpctl.c):
 *   TP_SYM | id << 8   rcx: the address of kernel symbol id (enum tp_sym)
 *   TP_ARM             every symbol known: instrument them
 *   TP_START, TP_STOP  open and close the window that is written out
 *   TP_MARK            rcx: a number written into the log
 * Which vCPU runs is the guest's own answer, its per-CPU base (GS base in
 * the kernel, the kernel's GS base in user mode) looked up in the
 * kernel's __per_cpu_offset[]: under thread=single QEMU 10.0 passes
 * callbacks the index of the vCPU that translated the code, not of the
 * one running it (accel/tcg/plugin-gen.c, gen_cpu_index(): "Optimize
 * when we run with a single vcpu" holds whenever CF_PARALLEL is off).
 *
 * The kernel's functions are instrumented at their first instruction,
 * where the arguments are still in their registers (x86-64 SysV):
 *   flush_tlb_mm_range(mm, start, end, stride_shift, freed_tables)
 *   switch_mm_irqs_off(prev, next, tsk)        next: the mm the vCPU runs
 *   __set_task_comm(tsk, buf, exec)            exec: buf names the new mm
 *   __mmdrop(mm)                               the mm is gone
 *   ldt_dup_context(old, mm)                   fork: mm is a copy of old,
 *                                              and has its name until an exec
 * Page sizes come from the guest's page tables (CR3, through the direct
 * map at page_offset_base), walked once per 2M region and mm until a
 * flush covers the region.  The guest must run without PTI (pti=off), so
 * that the direct map is mapped in user mode too.
 *
 * Accesses are per page: consecutive accesses of one vCPU to one page
 * are one (the TLB sees nothing new in the later ones).  Everything runs
 * on TCG's one thread (thread=single): no locking.
 *
 * The log ("TPRAW001"): records of a tag byte (op | vCPU << 4) and
 * LEB128 varints:
 *   TPR_READ, TPR_WRITE  page: zigzag delta from the vCPU's previous one
 *   TPR_FLUSH   mm, start, end, stride shift (byte); end ~0: a full flush
 *   TPR_SWITCH  mm: the vCPU runs it from now on (0: none known)
 *   TPR_PSIZE   mm, 2M region (vaddr >> 21), page shift (byte)
 *   TPR_COMM    mm, 16 bytes of name
 *   TPR_DROP    mm: freed (its number is not used again)
 *   TPR_MARK    value (TP_START: 1, TP_STOP: 2, the limit: 3, TP_MARK: 16 + N)
 *   TPR_TASK    mm, task: a task not seen before runs the mm (its threads)
 */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

#include "tlbpath/types.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define TP_MAGIC	0x544c4250u	/* "TLBP" */
enum { TP_SYM = 1, TP_ARM, TP_START, TP_STOP, TP_MARK };
enum tp_sym {
	SYM_FLUSH, SYM_SWITCH, SYM_COMM, SYM_MMDROP, SYM_PAGE_OFFSET, SYM_PER_CPU_OFFSET,
	SYM_FORK, NR_SYMS
};

enum {
	TPR_READ, TPR_WRITE, TPR_FLUSH, TPR_SWITCH, TPR_PSIZE, TPR_COMM, TPR_DROP, TPR_MARK,
	TPR_TASK,
};

#define USER_TOP	0x0000800000000000ull
#define PFN_MASK	0x000ffffffffff000ull
#define MAX_VCPUS	15	/* the tag's 4 bits */
#define NAME_LEN	16

enum reg { R_RAX, R_RBX, R_RCX, R_RDX, R_RSI, R_RDI, R_CR3, R_GS, R_KGS, NR_REGS };
static const char *const reg_names[NR_REGS] = {
	"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "cr3", "gs_base", "k_gs_base",
};

/* The same on every vCPU: read on the one running (current_cpu). */
static struct qemu_plugin_register *regs[NR_REGS];

struct mm {
	u32 id;
	u32 gen;		/* a region's page size is known while its gen is this */
	bool named;
	char name[NAME_LEN];
	GHashTable *regions;	/* 2M region -> shift | gen << 8 */
	GHashTable *tasks;	/* the tasks seen running it in the window */
};

struct vcpu {
	u64 percpu;	/* its per-CPU base: __per_cpu_offset[its index] */
	struct mm *mm;		/* what it runs; NULL: not known yet */
	u64 page;		/* its previous access's page (the log's base) */
	u64 last;		/* its previous access's page, for the dedup; ~0: none */
	u64 region;	/* the region whose page size it checked last */
	u64 epoch;		/* flush_epoch then */
	int shift;		/* that region's page shift */
};

static struct vcpu vcpus[MAX_VCPUS];
static GHashTable *mms;		/* mm_struct address -> struct mm */
static u32 next_id = 1;
static u64 sym[NR_SYMS];
static u64 page_offset;
static bool armed, tracing;
static u64 flush_epoch = 1;
static u64 limit, accesses, flushes, walks;
static FILE *out;
static char *out_path;
static unsigned char obuf[64];
static GByteArray *scratch;
static qemu_plugin_id_t self;

static void oput(size_t n)
{
	if (fwrite(obuf, 1, n, out) != n) {
		fprintf(stderr, "tlbtrace-plugin: writing %s failed\n", out_path);
		exit(1);
	}
}

static size_t varint(size_t n, u64 v)
{
	while (v >= 0x80) {
		obuf[n++] = (v & 0x7f) | 0x80;
		v >>= 7;
	}
	obuf[n++] = v;
	return n;
}

static unsigned int nr_vcpus;

static u64 reg(enum reg r)
{
	u64 v = 0;

	g_byte_array_set_size(scratch, 0);
	if (qemu_plugin_read_register(regs[r], scratch) >= 4)
		memcpy(&v, scratch->data, scratch->len < 8 ? scratch->len : 8);
	return v;
}

static bool read_u64(u64 addr, u64 *v)
{
	g_byte_array_set_size(scratch, 0);
	if (!qemu_plugin_read_memory_vaddr(addr, scratch, 8))
		return false;
	memcpy(v, scratch->data, 8);
	return true;
}

/* The vCPU running, by its per-CPU base; -1 if none matches. */
static int cur_vcpu(void)
{
	u64 base = reg(R_KGS);
	unsigned int i;

	if (base < USER_TOP)
		base = reg(R_GS);	/* in the kernel: GS is the per-CPU base */
	for (i = 0; i < nr_vcpus; i++)
		if (vcpus[i].percpu == base)
			return i;
	return -1;
}

static struct mm *mm_of(u64 addr)
{
	struct mm *m = g_hash_table_lookup(mms, (gpointer)addr);

	if (!m) {
		m = g_new0(struct mm, 1);
		m->id = next_id++;
		m->gen = 1;
		m->regions = g_hash_table_new(g_direct_hash, g_direct_equal);
		m->tasks = g_hash_table_new(g_direct_hash, g_direct_equal);
		g_hash_table_insert(mms, (gpointer)addr, m);
	}
	return m;
}

static void mm_free(gpointer p)
{
	struct mm *m = p;

	g_hash_table_destroy(m->regions);
	g_hash_table_destroy(m->tasks);
	g_free(m);
}

static void rec_switch(unsigned int vcpu)
{
	obuf[0] = TPR_SWITCH | vcpu << 4;
	oput(varint(1, vcpus[vcpu].mm ? vcpus[vcpu].mm->id : 0));
}

static void rec_comm(const struct mm *m)
{
	size_t n;

	obuf[0] = TPR_COMM;
	n = varint(1, m->id);
	memcpy(obuf + n, m->name, NAME_LEN);
	oput(n + NAME_LEN);
}

static void rec_mark(u64 v)
{
	obuf[0] = TPR_MARK;
	oput(varint(1, v));
}

/* The page shift the guest maps @va with in the current page tables. */
static int walk(u64 va)
{
	u64 e, table = reg(R_CR3) & PFN_MASK;

	walks++;
	if (!read_u64(page_offset + table + ((va >> 39) & 511) * 8, &e) || !(e & 1))
		return 12;
	if (!read_u64(page_offset + (e & PFN_MASK) + ((va >> 30) & 511) * 8, &e) || !(e & 1))
		return 12;
	if (e & 0x80)
		return 30;
	if (!read_u64(page_offset + (e & PFN_MASK) + ((va >> 21) & 511) * 8, &e) || !(e & 1))
		return 12;
	return e & 0x80 ? 21 : 12;
}

/* Write a TPR_PSIZE record when @va's region is mapped otherwise than last said. */
static void check_region(unsigned int vcpu, u64 va)
{
	struct vcpu *c = &vcpus[vcpu];
	u64 region = va >> 21;
	struct mm *m = c->mm;
	gpointer v;
	int shift, said = 12;
	size_t n;

	if (c->region == region && c->epoch == flush_epoch)
		return;
	v = g_hash_table_lookup(m->regions, (gpointer)region);
	if (v && (unsigned long)v >> 8 == m->gen) {
		shift = (unsigned long)v & 0xff;
	} else {
		if (v)
			said = (unsigned long)v & 0xff;
		shift = walk(va);
		g_hash_table_insert(m->regions, (gpointer)region,
				    (gpointer)(unsigned long)(shift | (u64)m->gen << 8));
		if (shift != said && tracing) {
			obuf[0] = TPR_PSIZE | vcpu << 4;
			n = varint(1, m->id);
			n = varint(n, region);
			obuf[n++] = shift;
			oput(n);
		}
	}
	c->region = region;
	c->epoch = flush_epoch;
	c->shift = shift;
}

static void access_page(unsigned int vcpu, u64 page, bool write)
{
	struct vcpu *c = &vcpus[vcpu];
	u64 d = page - c->page;

	if (!c->mm || !tracing)
		return;
	if (page == c->last)
		return;
	c->last = page;
	check_region(vcpu, page << 12);
	c->page = page;
	obuf[0] = (write ? TPR_WRITE : TPR_READ) | vcpu << 4;
	oput(varint(1, (d << 1) ^ (u64)((s64)d >> 63)));
	if (++accesses == limit) {
		tracing = false;
		rec_mark(3);
	}
}

static u64 unknown_vcpu;

/* The vCPU running, or -1 (counted) when its per-CPU base is none known. */
static int vcpu_now(void)
{
	int vcpu = cur_vcpu();

	if (vcpu < 0)
		unknown_vcpu++;
	return vcpu;
}

static void on_mem(unsigned int vcpu_index, qemu_plugin_meminfo_t info, unsigned long va,
		   void *udata)
{
	u64 last;
	bool write;
	int vcpu;
	(void)vcpu_index;
	(void)udata;

	if (!tracing || va >= USER_TOP)
		return;
	vcpu = vcpu_now();
	if (vcpu < 0)
		return;
	write = qemu_plugin_mem_is_store(info);
	access_page(vcpu, va >> 12, write);
	last = (va + (1ull << qemu_plugin_mem_size_shift(info)) - 1) >> 12;
	if (last != va >> 12 && last < USER_TOP >> 12)
		access_page(vcpu, last, write);
}

static void forget(unsigned int vcpu)
{
	vcpus[vcpu].last = ~0ull;
	vcpus[vcpu].epoch = 0;
}

static void on_flush(unsigned int vcpu_index, void *udata)
{
	struct mm *m = mm_of(reg(R_RDI));
	u64 start = reg(R_RSI), end = reg(R_RDX);
	unsigned int shift = reg(R_RCX) & 0xff, i;
	int vcpu = vcpu_now();
	size_t n;
	(void)vcpu_index;
	(void)udata;

	/* The region cache forgets what the flush covers; everyone's dedup too. */
	if (end == ~0ull || end - start > (1024ull << 21) || end < start) {
		m->gen++;
	} else {
		u64 r;

		for (r = start >> 21; r <= (end - 1) >> 21; r++) {
			gpointer v = g_hash_table_lookup(m->regions, (gpointer)r);

			if (v)
				g_hash_table_insert(m->regions, (gpointer)r,
						    (gpointer)((unsigned long)v & 0xff));
		}
	}
	flush_epoch++;
	for (i = 0; i < MAX_VCPUS; i++)
		forget(i);
	if (!tracing || vcpu < 0)
		return;
	flushes++;
	obuf[0] = TPR_FLUSH | vcpu << 4;
	n = varint(1, m->id);
	n = varint(n, start);
	n = varint(n, end);
	obuf[n++] = shift;
	oput(n);
}

static u64 next_task = 1;

static void on_switch(unsigned int vcpu_index, void *udata)
{
	struct mm *m = mm_of(reg(R_RSI));
	u64 tsk = reg(R_RDX);
	int vcpu = vcpu_now();
	size_t n;
	(void)vcpu_index;
	(void)udata;

	if (vcpu < 0)
		return;
	if (tracing && tsk && !g_hash_table_contains(m->tasks, (gpointer)tsk)) {
		g_hash_table_add(m->tasks, (gpointer)tsk);
		obuf[0] = TPR_TASK;
		n = varint(1, m->id);
		oput(varint(n, next_task++));
	}
	if (vcpus[vcpu].mm == m)
		return;
	vcpus[vcpu].mm = m;
	forget(vcpu);
	if (tracing)
		rec_switch(vcpu);
}

static void on_comm(unsigned int vcpu_index, void *udata)
{
	u64 buf = reg(R_RSI);
	int vcpu = vcpu_now();
	unsigned int i;
	struct mm *m;
	(void)vcpu_index;
	(void)udata;

	if (vcpu < 0 || !(reg(R_RDX) & 1) || !vcpus[vcpu].mm)
		return;			/* a thread's name, or no mm known */
	m = vcpus[vcpu].mm;
	memset(m->name, 0, NAME_LEN);
	for (i = 0; i < NAME_LEN - 1; i++) {
		g_byte_array_set_size(scratch, 0);
		if (!qemu_plugin_read_memory_vaddr(buf + i, scratch, 1) || !scratch->data[0])
			break;
		m->name[i] = scratch->data[0];
	}
	m->named = true;
	if (tracing)
		rec_comm(m);
}

static void on_fork(unsigned int vcpu_index, void *udata)
{
	struct mm *old = g_hash_table_lookup(mms, (gpointer)reg(R_RDI));
	struct mm *m = mm_of(reg(R_RSI));
	(void)vcpu_index;
	(void)udata;

	if (!old || !old->named)
		return;
	memcpy(m->name, old->name, NAME_LEN);
	m->named = true;
	if (tracing)
		rec_comm(m);
}

static void on_mmdrop(unsigned int vcpu_index, void *udata)
{
	u64 addr = reg(R_RDI);
	struct mm *m = g_hash_table_lookup(mms, (gpointer)addr);
	unsigned int i;
	(void)vcpu_index;
	(void)udata;

	if (!m)
		return;
	for (i = 0; i < MAX_VCPUS; i++)
		if (vcpus[i].mm == m)
			vcpus[i].mm = NULL;	/* lazy: it runs none we know of */
	if (tracing) {
		obuf[0] = TPR_DROP;
		oput(varint(1, m->id));
	}
	g_hash_table_remove(mms, (gpointer)addr);
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);

static void at_exit(qemu_plugin_id_t id, void *udata);

/* After qemu_plugin_reset(): every callback again. */
static void rearmed(qemu_plugin_id_t id)
{
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
}

static void on_cpuid(unsigned int vcpu_index, void *udata)
{
	u64 cmd, arg, i;
	GHashTableIter it;
	gpointer k, v;
	(void)vcpu_index;
	(void)udata;

	if ((u32)reg(R_RAX) != TP_MAGIC)
		return;
	cmd = reg(R_RBX) & 0xffffffff;
	arg = reg(R_RCX);
	switch (cmd & 0xff) {
	case TP_SYM:
		if ((cmd >> 8) < NR_SYMS)
			sym[cmd >> 8] = arg;
		break;
	case TP_ARM:
		for (i = 0; i < NR_SYMS; i++)
			if (!sym[i]) {
				fprintf(stderr, "tlbtrace-plugin: symbol %llu not given\n", i);
				exit(1);
			}
		if (!read_u64(sym[SYM_PAGE_OFFSET], &page_offset)) {
			fprintf(stderr, "tlbtrace-plugin: cannot read page_offset_base\n");
			exit(1);
		}
		for (i = 0; i < nr_vcpus; i++) {
			if (!read_u64(sym[SYM_PER_CPU_OFFSET] + 8 * i, &vcpus[i].percpu)) {
				fprintf(stderr, "tlbtrace-plugin: cannot read __per_cpu_offset\n");
				exit(1);
			}
		}
		armed = true;
		/* Translate everything again, now with the kernel's functions hooked. */
		qemu_plugin_reset(self, rearmed);
		break;
	case TP_START:
		if (!armed) {
			fprintf(stderr, "tlbtrace-plugin: TP_START before TP_ARM\n");
			exit(1);
		}
		tracing = true;
		rec_mark(1);
		/* Page sizes are written as found from here on: find them again. */
		flush_epoch++;
		g_hash_table_iter_init(&it, mms);
		while (g_hash_table_iter_next(&it, &k, &v)) {
			g_hash_table_remove_all(((struct mm *)v)->regions);
			g_hash_table_remove_all(((struct mm *)v)->tasks);
			if (((struct mm *)v)->named)
				rec_comm(v);
		}
		for (i = 0; i < MAX_VCPUS; i++) {
			vcpus[i].page = 0;
			forget(i);
			if (i < nr_vcpus)
				rec_switch(i);
		}
		break;
	case TP_STOP:
		if (tracing)
			rec_mark(2);
		tracing = false;
		fflush(out);
		break;
	case TP_MARK:
		rec_mark(16 + arg);
		break;
	}
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);
	(void)id;

	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		u64 va = qemu_plugin_insn_vaddr(insn);
		unsigned char op[2];

		if (qemu_plugin_insn_size(insn) == 2 && qemu_plugin_insn_data(insn, op, 2) == 2 &&
		    op[0] == 0x0f && op[1] == 0xa2) {
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_cpuid,
							       QEMU_PLUGIN_CB_R_REGS, NULL);
			continue;
		}
		if (armed && va >= USER_TOP) {
			if (va == sym[SYM_FLUSH])
				qemu_plugin_register_vcpu_insn_exec_cb(insn, on_flush,
								       QEMU_PLUGIN_CB_R_REGS, NULL);
			else if (va == sym[SYM_SWITCH])
				qemu_plugin_register_vcpu_insn_exec_cb(insn, on_switch,
								       QEMU_PLUGIN_CB_R_REGS, NULL);
			else if (va == sym[SYM_COMM])
				qemu_plugin_register_vcpu_insn_exec_cb(insn, on_comm,
								       QEMU_PLUGIN_CB_R_REGS, NULL);
			else if (va == sym[SYM_MMDROP])
				qemu_plugin_register_vcpu_insn_exec_cb(insn, on_mmdrop,
								       QEMU_PLUGIN_CB_R_REGS, NULL);
			else if (va == sym[SYM_FORK])
				qemu_plugin_register_vcpu_insn_exec_cb(insn, on_fork,
								       QEMU_PLUGIN_CB_R_REGS, NULL);
		}
		if (armed)
			qemu_plugin_register_vcpu_mem_cb(insn, on_mem, QEMU_PLUGIN_CB_NO_REGS,
							 QEMU_PLUGIN_MEM_RW, NULL);
	}
}

static void vcpu_init(qemu_plugin_id_t id, unsigned int vcpu)
{
	GArray *list = qemu_plugin_get_registers();
	unsigned int i, r;
	(void)id;

	if (vcpu >= MAX_VCPUS) {
		fprintf(stderr, "tlbtrace-plugin: at most %d vCPUs\n", MAX_VCPUS);
		exit(1);
	}
	for (i = 0; i < list->len; i++) {
		qemu_plugin_reg_descriptor *d = &g_array_index(list, qemu_plugin_reg_descriptor, i);

		for (r = 0; r < NR_REGS; r++)
			if (!strcmp(d->name, reg_names[r]))
				regs[r] = d->handle;
	}
	g_array_free(list, true);
	for (r = 0; r < NR_REGS; r++)
		if (!regs[r]) {
			fprintf(stderr, "tlbtrace-plugin: vCPU %u has no register %s\n", vcpu,
				reg_names[r]);
			exit(1);
		}
	if (vcpu + 1 > nr_vcpus)
		nr_vcpus = vcpu + 1;
	forget(vcpu);
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	char msg[256];
	(void)id;
	(void)udata;

	if (tracing)
		rec_mark(2);
	if (fclose(out))
		fprintf(stderr, "tlbtrace-plugin: writing %s failed\n", out_path);
	snprintf(msg, sizeof(msg),
		 "tlbtrace-plugin: %llu accesses, %llu flushes, %llu page-table walks, %u mms, %llu callbacks on no known vCPU\n",
		 accesses, flushes, walks, next_id - 1, unknown_vcpu);
	qemu_plugin_outs(msg);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	int i;

	if (!info->system_emulation || strcmp(info->target_name, "x86_64")) {
		fprintf(stderr, "tlbtrace-plugin: x86_64 system emulation only\n");
		return -1;
	}
	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			out_path = g_strdup(argv[i] + 4);
		} else if (!strncmp(argv[i], "limit=", 6)) {
			limit = strtoull(argv[i] + 6, NULL, 0);
		} else {
			fprintf(stderr, "tlbtrace-plugin: unknown argument %s\n", argv[i]);
			return -1;
		}
	}
	if (!out_path) {
		fprintf(stderr, "tlbtrace-plugin: out=FILE is required\n");
		return -1;
	}
	out = fopen(out_path, "w");
	if (!out) {
		perror(out_path);
		return -1;
	}
	setvbuf(out, NULL, _IOFBF, 1 << 20);
	fwrite("TPRAW001", 1, 8, out);
	self = id;
	scratch = g_byte_array_new();
	mms = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, mm_free);
	qemu_plugin_register_vcpu_init_cb(id, vcpu_init);
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
