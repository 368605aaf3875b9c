// SPDX-License-Identifier: MIT
#include "cgroup_procs.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/buf.h"
#include "parse.h"

/* OUT (N bytes) = PREFIX/PATH (PREFIX NULL: PATH) without trailing slashes, PATH's leading
 * ones dropped. 0 or -ENAMETOOLONG. */
static int join(char *out, size_t n, const char *prefix, const char *path)
{
	while (*path == '/')
		path++;
	int r = prefix ? snprintf(out, n, "%s/%s", prefix, path) : snprintf(out, n, "%s", path);
	if (r < 0 || (size_t)r >= n)
		return -ENAMETOOLONG;
	while (r > 1 && out[r - 1] == '/')
		out[--r] = '\0';
	return 0;
}

/* Whether PATH (leading slashes dropped) names sys/fs/cgroup or a path below it. */
static bool names_root(const char *path)
{
	while (*path == '/')
		path++;
	size_t l = strlen(SR_CGROUP);
	return !strncmp(path, SR_CGROUP, l) && (path[l] == '/' || !path[l]);
}

int cgroup_rel(const char *path, char *out, size_t n)
{
	return join(out, n, names_root(path) ? NULL : SR_CGROUP, path);
}

/* 0 when REL has a cgroup.procs: a cgroup. */
static int has_procs(const struct sysroot *sr, const char *rel)
{
	char procs[PATH_MAX];
	if (snprintf(procs, sizeof(procs), "%s/cgroup.procs", rel) >= (int)sizeof(procs))
		return -ENAMETOOLONG;
	return sysroot_exists(sr, procs);
}

int cgroup_find(const struct sysroot *sr, const char *path, char *out, size_t n)
{
	int r = cgroup_rel(path, out, n);
	if (r || !has_procs(sr, out))
		return r;
	if (names_root(path))
		return -ENOENT; /* a whole path: only that one */
	static const char *const roots[] = {SR_CGROUP "/memory", SR_CGROUP "/unified"};
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		char alt[PATH_MAX];
		if (join(alt, sizeof(alt), roots[i], path) || has_procs(sr, alt))
			continue;
		if (strlen(alt) >= n)
			return -ENAMETOOLONG;
		memcpy(out, alt, strlen(alt) + 1);
		return 0;
	}
	return -ENOENT;
}

struct pidset {
	pid_t *p;
	size_t n, cap;
};

static int pidset_add(struct pidset *s, pid_t pid)
{
	if (array_reserve(&s->p, &s->cap, s->n + 1, sizeof(*s->p), 64))
		return -ENOMEM;
	s->p[s->n++] = pid;
	return 0;
}

static int walk(const struct sysroot *sr, const char *rel, struct pidset *s, struct buf *b,
		int depth)
{
	char path[PATH_MAX];
	if (snprintf(path, sizeof(path), "%s/cgroup.procs", rel) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	int r = sysroot_read(sr, path, b);
	if (r)
		return depth ? 0 : r; /* a child cgroup removed meanwhile */
	const char *pos = b->p, *end = b->p + b->len, *l, *e;
	while (next_line(&pos, end, &l, &e)) {
		uint64_t v;
		const char *q = l;
		if (parse_u64(&q, e, &v) == 0 && v > 0 && v <= 0x3fffffff &&
		    (r = pidset_add(s, (pid_t)v)))
			return r;
	}
	if (depth >= 64)
		return 0;
	DIR *d = sysroot_opendir(sr, rel);
	if (!d)
		return 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", rel, de->d_name) >= (int)sizeof(path))
			continue;
		if ((r = walk(sr, path, s, b, depth + 1)))
			break;
	}
	closedir(d);
	return r;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
	return x < y ? -1 : x > y;
}

int cgroup_pids(const struct sysroot *sr, const char *rel, pid_t **pids)
{
	struct pidset s = {0};
	struct buf b = {0};
	*pids = NULL;
	int r = walk(sr, rel, &s, &b, 0);
	buf_free(&b);
	if (r) {
		free(s.p);
		return r;
	}
	if (s.n)
		qsort(s.p, s.n, sizeof(*s.p), cmp_pid);
	size_t o = 0;
	for (size_t i = 0; i < s.n; i++)
		if (!o || s.p[o - 1] != s.p[i])
			s.p[o++] = s.p[i];
	*pids = s.p;
	return (int)o;
}
