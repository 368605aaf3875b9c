// SPDX-License-Identifier: MIT
#include "kv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../util/buf.h"
#include "parse.h"

void kvlist_free(struct kvlist *l)
{
	free(l->items);
	memset(l, 0, sizeof(*l));
}

void kvlist_clear(struct kvlist *l)
{
	l->n = 0;
	l->bad = 0;
	l->dup = 0;
	l->dup_name[0] = '\0';
}

int kvlist_add(struct kvlist *l, const char *name, size_t name_len, uint64_t value)
{
	if (name_len == 0 || name_len >= KV_NAME_LEN)
		return -EINVAL;
	if (array_reserve(&l->items, &l->cap, l->n + 1, sizeof(*l->items), 64))
		return -ENOMEM;
	struct kv *kv = &l->items[l->n++];
	memcpy(kv->name, name, name_len);
	kv->name[name_len] = '\0';
	kv->value = value;
	kv->dup = false;
	return 0;
}

/* The item named [NAME, NAME+LEN) in L, or NULL. */
static struct kv *kv_find(struct kvlist *l, const char *name, size_t len)
{
	for (size_t i = 0; i < l->n; i++)
		if (!memcmp(l->items[i].name, name, len) && l->items[i].name[len] == '\0')
			return &l->items[i];
	return NULL;
}

/* Drop every key that was seen twice: which copy is right is unknown. */
static void drop_dups(struct kvlist *l)
{
	size_t k = 0;
	for (size_t i = 0; i < l->n; i++)
		if (!l->items[i].dup)
			l->items[k++] = l->items[i];
	l->n = k;
}

bool kv_get(const struct kvlist *l, const char *name, uint64_t *v)
{
	for (size_t i = 0; i < l->n; i++) {
		if (strcmp(l->items[i].name, name) == 0) {
			if (v)
				*v = l->items[i].value;
			return true;
		}
	}
	return false;
}

/* A key the kernel prints: printable ASCII ("nr_anon", "Active(anon)"), no control or other byte. */
static bool name_ok(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] <= 0x20 || (unsigned char)s[i] >= 0x7f)
			return false;
	return true;
}

/*
 * Both files are "NAME<sep> VALUE[ kB]" per line; SEP is ':' for meminfo and
 * absent for vmstat.
 */
static int kv_parse(const char *text, size_t len, struct kvlist *l, bool colon)
{
	kvlist_clear(l);
	const char *pos = text, *end = text + len, *s, *e;
	while (next_line(&pos, end, &s, &e)) {
		if (s == e)
			continue;
		/* procfs ends every line with '\n': a last line without one was cut */
		if (e == end) {
			l->bad++;
			break;
		}
		const char *n = s;
		while (n < e && *n != ' ' && *n != '\t' && *n != ':')
			n++;
		size_t nl = (size_t)(n - s);
		bool good = (!colon || (n < e && *n == ':')) && name_ok(s, nl);
		uint64_t v = 0;
		const char *p = n + (colon && good);
		good = good && nl > 0 && !parse_u64(&p, e, &v);
		/* only a unit may follow the number: "123 kB" */
		while (good && p < e && (*p == ' ' || *p == '\t' || *p == '\r'))
			p++;
		if (good && colon && e - p >= 2 && p[0] == 'k' && p[1] == 'B')
			p += 2;
		while (good && p < e && (*p == ' ' || *p == '\t' || *p == '\r'))
			p++;
		good = good && p == e;
		l->bad += !good;
		if (nl == 0 || nl >= KV_NAME_LEN) {
			l->bad += good;
			continue;
		}
		struct kv *seen = kv_find(l, s, nl);
		if (seen) {
			/* a key seen twice is damage: every copy is unknown */
			if (!l->dup++)
				memcpy(l->dup_name, seen->name, sizeof(l->dup_name));
			seen->dup = true;
			continue;
		}
		/* a malformed line keeps its name, dropped at the end, so that a later copy is a duplicate */
		if (kvlist_add(l, s, nl, v))
			return -ENOMEM;
		l->items[l->n - 1].dup = !good;
	}
	drop_dups(l);
	return 0;
}

int vmstat_parse(const char *text, size_t len, struct kvlist *l)
{
	return kv_parse(text, len, l, false);
}

int meminfo_parse(const char *text, size_t len, struct kvlist *l)
{
	return kv_parse(text, len, l, true);
}
