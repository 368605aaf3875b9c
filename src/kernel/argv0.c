// SPDX-License-Identifier: MIT
#include "argv0.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* stat of absolute PATH on the live root SR (symlinks followed). */
static int stat_abs(const struct sysroot *sr, const char *path, struct stat *st)
{
	while (*path == '/')
		path++;
	if (!*path)
		return -ENOENT;
	return fstatat(sr->dirfd, path, st, 0) ? -errno : 0;
}

static int same(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && S_ISREG(a->st_mode);
}

const char *argv0_path_env(const char *text, size_t len)
{
	for (const char *p = text, *end = text + len; p < end;
	     p += strnlen(p, (size_t)(end - p)) + 1)
		if ((size_t)(end - p) > 5 && !memcmp(p, "PATH=", 5) &&
		    memchr(p, '\0', (size_t)(end - p)))
			return p + 5;
	return NULL;
}

int argv0_resolve(const struct sysroot *sr, pid_t pid, const char *argv0, const char *path_env,
		  char *out, size_t n)
{
	if (!sr->live)
		return -ENOENT;
	char rel[64];
	struct stat exe, st;
	snprintf(rel, sizeof(rel), SR_PROC "/%d/exe", (int)pid);
	if (fstatat(sr->dirfd, rel, &exe, 0))
		return -errno;
	if (!*argv0 || strlen(argv0) >= PATH_MAX)
		return 0;
	char cand[PATH_MAX + 64];
	if (argv0[0] == '/') {
		if (stat_abs(sr, argv0, &st) == 0 && same(&st, &exe) &&
		    snprintf(out, n, "%s", argv0) < (int)n)
			return 1;
		return 0;
	}
	if (strchr(argv0, '/')) { /* relative to its working directory */
		char cwd[PATH_MAX], link[64];
		snprintf(link, sizeof(link), SR_PROC "/%d/cwd", (int)pid);
		ssize_t l = readlinkat(sr->dirfd, link, cwd, sizeof(cwd) - 1);
		if (l <= 0)
			return 0;
		cwd[l] = '\0';
		const char *r = argv0;
		while (r[0] == '.' && r[1] == '/')
			r += 2; /* "./redis-server": /srv/redis-server, not /srv/./redis-server */
		snprintf(cand, sizeof(cand), "%s/%s", strcmp(cwd, "/") ? cwd : "", r);
		if (stat_abs(sr, cand, &st) == 0 && same(&st, &exe) &&
		    snprintf(out, n, "%s", cand) < (int)n)
			return 1;
		return 0;
	}
	const char *p = path_env ? path_env : ARGV0_DEFAULT_PATH;
	while (*p) {
		const char *c = strchr(p, ':');
		size_t dl = c ? (size_t)(c - p) : strlen(p);
		if (dl && p[0] == '/' && dl < PATH_MAX) {
			snprintf(cand, sizeof(cand), "%.*s/%s", (int)dl, p, argv0);
			if (stat_abs(sr, cand, &st) == 0) /* the first one found runs, as execvp */
				return same(&st, &exe) && snprintf(out, n, "%s", cand) < (int)n;
		}
		if (!c)
			break;
		p = c + 1;
	}
	return 0;
}

int proc_cwd(const struct sysroot *sr, pid_t pid, char *out, size_t n)
{
	if (n)
		out[0] = '\0';
	if (!sr->live)
		return -ENOENT;
	char link[64], d[PATH_MAX];
	snprintf(link, sizeof(link), SR_PROC "/%d/cwd", (int)pid);
	ssize_t l = readlinkat(sr->dirfd, link, d, sizeof(d) - 1);
	if (l < 0)
		return -errno;
	d[l] = '\0';
	if (d[0] != '/')
		return -ENOENT; /* not a path of its file system (an anonymous inode) */
	static const char del[] = " (deleted)";
	size_t dl = sizeof(del) - 1;
	bool gone = (size_t)l > dl && !strcmp(d + l - dl, del);
	if (gone)
		l -= (ssize_t)dl;
	if ((size_t)l >= n)
		return -ENAMETOOLONG;
	memcpy(out, d, (size_t)l);
	out[l] = '\0';
	return gone ? -ESTALE : 0;
}

int proc_cwd_has(const struct sysroot *sr, pid_t pid, const char *rel)
{
	if (!sr->live)
		return -ENOENT;
	if (!*rel || rel[0] == '/' || strlen(rel) >= PATH_MAX - 64)
		return 0;
	char p[PATH_MAX];
	snprintf(p, sizeof(p), SR_PROC "/%d/cwd/%s", (int)pid, rel);
	struct stat st;
	if (fstatat(sr->dirfd, p, &st, 0) == 0)
		return 1;
	return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
}
