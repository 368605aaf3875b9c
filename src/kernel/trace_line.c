// SPDX-License-Identifier: MIT
#include "trace_line.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "../util/names.h"
#include "../util/num.h"

static const char *const ev_names[TEV_N] = {
	[TEV_OTHER] = "other",
	[TEV_COMPACT_BEGIN] = "mm_compaction_begin",
	[TEV_COMPACT_END] = "mm_compaction_end",
	[TEV_COMPACT_TRY] = "mm_compaction_try_to_compact_pages",
	[TEV_RECLAIM_BEGIN] = "mm_vmscan_direct_reclaim_begin",
	[TEV_RECLAIM_END] = "mm_vmscan_direct_reclaim_end",
	[TEV_SCAN_PMD] = "mm_khugepaged_scan_pmd",
	[TEV_COLLAPSE] = "mm_collapse_huge_page",
	[TEV_COLLAPSE_ISOLATE] = "mm_collapse_huge_page_isolate",
	[TEV_SCAN_FILE] = "mm_khugepaged_scan_file",
	[TEV_COLLAPSE_FILE] = "mm_khugepaged_collapse_file",
	[TEV_LOST] = "lost",
};

const char *trace_ev_name(enum trace_ev ev)
{
	return ENUM_NAME(ev_names, ev, "other");
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Decimal S[0..N) (digits only) into *OUT; false when empty, not digits or too large. */
static bool dec(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	if (!n || n > 19)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (!is_digit(s[i]))
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*out = v;
	return true;
}

/* "CPU:N [LOST M EVENTS]" (trace.c, print_trace_line's lost-events notice). */
static int parse_lost(const char *s, size_t n, struct trace_line *out)
{
	size_t i = 4, a = i;
	while (i < n && is_digit(s[i]))
		i++;
	uint64_t cpu, lost;
	if (!dec(s + a, i - a, &cpu) || n - i < 7 || memcmp(s + i, " [LOST ", 7))
		return -EINVAL;
	i += 7;
	a = i;
	while (i < n && is_digit(s[i]))
		i++;
	if (!dec(s + a, i - a, &lost) || n - i < 8 || memcmp(s + i, " EVENTS]", 8))
		return -EINVAL;
	out->ev = TEV_LOST;
	out->lost = lost;
	out->lost_cpu = cpu > 1u << 20 ? -1 : (int)cpu;
	return 0;
}

/* A timestamp token "SECS.FRAC:" (or "COUNT:" of a raw clock) into ns. */
static bool parse_ts(const char *s, size_t n, uint64_t *ns)
{
	if (n < 2 || s[n - 1] != ':')
		return false;
	n--;
	const char *dot = memchr(s, '.', n);
	uint64_t secs, frac = 0;
	if (!dot)
		return dec(s, n, ns); /* counter / x86-tsc clocks: a raw count */
	size_t sl = (size_t)(dot - s), fl = n - sl - 1;
	if (!dec(s, sl, &secs) || !fl || fl > 9 || !dec(dot + 1, fl, &frac))
		return false;
	for (size_t i = fl; i < 9; i++)
		frac *= 10;
	*ns = secs * 1000000000ull + frac;
	return true;
}

static enum trace_ev ev_of(const char *name, size_t n)
{
	for (int e = TEV_COMPACT_BEGIN; e < TEV_LOST; e++)
		if (strlen(ev_names[e]) == n && memcmp(ev_names[e], name, n) == 0)
			return (enum trace_ev)e;
	return TEV_OTHER;
}

/* Next blank-separated token of S[*i..N): [*tok, *tok + *len). False at the end. */
static bool token(const char *s, size_t n, size_t *i, const char **tok, size_t *len)
{
	while (*i < n && s[*i] == ' ')
		(*i)++;
	if (*i >= n)
		return false;
	size_t a = *i;
	while (*i < n && s[*i] != ' ')
		(*i)++;
	*tok = s + a;
	*len = *i - a;
	return true;
}

static bool all_dashes(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != '-')
			return false;
	return n > 0;
}

/*
 * The header left of the cpu column, S[I..E): "comm-pid" and an optional
 * "(tgid)". False when it does not have that shape.
 */
static bool parse_task(const char *s, size_t i, size_t e, struct trace_line *out)
{
	while (e > i && s[e - 1] == ' ')
		e--;
	out->tgid = -1;
	if (e > i && s[e - 1] == ')') {
		size_t o = e - 1;
		while (o > i && s[o] != '(')
			o--;
		if (s[o] != '(')
			return false;
		size_t a = o + 1, b = e - 1;
		while (a < b && s[a] == ' ')
			a++;
		uint64_t tg;
		if (dec(s + a, b - a, &tg) && tg <= 0x7fffffff)
			out->tgid = (int)tg;
		else if (!all_dashes(s + a, b - a))
			return false; /* else "(-------)": tgid unknown */
		e = o;
		while (e > i && s[e - 1] == ' ')
			e--;
	}
	size_t d = e;
	while (d > i && is_digit(s[d - 1]))
		d--;
	uint64_t pid;
	if (d == e || d == i || s[d - 1] != '-' || !dec(s + d, e - d, &pid) || pid > 0x7fffffff)
		return false;
	out->pid = (int)pid;
	size_t cl = d - 1 - i;
	if (cl >= sizeof(out->comm))
		cl = sizeof(out->comm) - 1;
	memcpy(out->comm, s + i, cl);
	out->comm[cl] = '\0';
	return true;
}

int trace_line_parse(const char *s, size_t n, struct trace_line *out)
{
	memset(out, 0, sizeof(*out));
	out->tgid = out->cpu = out->lost_cpu = -1;
	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		n--;
	size_t i = 0;
	while (i < n && s[i] == ' ')
		i++;
	if (i == n || s[i] == '#')
		return -EINVAL;
	if (n - i > 4 && memcmp(s + i, "CPU:", 4) == 0)
		return parse_lost(s + i, n - i, out);

	/* the cpu column " [NNN] ": the first one after a well-formed task column */
	for (size_t j = i + 1; j + 2 < n; j++) {
		if (s[j] != '[' || s[j - 1] != ' ')
			continue;
		size_t k = j + 1;
		while (k < n && is_digit(s[k]))
			k++;
		uint64_t cpu;
		if (k >= n || s[k] != ']' || !dec(s + j + 1, k - j - 1, &cpu) || cpu > 1u << 20)
			continue;
		struct trace_line l;
		memset(&l, 0, sizeof(l));
		l.lost_cpu = -1;
		if (!parse_task(s, i, j, &l))
			continue;
		l.cpu = (int)cpu;
		/* then: [flags] timestamp: event: fields */
		size_t r = k + 1;
		const char *t;
		size_t tl;
		if (!token(s, n, &r, &t, &tl))
			return -EINVAL;
		if (!parse_ts(t, tl, &l.ts_ns)) {
			/* the irq-info flags ("d..1.") came first */
			if (!token(s, n, &r, &t, &tl) || !parse_ts(t, tl, &l.ts_ns))
				return -EINVAL;
		}
		while (r < n && s[r] == ' ')
			r++;
		size_t a = r;
		while (r < n && s[r] != ':' && s[r] != ' ')
			r++;
		if (r == a || r >= n || s[r] != ':')
			return -EINVAL;
		size_t el = r - a < sizeof(l.event) ? r - a : sizeof(l.event) - 1;
		memcpy(l.event, s + a, el);
		l.event[el] = '\0';
		l.ev = ev_of(s + a, r - a);
		r++;
		if (r < n && s[r] == ' ')
			r++;
		l.fields = s + r;
		l.fields_len = n - r;
		*out = l;
		return 0;
	}
	return -EINVAL;
}

int trace_field(const char *f, size_t n, const char *key, char *out, size_t outn)
{
	size_t kl = strlen(key);
	if (!kl || n <= kl)
		return -ENOENT;
	for (size_t i = n - kl; i-- > 0;) {
		if (f[i + kl] != '=' || memcmp(f + i, key, kl))
			continue;
		if (i > 0 && f[i - 1] != ' ' && f[i - 1] != ',')
			continue;
		size_t a = i + kl + 1, b = a;
		while (b < n && f[b] != ' ' && f[b] != ',')
			b++;
		if (outn) {
			size_t l = b - a < outn ? b - a : outn - 1;
			memcpy(out, f + a, l);
			out[l] = '\0';
		}
		return 0;
	}
	return -ENOENT;
}

int trace_field_long(const char *f, size_t n, const char *key, long *out)
{
	char v[32];
	int r = trace_field(f, n, key, v, sizeof(v));
	return r ? r : str_long(v, LONG_MIN, LONG_MAX, out) ? -EINVAL : 0;
}
