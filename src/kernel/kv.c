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
	return 0;
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
		if (colon) {
			if (n >= e || *n != ':') {
				l->bad++;
				continue;
			}
			n++;
		}
		uint64_t v;
		const char *p = n;
		if (nl == 0 || parse_u64(&p, e, &v)) {
			l->bad++;
			continue;
		}
		/* only a unit may follow the number: "123 kB" */
		while (p < e && (*p == ' ' || *p == '\t' || *p == '\r'))
			p++;
		if (colon && e - p >= 2 && p[0] == 'k' && p[1] == 'B')
			p += 2;
		while (p < e && (*p == ' ' || *p == '\t' || *p == '\r'))
			p++;
		if (p != e) {
			l->bad++;
			continue;
		}
		int r = kvlist_add(l, s, nl, v);
		if (r == -ENOMEM)
			return r;
		if (r)
			l->bad++;
	}
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
