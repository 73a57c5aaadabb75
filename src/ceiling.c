// SPDX-License-Identifier: GPL-2.0
/*
 * Finding tlb_single_page_flush_ceiling.
 *
 * The kernel widens any range above this ceiling to a full flush itself,
 * so a per-page decision above 33 only holds if the ceiling allows it.
 * The variable is neither exported nor reachable through an exported
 * function, and kallsyms_lookup_name() is not exported either.  Calling
 * that (or anything else non-exported) through a pointer is out of the
 * question: with IBT (Debian's 6.12 enables it) such a call lands on a
 * sealed ENDBR and raises #CP on real hardware.
 *
 * What we can do without calling anything non-exported is read code.  The
 * function we hook compares against the ceiling, so its body holds a
 * RIP-relative reference to it.  Our own ftrace callback has seen the
 * address of flush_tlb_mm_range() (the load-time self-test made the
 * kernel call it); kallsyms gives its start and size; we read its bytes
 * and try every RIP-relative displacement in it.  A candidate is accepted
 * only if kallsyms names it exactly "tlb_single_page_flush_ceiling+0x0/0x8":
 * the decoding can be naive because the verification is not.  Only data is
 * ever written, with WRITE_ONCE, and only after that check.
 */
#include <linux/kallsyms.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include "tlbpath.h"

#define MAX_SCAN	4096

static unsigned long *ceiling;
static unsigned long ceiling_orig;

/* Start and size of the function @name that contains @ip. */
static int function_extent(unsigned long ip, const char *name,
			   unsigned long *start, unsigned long *size)
{
	char buf[KSYM_SYMBOL_LEN];
	unsigned long off;
	char *plus;

	if (!ip)
		return -ENOENT;
	sprint_symbol(buf, ip);
	plus = strchr(buf, '+');
	if (!plus || plus - buf != strlen(name) || strncmp(buf, name, plus - buf) ||
	    sscanf(plus, "+%lx/%lx", &off, size) != 2)
		return -ENOENT;
	*start = ip - off;
	return 0;
}

/* Is @addr exactly the start of the 8-byte variable @sym? */
static bool names_symbol(unsigned long addr, const char *sym)
{
	char buf[KSYM_SYMBOL_LEN];
	size_t len = strlen(sym);

	sprint_symbol(buf, addr);
	return !strncmp(buf, sym, len) && !strcmp(buf + len, "+0x0/0x8");
}

static unsigned long *scan_function(unsigned long ip, const char *name,
				    const char *sym)
{
	static const unsigned int imm_len[] = { 0, 1, 4 };
	unsigned long start, size, i;
	unsigned long *found = NULL;
	u8 *code;

	if (function_extent(ip, name, &start, &size))
		return NULL;
	size = min_t(unsigned long, size, MAX_SCAN);
	code = kmalloc(size, GFP_KERNEL);
	if (!code)
		return NULL;
	if (copy_from_kernel_nofault(code, (void *)start, size))
		goto out;

	/*
	 * ModRM with mod = 00 and r/m = 101 is RIP-relative: a 32-bit
	 * displacement follows, relative to the end of the instruction, which
	 * may still carry an immediate of 0, 1 or 4 bytes.
	 */
	for (i = 0; i + 5 <= size && !found; i++) {
		unsigned long next = start + i + 5;
		s32 disp;
		int k;

		if ((code[i] & 0xc7) != 0x05)
			continue;
		memcpy(&disp, code + i + 1, sizeof(disp));
		for (k = 0; k < ARRAY_SIZE(imm_len) && !found; k++)
			if (names_symbol(next + imm_len[k] + disp, sym))
				found = (unsigned long *)(next + imm_len[k] + disp);
	}
out:
	kfree(code);
	return found;
}

/* @sym is tlb_single_page_flush_ceiling but for the refusal tests. */
int tlbp_ceiling_resolve(const char *sym)
{
	ceiling = scan_function(tlbp_hook_ip(TLBP_HOOK_MM), "flush_tlb_mm_range", sym);
	if (!ceiling)
		ceiling = scan_function(tlbp_hook_ip(TLBP_HOOK_KERNEL),
					"flush_tlb_kernel_range", sym);
	if (!ceiling)
		return -ENOENT;
	ceiling_orig = READ_ONCE(*ceiling);
	return 0;
}

unsigned long tlbp_ceiling_read(void)
{
	return READ_ONCE(*ceiling);
}

void tlbp_ceiling_write(unsigned long val)
{
	WRITE_ONCE(*ceiling, val);
}

unsigned long tlbp_ceiling_original(void)
{
	return ceiling_orig;
}

void tlbp_ceiling_restore(void)
{
	WRITE_ONCE(*ceiling, ceiling_orig);
}
