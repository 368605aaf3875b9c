// SPDX-License-Identifier: MIT
#include "proc_status.h"

#include <errno.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

/*
 * The first token of a status value [P, E) (after blanks, up to a blank) as a
 * whole decimal in [0, HI]; for VmRSS the rest must be " kB". 0 or -EINVAL.
 */
static int token_u64(const char *p, const char *e, uint64_t hi, bool kb, uint64_t *out)
{
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	const char *t = p;
	while (p < e && *p != ' ' && *p != '\t')
		p++;
	if (kb && !((size_t)(e - p) == 3 && memcmp(p, " kB", 3) == 0))
		return -EINVAL;
	return str_to_u64(t, (size_t)(p - t), 0, hi, out) ? -EINVAL : 0;
}

/* KEY's value (a whole decimal in [0, HI]) into *OUT, or BIT into *BAD. */
static void field(const char *v, const char *e, long hi, long *out, unsigned bit, unsigned *bad)
{
	uint64_t x;
	if (token_u64(v, e, (uint64_t)hi, false, &x) == 0)
		*out = (long)x;
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

/* Whether the line [S, E) starts with KEY (N bytes) and ':'. */
static bool key_at(const char *s, const char *e, const char *key, size_t n)
{
	return (size_t)(e - s) > n && s[n] == ':' && memcmp(s, key, n) == 0;
}

/*
 * The PS_BAD_* bit of the line [S, E) by its key (the text before its first ':'), or 0 for a
 * key not read here, and *VALUE after its ':'. A key's first byte (and Tgid's second)
 * picks the one name it may be, as nearly all of status's ~60 keys are none of the 7
 * (comparing each line with all 7 names, and scanning each for its ':', was most of the
 * parse; a loop over the 7 first bytes still a third of it: callgrind, ps --all --rollup).
 */
static unsigned key_bit(const char *s, const char *e, const char **value)
{
	if (s == e)
		return 0;
	unsigned i;
	switch (*s) {
	case 'N':
		i = 0; /* Name (not Ngid, NSpid ...) */
		break;
	case 'T':
		i = e - s > 1 && s[1] == 'g' ? 1 : 4; /* Tgid, THP_enabled (not TracerPid) */
		break;
	case 'P':
		i = 2; /* PPid (not Pid) */
		break;
	case 'U':
		i = 3; /* Uid (not Umask) */
		break;
	case 'K':
		i = 5;
		break;
	case 'V':
		i = 6; /* VmRSS (not the other Vm* lines) */
		break;
	default:
		return 0;
	}
	const char *k = bad_names[i];
	size_t n = strlen(k);
	if (!key_at(s, e, k, n))
		return 0;
	*value = s + n + 1;
	return 1u << i;
}

/* Value of the line of key BIT, [V, E), into ST. */
static void status_value(struct proc_status *st, unsigned bit, const char *v, const char *e)
{
	long x = -1;
	switch (bit) {
	case PS_BAD_NAME:
		while (v < e && (*v == '\t' || *v == ' '))
			v++;
		/* the kernel writes \n and \\ of a name escaped (proc_task_name): the name's
		 * own bytes again, escaped only where shown (util/esc.h) */
		size_t n = 0;
		for (; v < e && n < COMM_LEN - 1; v++) {
			if (*v == '\\' && v + 1 < e && (v[1] == 'n' || v[1] == '\\'))
				st->name[n++] = *++v == 'n' ? '\n' : '\\';
			else
				st->name[n++] = *v;
		}
		st->name[n] = '\0';
		st->has_name = true;
		break;
	case PS_BAD_PPID:
		field(v, e, INT_MAX, &st->ppid, bit, &st->bad);
		break;
	case PS_BAD_UID:
		field(v, e, UINT32_MAX - 1, &st->uid, bit, &st->bad);
		break;
	case PS_BAD_THP_ENABLED:
		field(v, e, 1, &x, bit, &st->bad);
		st->thp_enabled = (int)x;
		break;
	case PS_BAD_TGID:
		field(v, e, INT_MAX, &st->tgid, bit, &st->bad);
		break;
	case PS_BAD_KTHREAD:
		field(v, e, 1, &x, bit, &st->bad);
		st->kthread = (int)x;
		break;
	case PS_BAD_VMRSS:
		/* any u64 is valid by the file's grammar (the kernel prints an unsigned long) */
		if (token_u64(v, e, UINT64_MAX, true, &st->vmrss_kb.v) == 0)
			st->vmrss_kb.present = true;
		else
			st->bad |= bit;
		break;
	default:
		break;
	}
}

/* Forget the value of key BIT: it was printed twice. */
static void status_forget(struct proc_status *st, unsigned bit)
{
	st->bad |= bit;
	switch (bit) {
	case PS_BAD_NAME:
		st->has_name = false;
		break;
	case PS_BAD_PPID:
		st->ppid = -1;
		break;
	case PS_BAD_UID:
		st->uid = -1;
		break;
	case PS_BAD_THP_ENABLED:
		st->thp_enabled = -1;
		break;
	case PS_BAD_TGID:
		st->tgid = -1;
		break;
	case PS_BAD_KTHREAD:
		st->kthread = -1;
		break;
	case PS_BAD_VMRSS:
		st->vmrss_kb.present = false;
		break;
	default:
		break;
	}
}

int proc_status_parse(const char *text, size_t len, struct proc_status *st)
{
	memset(st, 0, sizeof(*st));
	st->ppid = st->uid = st->tgid = -1;
	st->thp_enabled = st->kthread = -1;
	st->truncated = len && text[len - 1] != '\n';
	unsigned seen = 0;
	const char *pos = text, *end = text + len, *s, *e;
	while (next_line(&pos, end, &s, &e)) {
		if (e > s && e[-1] == '\r')
			e--;
		const char *v;
		unsigned bit = key_bit(s, e, &v);
		if (!bit)
			continue;
		/* a key seen twice is damage: neither copy is believed */
		if (seen & bit)
			status_forget(st, bit);
		else
			status_value(st, bit, v, e);
		seen |= bit;
	}
	if (!seen)
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
