// SPDX-License-Identifier: MIT
#include "smaps.h"

#include <errno.h>
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
};

const char *smaps_field_name(enum smaps_field f)
{
	return (unsigned)f < SM_NFIELDS ? fields[f].name : "?";
}

static int field_lookup(const char *s, size_t len)
{
	for (int i = 0; i < SM_NFIELDS; i++)
		if (fields[i].len == len && memcmp(fields[i].name, s, len) == 0)
			return i;
	return -1;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
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
static int field_value(const char *p, const char *e, uint64_t *x)
{
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	const char *d = p;
	while (p < e && *p >= '0' && *p <= '9')
		p++;
	size_t rest = (size_t)(e - p);
	if (!(rest == 0 || (rest == 3 && memcmp(p, " kB", 3) == 0)))
		return -EINVAL;
	return str_to_u64(d, (size_t)(p - d), 0, UINT64_MAX, x);
}

/*
 * A "Name:   123 kB" line into T; other known lines into V when non-NULL.
 * Returns 0, or -EINVAL for a known field whose value is not a whole number
 * in range (left unknown: marked in T->damaged).
 */
static int parse_field(const char *s, const char *e, struct smaps_totals *t, struct smaps_vma *v)
{
	const char *c = memchr(s, ':', (size_t)(e - s));
	if (!c)
		return v ? -EINVAL : 0;
	size_t nl = (size_t)(c - s);
	/* a line seen twice in one block is damage: the field is unknown */
	if (v && nl == 7 && memcmp(s, "VmFlags", 7) == 0) {
		bool twice = v->vmflags_seen;
		v->vmflags_seen = true;
		v->has_vmflags = false;
		v->vmflags = 0;
		if (twice)
			return -EINVAL;
		parse_vmflags(c + 1, e, v);
		return 0;
	}
	uint64_t x;
	if (v && nl == 11 && memcmp(s, "THPeligible", 11) == 0) {
		bool twice = v->thp_seen;
		v->thp_seen = true;
		v->thp_eligible = -1;
		if (twice || field_value(c + 1, e, &x) || x > 1)
			return -EINVAL;
		v->thp_eligible = (int)x;
		return 0;
	}
	int f = field_lookup(s, nl);
	if (f < 0)
		return 0;
	if (((t->present | t->damaged) & (1u << f)) || field_value(c + 1, e, &x)) {
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

int smaps_stream_feed(struct smaps_stream *s, const char *text, size_t len)
{
	const char *pos = text, *end = text + len, *l, *e;
	while (!s->err && next_line(&pos, end, &l, &e)) {
		if (l == e)
			continue;
		if (e == end) { /* procfs ends every line with '\n' */
			s->truncated = true;
			break;
		}
		if (++s->nlines > SMAPS_MAX_VMA_LINES) {
			s->err = -EFBIG;
			break;
		}
		if (e > l && e[-1] == '\r')
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
