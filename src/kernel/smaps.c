// SPDX-License-Identifier: MIT
#include "smaps.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../util/wide.h"
#include "parse.h"
#include "smaps_fixed.h"

/* Labels handled beside the summed fields: VmFlags and THPeligible (full smaps only). */
enum { L_VMFLAGS = SM_NFIELDS, L_THPELIGIBLE };

/* The first N (unsigned) bytes of an 8-byte word, in memory order (& 7: no shift past 56). */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define LMASK(n) ((n) >= 8u ? ~0ull : (n) == 0u ? 0ull : ~(~0ull >> (8u * ((n)&7u))))
#else
#define LMASK(n) ((n) >= 8u ? ~0ull : (n) == 0u ? 0ull : ((1ull << (8u * ((n)&7u))) - 1))
#endif
/* A label STR: its bytes in the first word and (past 8) in the second */
#define L(str, id)                                                                                 \
	{                                                                                          \
		{str}, sizeof(str) - 1, id, LMASK(sizeof(str) - 1),                                \
			LMASK(sizeof(str) - 1 > 8u ? sizeof(str) - 9u : 0u)                        \
	}

/* The labels kept, colon included, by first letter (the kernel's print order within one),
 * with the masks of their bytes in each 8-byte word (a label is at most 16 bytes). */
static const struct label {
	union {
		char text[16];
		uint64_t w[2];
	} u;
	unsigned char len;
	signed char id;
	uint64_t m0, m1;
} labels[][4] = {
	['A' - 'A'] = {L("Anonymous:", SM_ANONYMOUS), L("AnonHugePages:", SM_ANON_HUGE)},
	['F' - 'A'] = {L("FilePmdMapped:", SM_FILE_PMD)},
	['K' - 'A'] = {L("KernelPageSize:", SM_KERNEL_PAGE)},
	['L' - 'A'] = {L("LazyFree:", SM_LAZYFREE)},
	['P' - 'A'] = {L("Pss:", SM_PSS), L("Private_Dirty:", SM_PRIVATE_DIRTY),
		       L("Private_Hugetlb:", SM_PRIVATE_HUGETLB)},
	['R' - 'A'] = {L("Rss:", SM_RSS), L("Referenced:", SM_REFERENCED)},
	['S' - 'A'] = {L("Size:", SM_SIZE), L("Swap:", SM_SWAP), L("ShmemPmdMapped:", SM_SHMEM_PMD),
		       L("Shared_Hugetlb:", SM_SHARED_HUGETLB)},
	['T' - 'A'] = {L("THPeligible:", L_THPELIGIBLE)},
	['V' - 'A'] = {L("VmFlags:", L_VMFLAGS)},
};
#undef L

/*
 * The kept label that line [S, E) starts with (S[0] is 'A'..'Z'): its field
 * (L_* for the two per-VMA lines) into *F and the text after the colon;
 * NULL for any other line. One masked compare of 16 bytes per candidate of its
 * first letter: no scan for the colon on the ~12 lines per VMA that are kept.
 */
static inline const char *known_label(const char *s, const char *e, int *f)
{
	unsigned k = (unsigned char)s[0] - 'A';
	if (k >= sizeof(labels) / sizeof(labels[0]))
		return NULL;
	const struct label *l = labels[k];
	if (e - s >= 16) {
		uint64_t w0, w1;
		memcpy(&w0, s, 8);
		memcpy(&w1, s + 8, 8);
		for (; l < labels[k] + 4 && l->len; l++)
			if (!(((w0 ^ l->u.w[0]) & l->m0) | ((w1 ^ l->u.w[1]) & l->m1))) {
				*f = l->id;
				return s + l->len;
			}
		return NULL;
	}
	for (; l < labels[k] + 4 && l->len; l++)
		if ((size_t)(e - s) >= l->len && memcmp(s, l->u.text, l->len) == 0) {
			*f = l->id;
			return s + l->len;
		}
	return NULL;
}

/* One more than the value of a lower-case hex digit, 0 for any other byte: one load, no
 * branch on which range the digit is in (an address's digits mix 0-9 and a-f at random, and
 * that branch was mispredicted about every other digit). */
static const unsigned char hexv1[256] = {
	['0'] = 1,  ['1'] = 2,	['2'] = 3,  ['3'] = 4,	['4'] = 5,  ['5'] = 6,
	['6'] = 7,  ['7'] = 8,	['8'] = 9,  ['9'] = 10, ['a'] = 11, ['b'] = 12,
	['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
};

/* P past the blanks before E, eight at a time while eight are there (the kernel pads values
 * and names to their columns with runs of blanks). */
static inline const char *skip_blanks(const char *p, const char *e)
{
	uint64_t w;
	while (e - p >= 8 && (memcpy(&w, p, 8), w == 0x2020202020202020ull))
		p += 8;
	while (p < e && *p == ' ')
		p++;
	return p;
}

static const char *parse_hex(const char *p, const char *e, uint64_t *v)
{
	uint64_t x = 0;
	unsigned d;
	int n = 0;
	while (p < e && (d = hexv1[(unsigned char)*p]) != 0) {
		if (++n > 16)
			return NULL;
		x = x << 4 | (d - 1);
		p++;
	}
	*v = x;
	return n ? p : NULL;
}

static const char *skip_word(const char *p, const char *e)
{
	while (p < e && *p != ' ')
		p++;
	return skip_blanks(p, e);
}

/* "start-end perms offset dev inode   name" */
static int parse_header(const char *s, const char *e, struct smaps_vma *v)
{
	memset(v, 0, sizeof(*v));
	v->thp_eligible = -1;
	const char *p = parse_hex(s, e, &v->start);
	if (!p || p >= e || *p != '-')
		return -EINVAL;
	p = parse_hex(p + 1, e, &v->end);
	if (!p || p >= e || *p != ' ' || v->end < v->start)
		return -EINVAL;
	p++;
	if (e - p < 4)
		return -EINVAL;
	memcpy(v->perms, p, 4);
	v->perms[4] = '\0';
	p = skip_word(p, e); /* perms */
	p = skip_word(p, e); /* offset */
	p = skip_word(p, e); /* dev */
	p = skip_word(p, e); /* inode */
	v->name = p;
	v->name_len = (size_t)(e - p);
	return 0;
}

/* "start-end perms ..." (field lines start with an upper-case name instead) */
static bool is_header(const char *s, const char *e)
{
	const char *p = s;
	while (p < e && hexv1[(unsigned char)*p])
		p++;
	return p > s && p < e && *p == '-';
}

/* The value of a field line, [P, E) after the colon: a whole number, then " kB" or nothing. */
static inline int field_value(const char *p, const char *e, uint64_t *x)
{
	p = skip_blanks(p, e); /* the kernel right-aligns values */
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	const char *d = p;
	uint64_t v = 0;
	while (p < e && (unsigned char)(*p - '0') < 10)
		v = v * 10 + (unsigned)(*p++ - '0');
	size_t nd = (size_t)(p - d), rest = (size_t)(e - p);
	if (!nd || !(rest == 0 || (rest == 3 && p[0] == ' ' && p[1] == 'k' && p[2] == 'B')))
		return -EINVAL;
	if (nd > 19) /* 20 digits may still fit in 64 bits: the careful parser decides */
		return str_to_u64(d, nd, 0, UINT64_MAX, x);
	*x = v;
	return 0;
}

/* Whether [P, E) holds a colon: eight bytes at a time (a label is at most 16). */
static inline bool has_colon(const char *p, const char *e)
{
	uint64_t w;
	for (; e - p >= 8; p += 8) {
		memcpy(&w, p, 8);
		uint64_t x = w ^ 0x3a3a3a3a3a3a3a3aull;
		if ((x - 0x0101010101010101ull) & ~x & 0x8080808080808080ull)
			return true;
	}
	for (; p < e; p++)
		if (*p == ':')
			return true;
	return false;
}

/*
 * A "Name:   123 kB" line into T; other known lines into V when non-NULL.
 * Returns 0, or -EINVAL for a known field whose value is not a whole number
 * in range (left unknown: marked in T->damaged).
 */
static inline int parse_field(const char *s, const char *e, struct smaps_totals *t,
			      struct smaps_vma *v)
{
	int f;
	const char *c = known_label(s, e, &f);
	if (!c) /* a line not kept: damage only without a colon */
		return v && !has_colon(s, e) ? -EINVAL : 0;
	uint64_t x;
	if (f >= SM_NFIELDS) {
		if (!v)
			return 0; /* smaps_rollup prints neither */
		/* a line seen twice in one block is damage: the field is unknown */
		if (f == L_VMFLAGS) {
			bool twice = v->vmflags_seen;
			v->vmflags_seen = true;
			v->has_vmflags = false;
			v->vmflags = 0;
			if (twice)
				return -EINVAL;
			smaps_vmflags_parse(c, e, v);
			return 0;
		}
		bool twice = v->thp_seen;
		v->thp_seen = true;
		v->thp_eligible = -1;
		if (twice || field_value(c, e, &x) || x > 1)
			return -EINVAL;
		v->thp_eligible = (int)x;
		return 0;
	}
	if (((t->present | t->damaged) & (1u << f)) || field_value(c, e, &x)) {
		t->damaged |= 1u << f;
		t->present &= ~(1u << f);
		return -EINVAL;
	}
	t->kb[f] = x;
	t->present |= 1u << f;
	return 0;
}

/*
 * KernelPageSize is not summed: the total keeps the smallest, the base page
 * size (a hugetlb VMA prints its huge page size there). A sum that does not
 * fit a u64 is unknown (marked damaged), never wrapped or saturated. Returns
 * how many sums became unknown so.
 */
static unsigned totals_add(struct smaps_totals *sum, const struct smaps_totals *t)
{
	const uint32_t kp = 1u << SM_KERNEL_PAGE;
	unsigned over = 0;
	for (int i = 0; i < SM_NFIELDS; i++)
		if (i != SM_KERNEL_PAGE && !add_u64(sum->kb[i], t->kb[i], &sum->kb[i]) &&
		    !(sum->damaged & (1u << i))) {
			sum->damaged |= 1u << i;
			over++;
		}
	sum->damaged |= t->damaged;
	if ((t->present & kp) &&
	    (!(sum->present & kp) || t->kb[SM_KERNEL_PAGE] < sum->kb[SM_KERNEL_PAGE]))
		sum->kb[SM_KERNEL_PAGE] = t->kb[SM_KERNEL_PAGE];
	sum->present |= t->present;
	return over;
}

void smaps_stream_init(struct smaps_stream *s, smaps_vma_cb cb, void *ctx,
		       struct smaps_totals *totals)
{
	s->cb = cb;
	s->ctx = ctx;
	s->totals = totals;
	s->have = false;
	s->nvmas = s->nlines = s->nbad = 0;
	s->fields_any = s->totals_missing_seen = 0;
	s->fields_all = ~0u;
	s->err = 0;
	s->truncated = false;
	if (totals)
		memset(totals, 0, sizeof(*totals));
}

static int emit(struct smaps_stream *s)
{
	uint32_t have = s->cur.t.present | s->cur.t.damaged;
	s->fields_any |= have;
	s->fields_all &= have;
	if (s->totals)
		s->nbad += totals_add(s->totals, &s->cur.t); /* a sum past 2^64: partial */
	return s->cb ? s->cb(&s->cur, s->ctx) : 0;
}

/*
 * The common line of a VMA the kernel printed, "Rss:      123 kB\n" for a kept
 * field (or "THPeligible:    1\n"), at L before END: parsed into S->cur
 * without looking for the line's end first. Returns the start of the next
 * line, or NULL when the line is anything else (the careful path decides).
 */
static inline const char *fast_field(struct smaps_stream *s, const char *l, const char *end)
{
	int f;
	const char *p = known_label(l, end, &f);
	if (!p) { /* a line not kept ("Pss_Dirty:", "Locked:" ...): to its end, a colon in it */
		const char *nl = memchr(l, '\n', (size_t)(end - l));
		if (!nl)
			return NULL;
		if (++s->nlines > SMAPS_MAX_VMA_LINES) {
			s->err = -EFBIG;
			return nl + 1;
		}
		if (!has_colon(l, nl[-1] == '\r' ? nl - 1 : nl))
			s->cur.nbad++, s->nbad++;
		return nl + 1;
	}
	if (f == L_VMFLAGS)
		return NULL;
	/* a field seen twice in one block is damage: the careful path marks it */
	if (f == L_THPELIGIBLE ? s->cur.thp_seen
			       : ((s->cur.t.present | s->cur.t.damaged) & (1u << f)) != 0)
		return NULL;
	p = skip_blanks(p, end);
	const char *d = p;
	uint64_t x = 0;
	while (p < end && (unsigned char)(*p - '0') < 10)
		x = x * 10 + (unsigned)(*p++ - '0');
	size_t nd = (size_t)(p - d);
	if (!nd || nd > 19)
		return NULL;
	if (end - p >= 4 && p[0] == ' ' && p[1] == 'k' && p[2] == 'B' && p[3] == '\n')
		p += 4;
	else if (p < end && *p == '\n')
		p++;
	else
		return NULL;
	if (++s->nlines > SMAPS_MAX_VMA_LINES) {
		s->err = -EFBIG;
		return p;
	}
	if (f == L_THPELIGIBLE) {
		s->cur.thp_seen = true;
		if (x > 1) {
			s->cur.nbad++, s->nbad++;
			return p;
		}
		s->cur.thp_eligible = (int)x;
		return p;
	}
	s->cur.t.kb[f] = x;
	s->cur.t.present |= 1u << f;
	return p;
}

int smaps_stream_feed(struct smaps_stream *s, const char *text, size_t len)
{
	const char *pos = text, *end = text + len;
	while (!s->err && pos < end) {
		if (s->have && *pos >= 'A' && *pos <= 'Z') {
			const char *next = smaps_fixed_run(s, pos, end);
			if (next == pos)
				next = fast_field(s, pos, end);
			if (next) {
				pos = next;
				continue;
			}
		}
		const char *l = pos, *nl = memchr(pos, '\n', (size_t)(end - pos));
		if (!nl) { /* procfs ends every line with '\n' */
			s->truncated = true;
			break;
		}
		const char *e = nl;
		pos = nl + 1;
		if (l == e)
			continue;
		if (++s->nlines > SMAPS_MAX_VMA_LINES) {
			s->err = -EFBIG;
			break;
		}
		if (e[-1] == '\r')
			e--; /* CRLF: a copied tree */
		if (*l >= 'A' && *l <= 'Z') {
			if (!s->have)
				s->err = -EINVAL; /* a field before any header: not smaps */
			else if (parse_field(l, e, &s->cur.t, &s->cur))
				s->cur.nbad++, s->nbad++;
			continue;
		}
		if (!is_header(l, e)) {
			/* not a field, not a header (a NUL where a header was?): damage, said */
			if (!s->have)
				s->err = -EINVAL;
			else
				s->cur.nbad++, s->nbad++;
			continue;
		}
		if (s->have && (s->err = emit(s)))
			break;
		if (++s->nvmas > SMAPS_MAX_VMAS) {
			s->err = -EFBIG;
			break;
		}
		s->nlines = 0;
		if (parse_header(l, e, &s->cur)) {
			s->err = -EINVAL;
			break;
		}
		size_t n =
			s->cur.name_len < sizeof(s->name) ? s->cur.name_len : sizeof(s->name) - 1;
		/* memmove: a call (libc's copy); memcpy was inlined as a rep movsq whose start-up cost
		 * a tenth of the header line */
		memmove(s->name, s->cur.name, n);
		if (memchr(s->name, '\\', n))
			n = smaps_name_unescape(s->name, n);
		s->cur.name = s->name;
		s->cur.name_len = n;
		s->have = true;
	}
	return s->err;
}

int smaps_stream_finish(struct smaps_stream *s)
{
	if (!s->err && s->have) {
		s->have = false;
		s->err = emit(s);
	}
	/* a field missing from a block: its total is unknown, the result partial */
	uint32_t missing = s->fields_any & ~s->fields_all & ~s->totals_missing_seen;
	if (s->totals && missing) {
		s->totals->damaged |= missing;
		s->nbad += (unsigned)__builtin_popcount(missing);
	}
	s->totals_missing_seen |= missing;
	/* a sum over a damaged value is unknown */
	if (s->totals)
		s->totals->present &= ~s->totals->damaged;
	return s->err;
}

/*
 * The kernel writes a file VMA's path with seq_file_path(m, file, "\n") (fs/proc/task_mmu.c,
 * show_map_vma; fs/seq_file.c mangle_path): a byte of "\n" as a backslash and three octal
 * digits, \012, and every other byte as it is, a backslash too. So \012 is a newline of the
 * path, or four bytes of a path that holds a backslash, '0', '1', '2': the text cannot tell
 * them apart, and we read the kernel's escape (a newline shows as \x0a in text, as in a
 * comm, and is "\n" in JSON). Exact but for a path holding a literal "\012", which then
 * shows a newline. No other sequence is undone: the kernel writes none. A name of
 * PR_SET_VMA_ANON_NAME ([anon:x], [anon_shmem:x]) is printed as it is, and the kernel
 * refuses a backslash or a control byte in it, so it never holds one.
 */
size_t smaps_name_unescape(char *name, size_t len)
{
	size_t o = 0;
	for (size_t i = 0; i < len; i++) {
		if (name[i] == '\\' && len - i >= 4 && memcmp(name + i + 1, "012", 3) == 0) {
			name[o++] = '\n';
			i += 3;
		} else {
			name[o++] = name[i];
		}
	}
	return o;
}

int smaps_parse(const char *text, size_t len, smaps_vma_cb cb, void *ctx,
		struct smaps_totals *totals)
{
	struct smaps_stream s;
	smaps_stream_init(&s, cb, ctx, totals);
	smaps_stream_feed(&s, text, len);
	return smaps_stream_finish(&s);
}

int smaps_rollup_parse(const char *text, size_t len, struct smaps_totals *t)
{
	memset(t, 0, sizeof(*t));
	const char *pos = text, *end = text + len, *s, *e;
	while (pos < end) {
		/* the kernel's 28-byte lines a word at a time (smaps_fixed.c); any other the
		 * careful way */
		if (*pos >= 'A' && *pos <= 'Z') {
			const char *next = smaps_fixed_totals(t, pos, end);
			if (next != pos) {
				pos = next;
				continue;
			}
		}
		next_line(&pos, end, &s, &e);
		if (e > s && e[-1] == '\r')
			e--;
		if (s < e && *s >= 'A' && *s <= 'Z')
			parse_field(s, e, t, NULL);
	}
	t->present &= ~t->damaged;
	return t->present ? 0 : -EINVAL;
}
