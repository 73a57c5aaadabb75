// SPDX-License-Identifier: GPL-2.0
/*
 * Finding tlb_single_page_flush_ceiling.
 *
 * The kernel widens any range above this ceiling to a full flush itself,
 * so a per-page decision above 33 only holds if the ceiling allows it.
 * The variable is neither exported nor reachable through an exported
 * function, and kallsyms_lookup_name() is not exported either.  Calling
 * that (or anything else non-exported) through a pointer is out of the
 * question: with IBT (Debian's 6.12 and 7.x enable it) such a call lands
 * on a sealed ENDBR and raises #CP on real hardware.
 *
 * What we can do without calling anything non-exported is read code.  Our
 * own ftrace callbacks have seen the addresses of flush_tlb_mm_range() and
 * flush_tlb_kernel_range() (the load-time self-test made the kernel call
 * them); kallsyms gives each function's start and size; we read its bytes
 * and try every RIP-relative displacement in it.  A candidate is accepted
 * only if kallsyms names it exactly "tlb_single_page_flush_ceiling+0x0/0x8":
 * the decoding can be naive because the verification is not.  Only data is
 * ever written, with WRITE_ONCE, and only after that check.
 *
 * Up to 6.14 the comparison with the ceiling sits in flush_tlb_mm_range()
 * itself.  Since 6.15 it sits in get_flush_tlb_info(), a static helper
 * that flush_tlb_mm_range(), flush_tlb_kernel_range() and
 * arch_tlbbatch_flush() call; the compiler may inline it (Debian's 7.2
 * build does) or not.  So when a hooked function's own code does not name
 * the ceiling, the functions it calls or tail-calls directly (a call or
 * jmp with a 32-bit displacement to the entry of a function of the core
 * kernel, as kallsyms says) are read too, one level deep.  Those are only
 * read, never called.
 */
#include <linux/kallsyms.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include "ceiling_x86.h"
#include "sysfs.h"

#define MAX_SCAN	4096	/* bytes read of any one function */
#define MAX_FUNCS	48	/* functions read in all, callees included */

static unsigned long *ceiling;
static unsigned long ceiling_orig;

/* Only the refusal tests change this: a name that cannot be found. */
static char *ceiling_symbol = "tlb_single_page_flush_ceiling";
module_param(ceiling_symbol, charp, 0444);
MODULE_PARM_DESC(ceiling_symbol, "For tests only: the ceiling variable to look for");

/*
 * For the resolver's own test only: look from this function (its address
 * as /proc/kallsyms gives it) instead of from the hooked ones, to show
 * that a ceiling one call away is found and one two calls away is not.
 */
static unsigned long ceiling_root;
module_param(ceiling_root, ulong, 0444);
MODULE_PARM_DESC(ceiling_root, "For tests only: the function to look for the ceiling from");

/* One resolution's scratch space, off the stack (kallsyms names are long). */
struct scan_state {
	const char *sym;
	u8 *code;			/* MAX_SCAN bytes */
	char buf[KSYM_SYMBOL_LEN];
	char name[KSYM_NAME_LEN];
	char pfx[KSYM_NAME_LEN];
	char caller[KSYM_NAME_LEN];
	unsigned long seen[MAX_FUNCS];	/* functions read so far */
	unsigned int nr_seen;
};

/*
 * What kallsyms says of @addr: the symbol's name (into s->name), start and
 * size; false when @addr is in no symbol, or in a module or an ftrace
 * trampoline (those are printed with " [owner]" after the size).
 */
static bool symbol_extent(struct scan_state *s, unsigned long addr,
			  unsigned long *start, unsigned long *size)
{
	unsigned long off;
	char *plus;

	sprint_symbol(s->buf, addr);
	plus = strchr(s->buf, '+');
	if (!plus || strchr(s->buf, '[') || sscanf(plus, "+%lx/%lx", &off, size) != 2 ||
	    !*size || off >= *size)
		return false;
	*start = addr - off;
	*plus = '\0';
	strscpy(s->name, s->buf, sizeof(s->name));
	return true;
}

/* Is @addr exactly the start of the 8-byte variable s->sym? */
static bool names_symbol(struct scan_state *s, unsigned long addr)
{
	size_t len = strlen(s->sym);

	if (addr & (sizeof(unsigned long) - 1))	/* an unsigned long is aligned */
		return false;
	sprint_symbol(s->buf, addr);
	return !strncmp(s->buf, s->sym, len) && !strcmp(s->buf + len, "+0x0/0x8");
}

/* Read [@start, @start + @size) into s->code; how many bytes were read. */
static unsigned long read_code(struct scan_state *s, unsigned long start,
			       unsigned long size)
{
	size = min_t(unsigned long, size, MAX_SCAN);
	if (copy_from_kernel_nofault(s->code, (void *)start, size))
		return 0;
	return size;
}

/* s->sym, if a RIP-relative operand in s->code (read from @start) names it. */
static unsigned long *scan_code(struct scan_state *s, unsigned long start,
				unsigned long size)
{
	static const unsigned int imm_len[] = { 0, 1, 4 };
	unsigned long i;
	int k;

	/*
	 * ModRM with mod = 00 and r/m = 101 is RIP-relative: a 32-bit
	 * displacement follows, relative to the end of the instruction, which
	 * may still carry an immediate of 0, 1 or 4 bytes.
	 */
	for (i = 0; i + 5 <= size; i++) {
		unsigned long next = start + i + 5;
		s32 disp;

		if ((s->code[i] & 0xc7) != 0x05)
			continue;
		memcpy(&disp, s->code + i + 1, sizeof(disp));
		for (k = 0; k < ARRAY_SIZE(imm_len); k++)
			if (names_symbol(s, next + imm_len[k] + disp))
				return (unsigned long *)(next + imm_len[k] + disp);
	}
	return NULL;
}

/*
 * Where a call or jmp to @target enters a core-kernel function: its start
 * (its name in s->name, its size in *size), or 0 when @target is no
 * function entry (a stray 0xe8 byte, a jump inside a function or to its
 * .cold part, a module, a trampoline).  With call depth tracking, calls
 * are redirected to a thunk in the padding before the function
 * ("__pfx_<name>"): the function after it is the callee.
 */
static unsigned long callee_entry(struct scan_state *s, unsigned long target,
				  unsigned long *size)
{
	unsigned long start;

	if (!symbol_extent(s, target, &start, size))
		return 0;
	if (!strncmp(s->name, "__pfx_", 6)) {
		strscpy(s->pfx, s->name + 6, sizeof(s->pfx));
		target = start + *size;
		if (!symbol_extent(s, target, &start, size) || strcmp(s->name, s->pfx))
			return 0;
	}
	return start == target ? start : 0;
}

/* Read the function at @start once: false if read before, or too many. */
static bool first_visit(struct scan_state *s, unsigned long start)
{
	unsigned int i;

	for (i = 0; i < s->nr_seen; i++)
		if (s->seen[i] == start)
			return false;
	if (s->nr_seen == MAX_FUNCS)
		return false;
	s->seen[s->nr_seen++] = start;
	return true;
}

/* s->sym, named in the function s->caller at @start or in one it calls directly. */
static unsigned long *scan_with_callees(struct scan_state *s, unsigned long start,
					unsigned long size)
{
	unsigned long i, len, callee, csize;
	unsigned long *found;
	u8 *caller;

	len = read_code(s, start, size);
	if (!len)
		return NULL;
	found = scan_code(s, start, len);
	if (found)
		return found;

	/* Reading a callee overwrites s->code: keep the caller's. */
	caller = kmemdup(s->code, len, GFP_KERNEL);
	if (!caller)
		return NULL;
	for (i = 0; i + 5 <= len && !found; i++) {
		unsigned long clen;
		s32 rel;

		if (caller[i] != 0xe8 && caller[i] != 0xe9)	/* call, jmp rel32 */
			continue;
		memcpy(&rel, caller + i + 1, sizeof(rel));
		callee = callee_entry(s, start + i + 5 + rel, &csize);
		if (!callee || !first_visit(s, callee))
			continue;
		clen = read_code(s, callee, csize);
		found = clen ? scan_code(s, callee, clen) : NULL;
		if (found) {
			/* s->buf now names the variable: name the callee again. */
			symbol_extent(s, callee, &callee, &csize);
			pr_info("%s found in %s, called from %s\n", s->sym, s->name,
				s->caller);
		}
	}
	kfree(caller);
	return found;
}

/*
 * @ip is in the function @name (or, for a NULL @name, is the start of a
 * function): s->sym as it, or a function it calls directly, names it.
 */
static unsigned long *scan_function(struct scan_state *s, unsigned long ip,
				    const char *name)
{
	unsigned long start, size;

	if (!ip || !symbol_extent(s, ip, &start, &size) ||
	    (name ? strcmp(s->name, name) : start != ip) || !first_visit(s, start))
		return NULL;
	strscpy(s->caller, s->name, sizeof(s->caller));
	return scan_with_callees(s, start, size);
}

/*
 * @sym is tlb_single_page_flush_ceiling but for the refusal tests; @mm_ip,
 * @kernel_ip where the hooks saw flush_tlb_mm_range() and
 * flush_tlb_kernel_range().
 */
static int resolve(const char *sym, unsigned long mm_ip, unsigned long kernel_ip)
{
	struct scan_state *s;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	s->sym = sym;
	s->code = kmalloc(MAX_SCAN, GFP_KERNEL);
	if (s->code && ceiling_root) {
		ceiling = scan_function(s, ceiling_root, NULL);
	} else if (s->code) {
		ceiling = scan_function(s, mm_ip, "flush_tlb_mm_range");
		if (!ceiling)
			ceiling = scan_function(s, kernel_ip, "flush_tlb_kernel_range");
	}
	kfree(s->code);
	kfree(s);
	if (!ceiling)
		return -ENOENT;
	ceiling_orig = READ_ONCE(*ceiling);
	return 0;
}

int tlbp_ceiling_resolve(unsigned long mm_ip, unsigned long kernel_ip)
{
	int ret = resolve(ceiling_symbol, mm_ip, kernel_ip);

	if (ret)
		pr_err("cannot find %s in flush_tlb_mm_range() or flush_tlb_kernel_range()\n",
		       ceiling_symbol);
	return ret;
}

unsigned long tlbp_ceiling_read(void)
{
	return READ_ONCE(*ceiling);
}

/* The value tlbpath wrote last: another one at unload was an admin's. */
static unsigned long ceiling_ours;

void tlbp_ceiling_write(unsigned long val)
{
	WRITE_ONCE(*ceiling, val);
	WRITE_ONCE(ceiling_ours, val);
}

bool tlbp_ceiling_tampered(void)
{
	return READ_ONCE(*ceiling) != READ_ONCE(ceiling_ours);
}

/*
 * Raise the ceiling to @val unless it is already there (the adaptive
 * controllers, from any CPU, in atomic context): a compare-and-exchange,
 * so that no CPU lowers what another raised.
 */
void tlbp_ceiling_raise(unsigned long val)
{
	unsigned long old = READ_ONCE(*ceiling);

	while (old < val) {
		if (try_cmpxchg(ceiling, &old, val)) {
			WRITE_ONCE(ceiling_ours, val);
			return;
		}
	}
}

/* Lower it from @old to @val, unless a CPU raised it meanwhile. */
void tlbp_ceiling_lower(unsigned long old, unsigned long val)
{
	if (try_cmpxchg(ceiling, &old, val))
		WRITE_ONCE(ceiling_ours, val);
}

unsigned long tlbp_ceiling_original(void)
{
	return ceiling_orig;
}

void tlbp_ceiling_restore(void)
{
	WRITE_ONCE(*ceiling, ceiling_orig);
}

TLBP_ATTR_RO_U32(kernel_ceiling, tlbp_ceiling_read());

static struct attribute *ceiling_attrs[] = {
	&kernel_ceiling_attr.attr, NULL,
};

const struct attribute_group tlbp_ceiling_group = {
	.attrs = ceiling_attrs,
};
