// SPDX-License-Identifier: MIT
#include "proc_status.h"

#include <errno.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

static bool key_is(const char *s, const char *c, const char *key)
{
	size_t n = strlen(key);
	return (size_t)(c - s) == n && memcmp(s, key, n) == 0;
}

/*
 * The first token of a status value [P, E) (after blanks, up to a blank) as a
 * whole decimal in [0, HI]; for VmRSS the rest must be " kB". 0 or -EINVAL.
 */
static int token_long(const char *p, const char *e, long hi, bool kb, long *out)
{
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	const char *t = p;
	while (p < e && *p != ' ' && *p != '\t')
		p++;
	if (kb && !((size_t)(e - p) == 3 && memcmp(p, " kB", 3) == 0))
		return -EINVAL;
	uint64_t v;
	if (str_to_u64(t, (size_t)(p - t), 0, (uint64_t)hi, &v))
		return -EINVAL;
	*out = (long)v;
	return 0;
}

/* KEY's value into *OUT, or BIT into *BAD. */
static void field(const char *v, const char *e, long hi, bool kb, long *out, unsigned bit,
		  unsigned *bad)
{
	long x;
	if (token_long(v, e, hi, kb, &x) == 0)
		*out = x;
	else
		*bad |= bit;
}

static const char *const bad_names[] = {"Name",	       "Tgid",	  "PPid", "Uid",
					"THP_enabled", "Kthread", "VmRSS"};

const char *proc_status_bad_name(unsigned bad)
{
	for (unsigned i = 0; i < sizeof(bad_names) / sizeof(bad_names[0]); i++)
		if (bad & (1u << i))
			return bad_names[i];
	return NULL;
}

int proc_status_nbad(const struct proc_status *st)
{
	return __builtin_popcount(st->bad) + (st->truncated ? 1 : 0);
}

int proc_status_parse(const char *text, size_t len, struct proc_status *st)
{
	memset(st, 0, sizeof(*st));
	st->ppid = st->uid = st->tgid = -1;
	st->thp_enabled = st->kthread = -1;
	st->vmrss_kb = -1;
	st->truncated = len && text[len - 1] != '\n';
	bool known = false;
	long x = -1, rss = -1;
	const char *pos = text, *end = text + len, *s, *e;
	while (next_line(&pos, end, &s, &e)) {
		if (e > s && e[-1] == '\r')
			e--;
		const char *c = memchr(s, ':', (size_t)(e - s));
		if (!c)
			continue;
		const char *v = c + 1;
		bool was = known;
		known = true;
		if (key_is(s, c, "Name")) {
			while (v < e && (*v == '\t' || *v == ' '))
				v++;
			size_t n = (size_t)(e - v);
			if (n >= COMM_LEN)
				n = COMM_LEN - 1;
			memcpy(st->name, v, n);
			st->name[n] = '\0';
			st->has_name = true;
		} else if (key_is(s, c, "PPid")) {
			field(v, e, INT_MAX, false, &st->ppid, PS_BAD_PPID, &st->bad);
		} else if (key_is(s, c, "Uid")) {
			field(v, e, UINT32_MAX - 1, false, &st->uid, PS_BAD_UID, &st->bad);
		} else if (key_is(s, c, "THP_enabled")) {
			x = -1;
			field(v, e, 1, false, &x, PS_BAD_THP_ENABLED, &st->bad);
			st->thp_enabled = (int)x;
		} else if (key_is(s, c, "Tgid")) {
			field(v, e, INT_MAX, false, &st->tgid, PS_BAD_TGID, &st->bad);
		} else if (key_is(s, c, "Kthread")) {
			x = -1;
			field(v, e, 1, false, &x, PS_BAD_KTHREAD, &st->bad);
			st->kthread = (int)x;
		} else if (key_is(s, c, "VmRSS")) {
			field(v, e, LONG_MAX / 1024, true, &rss, PS_BAD_VMRSS, &st->bad);
			st->vmrss_kb = rss;
		} else {
			known = was;
		}
	}
	if (!known)
		return -EINVAL;
	if (!st->has_name) {
		st->bad |= PS_BAD_NAME;
		snprintf(st->name, sizeof(st->name), "-");
	}
	return 0;
}

int proc_stat_parse(const char *text, size_t len, struct proc_stat *st)
{
	memset(st, 0, sizeof(*st));
	const char *end = text + len;
	const char *lp = memchr(text, '(', len);
	if (!lp)
		return -EINVAL;
	/* comm may contain ')' itself: the last one closes it */
	const char *rp = NULL;
	for (const char *p = end; p > lp;)
		if (*--p == ')') {
			rp = p;
			break;
		}
	if (!rp)
		return -EINVAL;
	const char *p = text;
	uint64_t v;
	if (parse_u64(&p, lp, &v) || v > (uint64_t)LONG_MAX)
		return -EINVAL;
	st->pid = (long)v;
	size_t n = (size_t)(rp - lp - 1);
	if (n >= COMM_LEN)
		n = COMM_LEN - 1;
	memcpy(st->comm, lp + 1, n);
	st->comm[n] = '\0';
	p = rp + 1;
	while (p < end && *p == ' ')
		p++;
	if (p >= end)
		return -EINVAL;
	st->state = *p++;
	/* fields 4.. after state; we need 4 (ppid), 9 (flags), 14, 15, 22 */
	for (int field = 4; field <= 22; field++) {
		if (parse_u64(&p, end, &v)) {
			/* negative values (tty_nr, priority...) are not needed: skip */
			while (p < end && *p == ' ')
				p++;
			if (p < end && *p == '-') {
				p++;
				if (parse_u64(&p, end, &v))
					return -EINVAL;
				v = 0;
			} else {
				return -EINVAL;
			}
		}
		switch (field) {
		case 4:
			st->ppid = (long)v;
			break;
		case 9:
			st->flags = v;
			break;
		case 14:
			st->utime = v;
			break;
		case 15:
			st->stime = v;
			break;
		case 22:
			st->starttime = v;
			break;
		default:
			break;
		}
	}
	return 0;
}

int proc_statm_parse(const char *text, size_t len, struct proc_statm *sm)
{
	const char *p = text, *end = text + len;
	uint64_t v[3];
	memset(sm, 0, sizeof(*sm));
	for (int i = 0; i < 3; i++) {
		/* parse_u64 skips leading blanks; fields are separated by one space */
		if (parse_u64(&p, end, &v[i]) || (p < end && *p != ' ' && *p != '\n'))
			return -EINVAL;
	}
	sm->size = v[0];
	sm->resident = v[1];
	sm->shared = v[2];
	return 0;
}

int passwd_lookup(const char *text, size_t len, long uid, char *out, size_t n)
{
	const char *pos = text, *end = text + len, *s, *e;
	while (next_line(&pos, end, &s, &e)) {
		/* name:x:uid:gid:... */
		const char *c1 = memchr(s, ':', (size_t)(e - s));
		if (!c1 || c1 == s)
			continue;
		const char *c2 = memchr(c1 + 1, ':', (size_t)(e - c1 - 1));
		if (!c2)
			continue;
		const char *p = c2 + 1;
		uint64_t v;
		if (parse_u64(&p, e, &v) || p >= e || *p != ':' || v != (uint64_t)uid)
			continue;
		size_t l = (size_t)(c1 - s);
		if (l >= n)
			l = n - 1;
		memcpy(out, s, l);
		out[l] = '\0';
		return 0;
	}
	return -ENOENT;
}
