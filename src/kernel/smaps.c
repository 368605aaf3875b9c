// SPDX-License-Identifier: MIT
#include "smaps.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "../util/wide.h"
#include "parse.h"

/* Field table in the kernel's print order (fs/proc/task_mmu.c). */
static const struct {
	const char *name;
	unsigned char len;
} fields[SM_NFIELDS] = {
	[SM_SIZE] = {"Size", 4},
	[SM_KERNEL_PAGE] = {"KernelPageSize", 14},
	[SM_RSS] = {"Rss", 3},
	[SM_PSS] = {"Pss", 3},
	[SM_PRIVATE_DIRTY] = {"Private_Dirty", 13},
	[SM_ANONYMOUS] = {"Anonymous", 9},
	[SM_ANON_HUGE] = {"AnonHugePages", 13},
	[SM_SHMEM_PMD] = {"ShmemPmdMapped", 14},
	[SM_FILE_PMD] = {"FilePmdMapped", 13},
	[SM_SHARED_HUGETLB] = {"Shared_Hugetlb", 14},
	[SM_PRIVATE_HUGETLB] = {"Private_Hugetlb", 15},
	[SM_SWAP] = {"Swap", 4},
	[SM_LAZYFREE] = {"LazyFree", 8},
	[SM_REFERENCED] = {"Referenced", 10},
};

const char *smaps_field_name(enum smaps_field f)
{
	return (unsigned)f < SM_NFIELDS ? fields[f].name : "?";
}

/* Labels handled beside the summed fields: VmFlags and THPeligible (full smaps only). */
enum { L_VMFLAGS = SM_NFIELDS, L_THPELIGIBLE };

/* The labels kept, colon included, by first letter (the kernel's print order within one). */
static const struct label {
	char text[16];
	unsigned char len;
	signed char id;
} labels[][4] = {
	['A' - 'A'] = {{"Anonymous:", 10, SM_ANONYMOUS}, {"AnonHugePages:", 14, SM_ANON_HUGE}},
	['F' - 'A'] = {{"FilePmdMapped:", 14, SM_FILE_PMD}},
	['K' - 'A'] = {{"KernelPageSize:", 15, SM_KERNEL_PAGE}},
	['L' - 'A'] = {{"LazyFree:", 9, SM_LAZYFREE}},
	['P' - 'A'] = {{"Pss:", 4, SM_PSS},
		       {"Private_Dirty:", 14, SM_PRIVATE_DIRTY},
		       {"Private_Hugetlb:", 16, SM_PRIVATE_HUGETLB}},
	['R' - 'A'] = {{"Rss:", 4, SM_RSS}, {"Referenced:", 11, SM_REFERENCED}},
	['S' - 'A'] = {{"Size:", 5, SM_SIZE},
		       {"Swap:", 5, SM_SWAP},
		       {"ShmemPmdMapped:", 15, SM_SHMEM_PMD},
		       {"Shared_Hugetlb:", 15, SM_SHARED_HUGETLB}},
	['T' - 'A'] = {{"THPeligible:", 12, L_THPELIGIBLE}},
	['V' - 'A'] = {{"VmFlags:", 8, L_VMFLAGS}},
};

/*
 * The kept label that line [S, E) starts with (S[0] is 'A'..'Z'): its field
 * (L_* for the two per-VMA lines) into *F and the text after the colon;
 * NULL for any other line. One compare per candidate of its first letter: no
 * scan for the colon on the ~12 lines per VMA that are kept.
 */
static inline const char *known_label(const char *s, const char *e, int *f)
{
	unsigned k = (unsigned char)s[0] - 'A';
	if (k >= sizeof(labels) / sizeof(labels[0]))
		return NULL;
	uint64_t w0 = 0, w1 = 0;
	bool wide = e - s >= 16; /* compare 16 bytes at once: a label is at most 16 */
	if (wide) {
		memcpy(&w0, s, 8);
		memcpy(&w1, s + 8, 8);
	}
	for (const struct label *l = labels[k]; l < labels[k] + 4 && l->len; l++) {
		bool same;
		if (wide) {
			uint64_t t0, t1, m0, m1;
			memcpy(&t0, l->text, 8);
			memcpy(&t1, l->text + 8, 8);
			/* little or big endian alike: the label's bytes are the first LEN */
			m0 = l->len >= 8 ? ~0ull : ((1ull << (8 * l->len)) - 1);
			m1 = l->len <= 8    ? 0
			     : l->len >= 16 ? ~0ull
					    : ((1ull << (8 * (l->len - 8))) - 1);
			if (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__) {
				m0 = l->len >= 8 ? ~0ull : ~(~0ull >> (8 * l->len));
				m1 = l->len <= 8    ? 0
				     : l->len >= 16 ? ~0ull
						    : ~(~0ull >> (8 * (l->len - 8)));
			}
			same = !(((w0 ^ t0) & m0) | ((w1 ^ t1) & m1));
		} else {
			same = (size_t)(e - s) >= l->len && memcmp(s, l->text, l->len) == 0;
		}
		if (same) {
			*f = l->id;
			return s + l->len;
		}
	}
	return NULL;
}

static inline int hexval(char c)
{
	unsigned char u = (unsigned char)c;
	if ((unsigned char)(u - '0') < 10)
		return u - '0';
	if ((unsigned char)(u - 'a') < 6)
		return u - 'a' + 10;
	return -1;
}

static const char *parse_hex(const char *p, const char *e, uint64_t *v)
{
	uint64_t x = 0;
	int d, n = 0;
	while (p < e && (d = hexval(*p)) >= 0) {
		if (++n > 16)
			return NULL;
		x = x << 4 | (uint64_t)d;
		p++;
	}
	*v = x;
	return n ? p : NULL;
}

static const char *skip_word(const char *p, const char *e)
{
	while (p < e && *p != ' ')
		p++;
	while (p < e && *p == ' ')
		p++;
	return p;
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
	while (p < e && hexval(*p) >= 0)
		p++;
	return p > s && p < e && *p == '-';
}

static void parse_vmflags(const char *p, const char *e, struct smaps_vma *v)
{
	v->has_vmflags = true;
	while (p < e) {
		while (p < e && *p == ' ')
			p++;
		if (e - p >= 2 && (p + 2 == e || p[2] == ' ')) {
			if (p[0] == 'h' && p[1] == 'g')
				v->vmflags |= VMF_HG;
			else if (p[0] == 'n' && p[1] == 'h')
				v->vmflags |= VMF_NH;
			else if (p[0] == 'h' && p[1] == 't')
				v->vmflags |= VMF_HT;
			else if (p[0] == 's' && p[1] == 'h')
				v->vmflags |= VMF_SH;
		}
		while (p < e && *p != ' ')
			p++;
	}
}

/* The value of a field line, [P, E) after the colon: a whole number, then " kB" or nothing. */
static inline int field_value(const char *p, const char *e, uint64_t *x)
{
	/* the kernel right-aligns values: skip its padding eight blanks at a time */
	uint64_t w;
	while (e - p >= 8 && (memcpy(&w, p, 8), w == 0x2020202020202020ull))
		p += 8;
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
			parse_vmflags(c, e, v);
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
	s->err = 0;
	s->truncated = false;
	if (totals)
		memset(totals, 0, sizeof(*totals));
}

static int emit(struct smaps_stream *s)
{
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
	if (!p || f == L_VMFLAGS)
		return NULL;
	/* a field seen twice in one block is damage: the careful path marks it */
	if (f == L_THPELIGIBLE ? s->cur.thp_seen
			       : ((s->cur.t.present | s->cur.t.damaged) & (1u << f)) != 0)
		return NULL;
	uint64_t w;
	while (end - p >= 8 && (memcpy(&w, p, 8), w == 0x2020202020202020ull))
		p += 8;
	while (p < end && *p == ' ')
		p++;
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
			const char *next = fast_field(s, pos, end);
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
		memcpy(s->name, s->cur.name, n);
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
	/* a sum over a damaged value is unknown */
	if (s->totals)
		s->totals->present &= ~s->totals->damaged;
	return s->err;
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
	while (next_line(&pos, end, &s, &e)) {
		if (e > s && e[-1] == '\r')
			e--;
		if (s < e && *s >= 'A' && *s <= 'Z')
			parse_field(s, e, t, NULL);
	}
	t->present &= ~t->damaged;
	return t->present ? 0 : -EINVAL;
}

/* Private anonymous: no name, or a name given with PR_SET_VMA_ANON_NAME ("[anon:...]"). */
static bool anon_private(const struct smaps_vma *v)
{
	return v->perms[3] == 'p' &&
	       (v->name_len == 0 || (v->name_len > 6 && memcmp(v->name, "[anon:", 6) == 0));
}

bool smaps_stack_guard(const struct smaps_vma *v)
{
	return v->has_vmflags && (v->vmflags & VMF_NH) && anon_private(v) &&
	       memcmp(v->perms, "---", 3) == 0 && v->t.kb[SM_SIZE] <= SMAPS_STACK_GUARD_MAX_KB;
}

bool smaps_stack_feed(struct smaps_stack_scan *s, const struct smaps_vma *v, uint64_t *kb)
{
	bool stack = s->guard && v->start == s->end && v->has_vmflags && (v->vmflags & VMF_NH) &&
		     anon_private(v) && v->perms[0] == 'r' && v->perms[1] == 'w';
	if (stack)
		*kb = s->kb + v->t.kb[SM_SIZE];
	s->guard = !stack && smaps_stack_guard(v);
	s->end = v->end;
	s->kb = v->t.kb[SM_SIZE];
	return stack;
}
