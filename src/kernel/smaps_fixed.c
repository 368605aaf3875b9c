// SPDX-License-Identifier: MIT
/* The smaps parser's fast path (kernel/smaps.c): the kernel's 28-byte field lines, read a
 * word at a time. */
#include "smaps_fixed.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/*
 * The kernel prints a summed field as "%-16s%8lu kB\n" (fs/proc/task_mmu.c:
 * SEQ_PUT_DEC): 28 bytes, the label and its colon padded with blanks to 16,
 * the value right-aligned in 8. Such a line is parsed by whole words: the 16
 * label bytes compared as two, the value's 8 as one. Any other shape (a value
 * of 9 digits and more, a copied tree with tabs) takes smaps.c's fast_field.
 */
#define FIXED_LEN 28
/* Every label the kernel prints in that shape, padded to 16 (those not kept: -2), found by
 * a hash of its two words: one compare a line, whatever the label (no per-letter search). */
static const struct {
	const char *text;
	signed char id;
} fixed_labels[] = {
	{"Size:", SM_SIZE},
	{"KernelPageSize:", SM_KERNEL_PAGE},
	{"MMUPageSize:", -2},
	{"Rss:", SM_RSS},
	{"Pss:", SM_PSS},
	{"Pss_Dirty:", -2},
	{"Pss_Anon:", -2},
	{"Pss_File:", -2},
	{"Pss_Shmem:", -2},
	{"Shared_Clean:", -2},
	{"Shared_Dirty:", -2},
	{"Private_Clean:", -2},
	{"Private_Dirty:", SM_PRIVATE_DIRTY},
	{"Referenced:", SM_REFERENCED},
	{"Anonymous:", SM_ANONYMOUS},
	{"KSM:", -2},
	{"LazyFree:", SM_LAZYFREE},
	{"AnonHugePages:", SM_ANON_HUGE},
	{"ShmemPmdMapped:", SM_SHMEM_PMD},
	{"FilePmdMapped:", SM_FILE_PMD},
	{"Shared_Hugetlb:", SM_SHARED_HUGETLB},
	{"Private_Hugetlb:", SM_PRIVATE_HUGETLB},
	{"Swap:", SM_SWAP},
	{"SwapPss:", -2},
	{"Locked:", -2},
};

#define FIXED_BITS 6
#define FIXED_MUL 0x5804f92283868a29ull /* no two labels above in one slot (checked at start) */

static struct fixed_slot {
	uint64_t w0, w1; /* 0, 0: empty (a label starts with a letter) */
	signed char id;
} fixed_tab[1u << FIXED_BITS];
static bool fixed_ok; /* the table was built without a collision (else: fast_field only) */

static inline unsigned fixed_hash(uint64_t w0, uint64_t w1)
{
	return (unsigned)(((w0 ^ (w1 * 3)) * FIXED_MUL) >> (64 - FIXED_BITS));
}

__attribute__((constructor)) static void fixed_build(void)
{
	for (size_t i = 0; i < sizeof(fixed_labels) / sizeof(fixed_labels[0]); i++) {
		/* padded by hand: snprintf's "%-16s" cost 22 000 instructions at every start */
		char t[16];
		size_t n = strlen(fixed_labels[i].text);
		memset(t, ' ', sizeof(t));
		memcpy(t, fixed_labels[i].text, n < sizeof(t) ? n : sizeof(t));
		uint64_t w0, w1;
		memcpy(&w0, t, 8);
		memcpy(&w1, t + 8, 8);
		struct fixed_slot *e = &fixed_tab[fixed_hash(w0, w1)];
		if (e->w0)
			return; /* a collision: leave fixed_ok false */
		*e = (struct fixed_slot){w0, w1, fixed_labels[i].id};
	}
	fixed_ok = true;
}

/*
 * The value of 8 right-aligned bytes "   12345": 0 and the number, -1 for any other shape.
 * All 8 at once (no branch a digit: the digit counts vary line to line and the branches
 * were mispredicted): the blanks must be a prefix, the rest digits, at least one.
 */
#define ONES 0x0101010101010101ull
#define HIGHS (ONES * 0x80)
static inline uint64_t zero_bytes(uint64_t x) /* 0x80 in each byte of X that is 0, exactly */
{
	return ~(((x & ~HIGHS) + ~HIGHS) | x | ~HIGHS);
}
static inline int fixed_value(const char *p, uint64_t *x)
{
	uint64_t w;
	memcpy(&w, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap64(w); /* p[0] in the low byte, as below */
#endif
	uint64_t blank = zero_bytes(w ^ (ONES * ' '));
	uint64_t c = w ^ (ONES * '0'); /* a digit: 0..9 */
	uint64_t digit = zero_bytes((c | (c + ONES * 6)) & (ONES * 0xf0));
	/* every byte a blank or a digit, the blanks first (low bytes), then 1 to 8 digits */
	if (!digit || (blank | digit) != HIGHS || digit != HIGHS << (__builtin_ctzll(digit) & ~7))
		return -1;
	uint64_t v = (w | (blank >> 3)) - ONES * '0'; /* a blank (0x20) read as '0' (0x30) */
	v = v * 10 + (v >> 8); /* pairs of digits, then fours, then the eight */
	v = (((v & 0x000000ff000000ffull) * (100 + (1000000ull << 32))) +
	     (((v >> 16) & 0x000000ff000000ffull) * (1 + (10000ull << 32)))) >>
	    32;
	*x = v;
	return 0;
}
/* Whether the 8 bytes at P hold a newline. */
static inline bool has_newline8(const char *p)
{
	uint64_t w;
	memcpy(&w, p, 8);
	return zero_bytes(w ^ (ONES * '\n')) != 0;
}
#undef ONES
#undef HIGHS

/*
 * The run of 28-byte field lines at POS before END (FIXED_LEN bytes and more before the
 * end; a kept field into S->cur, another line checked for a newline in its value), in
 * one loop with the VMA's present bits and line count in registers. Returns the first
 * line not taken: not of that shape, or a field seen before in this VMA (the careful path
 * decides); POS itself when there is none.
 */
static inline const char *fixed_lines(struct smaps_totals *t, unsigned *nl, int *err,
				      const char *pos, const char *end)
{
	if (!fixed_ok)
		return pos;
	uint32_t present = t->present;
	const uint32_t damaged = t->damaged;
	unsigned nlines = *nl;
	for (; end - pos >= FIXED_LEN && !memcmp(pos + 24, " kB\n", 4); pos += FIXED_LEN) {
		uint64_t w0, w1, x = 0;
		memcpy(&w0, pos, 8);
		memcpy(&w1, pos + 8, 8);
		const struct fixed_slot *e = &fixed_tab[fixed_hash(w0, w1)];
		int f = e->w0 == w0 && e->w1 == w1 ? e->id : -1;
		/* -2: the kernel's own label, not kept ("Pss_Dirty:" ...): no newline in its
		 * value's 8 bytes is enough (the careful path asks it for a colon alone); -1: any
		 * other 16 bytes, perhaps short lines: the careful path decides. A kept value of 0
		 * is one compare; a label found here has no newline in it, nor has a value
		 * fixed_value takes. */
		if (f == -1 || (f == -2 ? has_newline8(pos + 16)
					: ((present | damaged) & (1u << f)) ||
						  (memcmp(pos + 16, "       0", 8) &&
						   fixed_value(pos + 16, &x))))
			break;
		if (++nlines > SMAPS_MAX_VMA_LINES) {
			*err = -EFBIG;
			pos += FIXED_LEN;
			break;
		}
		if (f >= 0) {
			t->kb[f] = x;
			present |= 1u << f;
		}
	}
	t->present = present;
	*nl = nlines;
	return pos;
}

const char *smaps_fixed_run(struct smaps_stream *s, const char *pos, const char *end)
{
	return fixed_lines(&s->cur.t, &s->nlines, &s->err, pos, end);
}

const char *smaps_fixed_totals(struct smaps_totals *t, const char *pos, const char *end)
{
	unsigned nl = 0;
	int err = 0;
	return fixed_lines(t, &nl, &err, pos, end);
}
