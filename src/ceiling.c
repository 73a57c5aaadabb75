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
 * RIP-relative reference to it.  We find flush_tlb_mm_range() through a
 * kprobe registration (which resolves a symbol name and is exported), read
 * its bytes, and try every RIP-relative displacement in it.  A candidate
 * is accepted only if kallsyms names it exactly
 * "tlb_single_page_flush_ceiling+0x0/0x8": the decoding can be naive
 * because the verification is not.  Only data is ever written, with
 * WRITE_ONCE, and only after that check.
 */
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include "tlbpath.h"

#define CEILING_SYM	"tlb_single_page_flush_ceiling"
#define MAX_SCAN	4096

static unsigned long *ceiling;
static unsigned long ceiling_orig;

/* Start and size of a kernel function, from its name. */
static int function_extent(const char *name, unsigned long *start,
			   unsigned long *size)
{
	struct kprobe kp = { .symbol_name = name };
	char buf[KSYM_SYMBOL_LEN];
	unsigned long off;
	char *plus;
	int ret;

	ret = register_kprobe(&kp);
	if (ret)
		return ret;
	unregister_kprobe(&kp);

	sprint_symbol(buf, (unsigned long)kp.addr);
	plus = strchr(buf, '+');
	if (!plus || strncmp(buf, name, plus - buf) || plus - buf != strlen(name) ||
	    sscanf(plus, "+%lx/%lx", &off, size) != 2)
		return -ENOENT;
	*start = (unsigned long)kp.addr - off;
	return 0;
}

static bool names_ceiling(unsigned long addr)
{
	char buf[KSYM_SYMBOL_LEN];

	sprint_symbol(buf, addr);
	return !strcmp(buf, CEILING_SYM "+0x0/0x8");
}

static unsigned long *scan_function(const char *name)
{
	static const unsigned int imm_len[] = { 0, 1, 4 };
	unsigned long start, size, i;
	unsigned long *found = NULL;
	u8 *code;

	if (function_extent(name, &start, &size))
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
			if (names_ceiling(next + imm_len[k] + disp))
				found = (unsigned long *)(next + imm_len[k] + disp);
	}
out:
	kfree(code);
	return found;
}

int tlbp_ceiling_resolve(void)
{
	ceiling = scan_function("flush_tlb_mm_range");
	if (!ceiling)
		ceiling = scan_function("flush_tlb_kernel_range");
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
