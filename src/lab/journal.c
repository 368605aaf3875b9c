// SPDX-License-Identifier: MIT
#include "journal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/*
 * Allowed restore targets, one component per '/': a literal, alternatives
 * "a|b", %k a knob name ([a-z_]+), %h "hugepages-<digits>kB", %n
 * "node<digits>". Kept in step with every guard_write() caller (lab
 * experiments, set, snapshot restore, persist --apply, hugetlb).
 */
static const char *const allowed[] = {
	"sys/kernel/mm/transparent_hugepage/%k",
	"sys/kernel/mm/transparent_hugepage/khugepaged/%k",
	"sys/kernel/mm/redhat_transparent_hugepage/%k", /* RHEL 6 (sysroot_real_rel) */
	"sys/kernel/mm/redhat_transparent_hugepage/khugepaged/%k",
	"sys/kernel/mm/transparent_hugepage/%h/enabled|shmem_enabled",
	"sys/kernel/mm/hugepages/%h/nr_hugepages|nr_overcommit_hugepages",
	"sys/devices/system/node/%n/hugepages/%h/nr_hugepages",
	"proc/sys/vm/compaction_proactiveness|nr_hugepages|nr_overcommit_hugepages",
};

static const char *const pokes[] = {
	"proc/sys/vm/drop_caches|compact_memory",
};

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* S[0..N) is PREFIX, one or more digits, SUFFIX. */
static bool numbered(const char *s, size_t n, const char *prefix, const char *suffix)
{
	size_t lp = strlen(prefix), ls = strlen(suffix);
	if (n <= lp + ls || strncmp(s, prefix, lp) || strncmp(s + n - ls, suffix, ls))
		return false;
	for (size_t i = lp; i < n - ls; i++)
		if (!is_digit(s[i]))
			return false;
	return true;
}

/* Whether component S[0..N) matches pattern component P[0..PN). */
static bool comp_match(const char *p, size_t pn, const char *s, size_t n)
{
	if (pn == 2 && p[0] == '%') {
		switch (p[1]) {
		case 'k':
			for (size_t i = 0; i < n; i++)
				if (!((s[i] >= 'a' && s[i] <= 'z') || s[i] == '_'))
					return false;
			return n > 0;
		case 'h':
			return numbered(s, n, "hugepages-", "kB");
		case 'n':
			return numbered(s, n, "node", "");
		default:
			return false;
		}
	}
	/* alternatives */
	size_t i = 0;
	while (i <= pn) {
		size_t j = i;
		while (j < pn && p[j] != '|')
			j++;
		if (j - i == n && strncmp(p + i, s, n) == 0)
			return true;
		i = j + 1;
	}
	return false;
}

static bool path_match(const char *pat, const char *rel)
{
	for (;;) {
		size_t pn = strcspn(pat, "/"), n = strcspn(rel, "/");
		if (n == 0 || !comp_match(pat, pn, rel, n))
			return false;
		pat += pn;
		rel += n;
		if (!*pat || !*rel)
			return !*pat && !*rel;
		pat++;
		rel++;
	}
}

static bool listed(const char *const *list, size_t n, const char *rel)
{
	if (!rel || strlen(rel) >= JOURNAL_REL_LEN)
		return false;
	for (size_t i = 0; i < n; i++)
		if (path_match(list[i], rel))
			return true;
	return false;
}

bool journal_rel_allowed(const char *rel)
{
	return listed(allowed, sizeof(allowed) / sizeof(allowed[0]), rel);
}

bool journal_poke_allowed(const char *rel)
{
	return listed(pokes, sizeof(pokes) / sizeof(pokes[0]), rel);
}

bool journal_value_ok(const char *v)
{
	size_t n = 0;
	for (; v[n]; n++) {
		char c = v[n];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_' ||
		      c == '+' || c == '.' || c == '-'))
			return false;
	}
	return n > 0 && n < JOURNAL_VALUE_LEN;
}

bool journal_value_matches(const char *text, size_t len, const char *want)
{
	size_t wl = strlen(want);
	const char *open = memchr(text, '[', len);
	if (open) {
		const char *close = memchr(open, ']', len - (size_t)(open - text));
		return close && (size_t)(close - open - 1) == wl && memcmp(open + 1, want, wl) == 0;
	}
	while (len && (text[len - 1] == '\n' || text[len - 1] == ' ' || text[len - 1] == '\t'))
		len--;
	return len == wl && memcmp(text, want, wl) == 0;
}

static void reject(struct journal *j, const char *line, size_t n)
{
	if (!j->rejected++) {
		size_t k = n < sizeof(j->first_rejected) - 1 ? n : sizeof(j->first_rejected) - 1;
		for (size_t i = 0; i < k; i++)
			j->first_rejected[i] = line[i] >= 0x20 && line[i] < 0x7f ? line[i] : '?';
		j->first_rejected[k] = '\0';
	}
}

/* Copy LINE[0..N) into OUT (size OSZ) if it fits; false otherwise. */
static bool copy_field(char *out, size_t osz, const char *line, size_t n)
{
	if (n >= osz || memchr(line, '\0', n))
		return false;
	memcpy(out, line, n);
	out[n] = '\0';
	return true;
}

static void parse_entry(struct journal *j, const char *l, size_t n)
{
	const char *tab = memchr(l, '\t', n);
	struct journal_entry e;
	if (!tab || j->n == JOURNAL_MAX_ENTRIES ||
	    !copy_field(e.rel, sizeof(e.rel), l, (size_t)(tab - l)) ||
	    !copy_field(e.old, sizeof(e.old), tab + 1, n - (size_t)(tab - l) - 1) ||
	    !journal_rel_allowed(e.rel) || !journal_value_ok(e.old)) {
		reject(j, l, n);
		return;
	}
	/* one entry per file: the first (oldest) value is the one to put back */
	for (int i = 0; i < j->n; i++)
		if (strcmp(j->e[i].rel, e.rel) == 0)
			return;
	j->e[j->n++] = e;
}

int journal_parse(const char *text, size_t len, struct journal *j)
{
	memset(j, 0, sizeof(*j));
	snprintf(j->purpose, sizeof(j->purpose), "?");
	size_t pos = 0;
	bool header = false;
	while (pos < len) {
		const char *l = text + pos;
		const char *nl = memchr(l, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - l) : len - pos;
		pos += n + 1;
		if (!header) {
			if (!((n == 16 && !strncmp(l, "thpctl-journal 1", 16)) ||
			      (n == 16 && !strncmp(l, "thpctl-journal 2", 16))))
				return -EINVAL;
			header = true;
		} else if (n > 6 && !strncmp(l, "entry ", 6)) {
			parse_entry(j, l + 6, n - 6);
		} else if (n > 6 && !strncmp(l, "owner ", 6)) {
			long v = 0;
			for (size_t i = 6; i < n && is_digit(l[i]) && v < 100000000; i++)
				v = v * 10 + (l[i] - '0');
			j->owner = v;
		} else if (n > 8 && !strncmp(l, "purpose ", 8)) {
			size_t k = n - 8 < sizeof(j->purpose) - 1 ? n - 8 : sizeof(j->purpose) - 1;
			for (size_t i = 0; i < k; i++)
				j->purpose[i] =
					l[8 + i] >= 0x20 && l[8 + i] < 0x7f ? l[8 + i] : '?';
			j->purpose[k] = '\0';
		} else if (n == 10 && !strncmp(l, "unrestored", 10)) {
			j->unrestored = true;
		} else if (n) {
			reject(j, l, n);
		}
	}
	if (!header) {
		memset(j, 0, sizeof(*j));
		return -EINVAL;
	}
	return 0;
}

int journal_format(const struct journal *j, long owner, char *out, size_t n)
{
	int k = snprintf(out, n, "thpctl-journal 2\nowner %ld\npurpose %s\n%s", owner, j->purpose,
			 j->unrestored ? "unrestored\n" : "");
	for (int i = 0; k >= 0 && (size_t)k < n && i < j->n; i++)
		k += snprintf(out + k, n - (size_t)k, "entry %s\t%s\n", j->e[i].rel, j->e[i].old);
	return k < 0 || (size_t)k >= n ? -ENOSPC : k;
}
