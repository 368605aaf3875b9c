// SPDX-License-Identifier: MIT
#include "kv.h"

#include <errno.h>
#include <stdio.h>
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

/*
 * Names already parsed, hashed, for kv_parse's duplicate check: vmstat has ~200 keys, and a
 * linear search per line made that check most of a parse. Past KV_HASH_MAX keys the rest is
 * searched linearly.
 */
#define KV_HASH_SLOTS 1024
#define KV_HASH_MAX 512

struct kv_hash {
	uint16_t slot[KV_HASH_SLOTS]; /* index + 1 in the list, 0 empty */
};

static uint32_t name_hash(const char *name, size_t len)
{
	uint32_t h = 2166136261u; /* FNV-1a */
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)name[i]) * 16777619u;
	return h;
}

/* The item named [NAME, NAME+LEN) in L, or NULL; *AT: its empty slot in H when absent. */
static struct kv *kv_lookup(struct kvlist *l, struct kv_hash *h, const char *name, size_t len,
			    uint16_t **at)
{
	*at = NULL;
	if (l->n > KV_HASH_MAX)
		return kv_find(l, name, len);
	for (uint32_t i = name_hash(name, len) & (KV_HASH_SLOTS - 1);;
	     i = (i + 1) & (KV_HASH_SLOTS - 1)) {
		if (!h->slot[i]) {
			*at = &h->slot[i];
			return NULL;
		}
		struct kv *kv = &l->items[h->slot[i] - 1];
		if (!memcmp(kv->name, name, len) && kv->name[len] == '\0')
			return kv;
	}
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
static int kv_parse(const char *text, size_t len, struct kvlist *l, bool colon, bool node)
{
	kvlist_clear(l);
	struct kv_hash h;
	memset(&h, 0, sizeof(h));
	const char *pos = text, *end = text + len, *s, *e;
	while (next_line(&pos, end, &s, &e)) {
		if (s == e)
			continue;
		/* procfs ends every line with '\n': a last line without one was cut */
		if (e == end) {
			l->bad++;
			break;
		}
		if (node) { /* "Node 0 MemTotal: ..." */
			const char *q = s + 5;
			if (e - s < 7 || memcmp(s, "Node ", 5) || *q < '0' || *q > '9') {
				l->bad++;
				continue;
			}
			while (q < e && *q >= '0' && *q <= '9')
				q++;
			while (q < e && *q == ' ')
				q++;
			s = q;
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
		uint16_t *at;
		struct kv *seen = kv_lookup(l, &h, s, nl, &at);
		if (seen) {
			/* a key seen twice is damage: every copy is unknown */
			if (!l->dup++) {
				/* a name with a NUL or a control byte would print as nothing */
				if (name_ok(s, nl))
					memcpy(l->dup_name, seen->name, sizeof(l->dup_name));
				else
					snprintf(l->dup_name, sizeof(l->dup_name), "%s",
						 "(a name that is not text)");
			}
			seen->dup = true;
			continue;
		}
		/* a malformed line keeps its name, dropped at the end, so that a later copy is a duplicate */
		if (kvlist_add(l, s, nl, v))
			return -ENOMEM;
		l->items[l->n - 1].dup = !good;
		if (at)
			*at = (uint16_t)l->n;
	}
	drop_dups(l);
	return 0;
}

int vmstat_parse(const char *text, size_t len, struct kvlist *l)
{
	return kv_parse(text, len, l, false, false);
}

int meminfo_parse(const char *text, size_t len, struct kvlist *l)
{
	return kv_parse(text, len, l, true, false);
}

int node_meminfo_parse(const char *text, size_t len, struct kvlist *l)
{
	return kv_parse(text, len, l, true, true);
}

/* Read REL through SR into B (NULL: a buffer of its own) and parse it with FN into L. */
static int kv_read(const struct sysroot *sr, const char *rel, struct buf *b, struct kvlist *l,
		   int (*fn)(const char *, size_t, struct kvlist *))
{
	struct buf own = {0};
	struct buf *u = b ? b : &own;
	kvlist_clear(l);
	int r = sysroot_read(sr, rel, u);
	if (!r)
		r = fn(u->p ? u->p : "", u->len, l);
	buf_free(&own);
	return r;
}

int vmstat_read_buf(const struct sysroot *sr, struct buf *b, struct kvlist *l)
{
	return kv_read(sr, SR_PROC "/vmstat", b, l, vmstat_parse);
}

int meminfo_read_buf(const struct sysroot *sr, struct buf *b, struct kvlist *l)
{
	return kv_read(sr, SR_PROC "/meminfo", b, l, meminfo_parse);
}

int vmstat_read(const struct sysroot *sr, struct kvlist *l)
{
	return vmstat_read_buf(sr, NULL, l);
}

int meminfo_read(const struct sysroot *sr, struct kvlist *l)
{
	return meminfo_read_buf(sr, NULL, l);
}

int node_meminfo_read(const struct sysroot *sr, int node, struct kvlist *l)
{
	char rel[96];
	snprintf(rel, sizeof(rel), SR_NODES "/node%d/meminfo", node);
	return kv_read(sr, rel, NULL, l, node_meminfo_parse);
}

/* One value of the file READ reads. */
static int kv_read_one(const struct sysroot *sr,
		       int (*read)(const struct sysroot *, struct kvlist *), const char *key,
		       uint64_t *v)
{
	struct kvlist l = {0};
	int r = read(sr, &l);
	if (!r && !kv_get(&l, key, v))
		r = -ENOENT;
	kvlist_free(&l);
	return r;
}

int meminfo_get(const struct sysroot *sr, const char *key, uint64_t *v)
{
	return kv_read_one(sr, meminfo_read, key, v);
}

int vmstat_get(const struct sysroot *sr, const char *key, uint64_t *v)
{
	return kv_read_one(sr, vmstat_read, key, v);
}
