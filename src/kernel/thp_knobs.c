// SPDX-License-Identifier: MIT
#include "thp_knobs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "parse.h"
#include "thp_settings.h"

/* Sort key: top-level files, then khugepaged/, then per-size directories by size. */
static int group_of(const char *key, uint64_t *kb)
{
	*kb = 0;
	const char *slash = strchr(key, '/');
	if (!slash)
		return 0;
	if (strncmp(key, "khugepaged/", 11) == 0)
		return 1;
	char dir[KNOB_KEY_LEN];
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - key), key);
	*kb = hugepages_dirname_kb(dir);
	return 2;
}

static int cmp_knob(const void *a, const void *b)
{
	const struct thp_knob *x = a, *y = b;
	uint64_t kx, ky;
	int gx = group_of(x->key, &kx), gy = group_of(y->key, &ky);
	if (gx != gy)
		return gx - gy;
	if (kx != ky)
		return kx < ky ? -1 : 1;
	return strcmp(x->key, y->key);
}

/* KEY was there and could not be read: counted, and named while there is room. */
static void unread(struct thp_knobs *k, const char *key)
{
	k->nbad++;
	if (k->nunread < KNOB_UNREAD_MAX)
		snprintf(k->unread[k->nunread++], sizeof(k->unread[0]), "%s", key);
}

bool thp_knobs_unreadable(const struct thp_knobs *k, const char *key)
{
	for (int i = 0; i < k->nunread; i++)
		if (strcmp(k->unread[i], key) == 0)
			return true;
	return false;
}

/* Add the regular file DIR/NAME (DIR relative to SR_THP, "" for the top). */
static int add_file(const struct sysroot *sr, struct thp_knobs *k, struct buf *b, const char *dir,
		    const char *name)
{
	char key[KNOB_KEY_LEN], rel[PATH_MAX];
	int n = snprintf(key, sizeof(key), "%s%s%s", dir, *dir ? "/" : "", name);
	if (n < 0 || (size_t)n >= sizeof(key)) {
		k->nbad++;
		return 0;
	}
	snprintf(rel, sizeof(rel), SR_THP "/%s", key);
	struct stat st;
	if (sysroot_stat(sr, rel, &st, false) || !S_ISREG(st.st_mode))
		return 0;
	if (k->n == KNOB_MAX) {
		k->nbad++;
		return 0;
	}
	int r = sysroot_read(sr, rel, b);
	if (r == -ENOMEM)
		return r;
	if (r) {
		unread(k, key);
		return 0;
	}
	size_t len = b->len;
	while (len && (b->p[len - 1] == '\n' || b->p[len - 1] == ' '))
		len--;
	if (len >= KNOB_RAW_LEN || memchr(b->p, '\n', len)) {
		unread(k, key); /* not a one-line knob */
		return 0;
	}
	struct thp_knob *e = &k->k[k->n++];
	snprintf(e->key, sizeof(e->key), "%s", key);
	memcpy(e->raw, b->p, len);
	e->raw[len] = '\0';
	e->writable = (st.st_mode & 0222) != 0;
	return 0;
}

static int add_dir(const struct sysroot *sr, struct thp_knobs *k, struct buf *b, const char *dir)
{
	char rel[PATH_MAX];
	snprintf(rel, sizeof(rel), SR_THP "%s%s", *dir ? "/" : "", dir);
	DIR *d = sysroot_opendir(sr, rel);
	if (!d)
		return 0;
	struct dirent *de;
	int r = 0;
	while (!r && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		struct stat st;
		if (fstatat(dirfd(d), de->d_name, &st, 0))
			continue;
		if (S_ISDIR(st.st_mode)) {
			/* one level down: khugepaged/ and hugepages-<size>kB/, never stats/ */
			if (!*dir && (strcmp(de->d_name, "khugepaged") == 0 ||
				      hugepages_dirname_kb(de->d_name)))
				r = add_dir(sr, k, b, de->d_name);
			continue;
		}
		r = add_file(sr, k, b, dir, de->d_name);
	}
	closedir(d);
	return r;
}

int thp_knobs_read(const struct sysroot *sr, struct thp_knobs *k)
{
	memset(k, 0, sizeof(*k));
	if (sysroot_exists(sr, SR_THP))
		return 0;
	k->present = true;
	struct buf b = {0};
	int r = add_dir(sr, k, &b, "");
	buf_free(&b);
	qsort(k->k, (size_t)k->n, sizeof(k->k[0]), cmp_knob);
	const struct thp_knob *p = thp_knobs_find(k, "hpage_pmd_size");
	uint64_t v;
	if (p && parse_u64_text(p->raw, strlen(p->raw), &v) == 0)
		k->pmd_size = v;
	return r;
}

const struct thp_knob *thp_knobs_find(const struct thp_knobs *k, const char *key)
{
	for (int i = 0; i < k->n; i++)
		if (strcmp(k->k[i].key, key) == 0)
			return &k->k[i];
	return NULL;
}

uint64_t thp_knobs_pmd_nr(const struct thp_knobs *k, long page_size)
{
	if (!k->pmd_size)
		return 0;
	uint64_t page = page_size > 0 ? (uint64_t)page_size : 0;
	if (!page) {
		/* PMD = PAGE * (PAGE / 8): PAGE = sqrt(8 * PMD), a power of two */
		for (uint64_t p = 1024; p <= (1u << 20); p <<= 1)
			if (p * (p / 8) == k->pmd_size)
				page = p;
	}
	return page ? k->pmd_size / page : 0;
}
