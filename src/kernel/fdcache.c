// SPDX-License-Identifier: MIT
#include "fdcache.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/fileio.h"
#include "sysroot.h"

struct fdc_ent {
	char *key;	    /* NULL: free slot */
	int fd;		    /* -1: dead (read failed), reopened on the next hit */
	bool absent;	    /* FDC_STATIC: the open failed with ENOENT, not tried again */
	uint64_t hash;	    /* hash(key) */
	size_t len;	    /* strlen(key) */
	enum fdc_mode mode; /* c->mode(key), and */
	size_t max;	    /* sysroot_read_max(key): both once, when the entry is made */
	unsigned gen;
};

void fdcache_init(struct fdcache *c, size_t max, enum fdc_mode (*mode)(const char *rel))
{
	memset(c, 0, sizeof(*c));
	c->max = max ? max : FDCACHE_DEFAULT_MAX;
	c->mode = mode;
}

static void drop(struct fdcache *c, struct fdc_ent *e)
{
	if (e->fd >= 0) {
		close(e->fd);
		c->open--;
	}
	e->fd = -1;
}

struct fdc_dir {
	char *rel;
	struct sr_dirlist l;
};

int fdcache_listdir(struct fdcache *c, const struct sysroot *sr, const char *rel,
		    struct sr_dirlist *l)
{
	enum fdc_mode m = c->mode ? c->mode(rel) : FDC_NO;
	if (m != FDC_SINGLE && m != FDC_STATIC)
		return -EOPNOTSUPP;
	for (size_t i = 0; i < c->ndirs; i++)
		if (!strcmp(c->dirs[i].rel, rel)) {
			*l = c->dirs[i].l;
			return 0;
		}
	if (c->ndirs == FDCACHE_MAX_DIRS)
		return -EOPNOTSUPP;
	if (!c->dirs && !(c->dirs = calloc(FDCACHE_MAX_DIRS, sizeof(*c->dirs))))
		return -EOPNOTSUPP;
	int r = sysroot_listdir_fresh(sr, rel, l);
	if (r)
		return r;
	struct fdc_dir *d = &c->dirs[c->ndirs];
	if (!(d->rel = strdup(rel)))
		return 0; /* L stays the caller's to free */
	l->kept = true;
	d->l = *l;
	c->ndirs++;
	return 0;
}

void fdcache_free(struct fdcache *c)
{
	for (size_t i = 0; i < c->ndirs; i++) {
		free(c->dirs[i].rel);
		c->dirs[i].l.kept = false;
		sysroot_dirlist_free(&c->dirs[i].l);
	}
	free(c->dirs);
	c->dirs = NULL;
	c->ndirs = 0;
	for (size_t i = 0; i < c->size; i++)
		if (c->tab[i].key) {
			drop(c, &c->tab[i]);
			free(c->tab[i].key);
		}
	free(c->tab);
	c->tab = NULL;
	c->size = c->used = c->open = 0;
}

/* KEY's hash, 8 bytes at a time (paths of 40-80 bytes: FNV-1a's byte loop was a tenth of a
 * scrape's instructions) */
static uint64_t hash(const char *s, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n, w;
	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
		h ^= h >> 31;
	}
	w = 0;
	memcpy(&w, s, n);
	h = (h ^ w) * 0x94d049bb133111ebull;
	return h ^ (h >> 29);
}

/* KEY's slot (its own, or the free one it would take); H its hash, N its length. */
static struct fdc_ent *slot(struct fdc_ent *tab, size_t size, const char *key, size_t n, uint64_t h)
{
	size_t i = h & (size - 1);
	while (tab[i].key && (tab[i].hash != h || tab[i].len != n || memcmp(tab[i].key, key, n)))
		i = (i + 1) & (size - 1);
	return &tab[i];
}

/* Rebuild into SIZE slots, keeping the entries KEEP accepts. Returns 0 or -ENOMEM. */
static int rehash(struct fdcache *c, size_t size, bool sweep)
{
	struct fdc_ent *tab = calloc(size, sizeof(*tab));
	if (!tab)
		return -ENOMEM;
	size_t used = 0;
	for (size_t i = 0; i < c->size; i++) {
		struct fdc_ent *e = &c->tab[i];
		if (!e->key)
			continue;
		if (sweep && e->gen != c->gen) {
			drop(c, e);
			free(e->key);
			continue;
		}
		*slot(tab, size, e->key, e->len, e->hash) = *e;
		used++;
	}
	free(c->tab);
	c->tab = tab;
	c->size = size;
	c->used = used;
	return 0;
}

void fdcache_sweep(struct fdcache *c)
{
	/* a rebuild only when something goes: most samples read the same files as the last
	 * (one linear pass, no hashing; an exporter scrape with 300 processes saves ~500 inserts).
	 * A dead entry read in this sample stays (it is reopened on its next hit): a file missing
	 * every time (hugepages-8kB/enabled: shmem only) rebuilt the table every scrape */
	bool stale = false;
	for (size_t i = 0; i < c->size && !stale; i++)
		stale = c->tab[i].key && c->tab[i].gen != c->gen;
	if (stale)
		rehash(c, c->size, true); /* on ENOMEM nothing is closed: retried next time */
	c->gen++;
}

int fdcache_read(struct fdcache *c, const struct sysroot *sr, const char *rel, struct buf *b)
{
	if (c->used * 2 >= c->size && rehash(c, c->size ? c->size * 2 : 256, false))
		return -EOPNOTSUPP;
	size_t len = strlen(rel);
	uint64_t h = hash(rel, len);
	struct fdc_ent *e = slot(c->tab, c->size, rel, len, h);
	if (!e->key) {
		/* a path's mode and read limit are its name's: found once, kept with it */
		enum fdc_mode m = c->mode ? c->mode(rel) : FDC_MULTI;
		if (m == FDC_NO || c->open >= c->max)
			return -EOPNOTSUPP;
		if (!(e->key = strdup(rel)))
			return -EOPNOTSUPP;
		e->fd = -1;
		e->hash = h;
		e->len = len;
		e->mode = m;
		e->max = sysroot_read_max(rel);
		c->used++;
	}
	e->gen = c->gen;
	enum fdc_mode mode = e->mode;
	for (int attempt = 0;; attempt++) {
		bool fresh = e->fd < 0;
		if (fresh) {
			if (e->absent)
				return -ENOENT;
			if (c->open >= c->max)
				return -EOPNOTSUPP;
			int fd = sysroot_open_file(sr, rel);
			if (fd == -EMFILE || fd == -ENFILE)
				return -EOPNOTSUPP;
			if (fd < 0) {
				e->absent = fd == -ENOENT && mode == FDC_STATIC;
				return fd;
			}
			e->fd = fd;
			c->open++;
		}
		int r = buf_read_fd(b, e->fd, e->max,
				    READ_PREAD | (mode != FDC_MULTI ? READ_ONE_RECORD : 0));
		if (r == 0 || r == -ENOMEM)
			return r;
		drop(c, e);
		/*
		 * A file kept from an earlier sample failed: its process exited
		 * (ESRCH), and the pid may belong to a new one now. Open it afresh
		 * once; a file opened just now reports its own error.
		 */
		if (fresh || attempt)
			return r;
	}
}
