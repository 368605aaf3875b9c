// SPDX-License-Identifier: MIT
#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define READ_CHUNK 65536

int buf_read_fd(struct buf *b, int fd, size_t max, unsigned flags)
{
	int ret = 0;
	b->len = 0;
	for (;;) {
		if (buf_reserve(b, b->len + READ_CHUNK + 1)) {
			ret = -ENOMEM;
			break;
		}
		size_t want = b->cap - b->len - 1;
		ssize_t n = flags & READ_PREAD ? pread(fd, b->p + b->len, want, (off_t)b->len)
					       : read(fd, b->p + b->len, want);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		if (n == 0)
			break;
		b->len += (size_t)n;
		if (b->len > max) {
			ret = -EFBIG;
			break;
		}
		if ((flags & READ_ONE_RECORD) && (size_t)n < want && b->p[b->len - 1] == '\n')
			break;
	}
	if (b->p)
		b->p[b->len] = '\0';
	return ret;
}

#if defined(__has_include)
#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#define THPCTL_HAVE_OPENAT2_H 1
#endif
#endif
#ifndef THPCTL_HAVE_OPENAT2_H
struct open_how {
	uint64_t flags, mode, resolve;
};
#define RESOLVE_NO_SYMLINKS 0x04
#define RESOLVE_BENEATH 0x08
#endif
#include <sys/syscall.h>
#ifndef SYS_openat2
#define SYS_openat2 437 /* the same number on every architecture */
#endif

/* -errno of a failed step at component NAME of DIR: a symlink there says -ELOOP. */
static int walk_err(int dir, const char *name, int e)
{
	struct stat st;
	if ((e == ENOTDIR || e == ELOOP) && !fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) &&
	    S_ISLNK(st.st_mode))
		return -ELOOP;
	return -e;
}

int openat_walk(int dirfd, const char *path, int oflags)
{
	char buf[PATH_MAX];
	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	int cur = dirfd, r = 0;
	char *p = buf;
	for (;;) {
		while (*p == '/')
			p++;
		char *slash = strchr(p, '/');
		if (!slash)
			break;
		*slash = '\0';
		if (!strcmp(p, "..")) {
			r = -ELOOP; /* out of the tree, or a way around its checks */
			break;
		}
		if (*p && strcmp(p, ".")) {
			int fd = openat(cur, p, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (fd < 0) {
				r = walk_err(cur, p, errno);
				break;
			}
			if (cur != dirfd)
				close(cur);
			cur = fd;
		}
		p = slash + 1;
	}
	if (!r && !strcmp(p, ".."))
		r = -ELOOP;
	if (!r) {
		const char *last = *p ? p : ".";
		r = openat(cur, last, oflags | O_NOFOLLOW | O_CLOEXEC);
		if (r < 0)
			r = walk_err(cur, last, errno);
	}
	if (cur != dirfd)
		close(cur);
	return r;
}

/* openat2() here: 1 yes, -1 no (before 5.6, or filtered), 0 not tried yet. */
static int have_openat2;

int openat_beneath(int dirfd, const char *path, int oflags, bool links)
{
#ifdef THPCTL_TEST_HOOKS
	/* the tests take the walk that kernels before 5.6 get */
	if (getenv("THPCTL_NO_OPENAT2"))
		return openat_walk(dirfd, path, oflags);
#endif
	if (have_openat2 >= 0) {
		struct open_how how = {
			.flags = (uint64_t)(oflags | O_CLOEXEC),
			.resolve = RESOLVE_BENEATH | (links ? 0 : RESOLVE_NO_SYMLINKS),
		};
		long fd = syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
		if (fd >= 0) {
			have_openat2 = 1;
			return (int)fd;
		}
		int e = errno;
		if (!((e == ENOSYS || e == EPERM) && have_openat2 == 0)) {
			/* EXDEV: the path leads out (an absolute link, ".." above DIRFD) */
			return e == EXDEV ? -ELOOP : -e;
		}
		have_openat2 = -1; /* probed: not here (< 5.6, or a seccomp filter) */
	}
	return openat_walk(dirfd, path, oflags);
}

/* 0 when ST is a regular file, else -EISDIR or -ERR_NOTREG. */
static int regular(const struct stat *st)
{
	if (S_ISREG(st->st_mode))
		return 0;
	return S_ISDIR(st->st_mode) ? -EISDIR : -ERR_NOTREG;
}

/* fstatat() of PATH below DIRFD (openat_beneath() O_PATH, then fstat). 0 or -errno. */
static int stat_beneath(int dirfd, const char *path, int nofollow, struct stat *st)
{
	int fd = openat_beneath(dirfd, path, O_PATH | nofollow, !nofollow);
	if (fd < 0)
		return fd;
	int r = fstat(fd, st) ? -errno : 0;
	close(fd);
	return r;
}

int open_regular_at(int dirfd, const char *path, unsigned flags)
{
	struct stat st;
	int nofollow = flags & OPEN_NOFOLLOW ? O_NOFOLLOW : 0;
	bool beneath = flags & OPEN_BENEATH;
	if (flags & OPEN_PRECHECK) {
		if (beneath) {
			int e = stat_beneath(dirfd, path, nofollow, &st);
			if (e)
				return e;
		} else if (fstatat(dirfd, path, &st, nofollow ? AT_SYMLINK_NOFOLLOW : 0)) {
			return -errno;
		}
		if (S_ISLNK(st.st_mode))
			return -ELOOP;
		int r = regular(&st);
		if (r)
			return r;
	}
	int oflags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | nofollow;
	int fd = beneath ? openat_beneath(dirfd, path, oflags, !nofollow)
			 : openat(dirfd, path, oflags);
	if (fd < 0)
		return beneath ? fd : -errno;
	int r = fstat(fd, &st) ? -errno : regular(&st);
	if (r) {
		close(fd);
		return r;
	}
	return fd;
}

const char *read_err_str(int err)
{
	switch (err) {
	case 0:
		return "ok";
	case -ENOENT:
		return "missing";
	case -EFBIG:
		return "too large";
	case -ERR_NOTREG:
		return "not a regular file";
	case -EISDIR:
		return "a directory";
	case -ELOOP:
		return "a symlink or a symlink loop";
	case -EINVAL:
		return "malformed";
	default:
		return strerror(-err);
	}
}

int read_file_at(int dirfd, const char *path, struct buf *b, size_t max)
{
	int fd = open_regular_at(dirfd, path, 0);
	if (fd < 0)
		return fd;
	int r = buf_read_fd(b, fd, max, 0);
	close(fd);
	return r;
}

ssize_t pread_full(int fd, void *p, size_t len, uint64_t off)
{
	size_t got = 0;
	while (got < len) {
		ssize_t r = pread(fd, (char *)p + got, len - got, (off_t)(off + got));
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

int pread_exact(int fd, void *p, size_t len, uint64_t off)
{
	ssize_t r = pread_full(fd, p, len, off);
	if (r < 0)
		return (int)r;
	return (size_t)r == len ? 0 : -EIO;
}

int file_has_bytes(int dirfd, const char *path, const void *needle, size_t nlen, uint64_t max,
		   bool *found)
{
	enum { CHUNK = 64 << 10 };
	*found = false;
	if (nlen == 0 || nlen > CHUNK)
		return -EINVAL;
	int fd = open_regular_at(dirfd, path, 0);
	if (fd < 0)
		return fd;
	static char b[2 * CHUNK];
	size_t keep = 0; /* the last NLEN - 1 bytes of the chunk before: a match across chunks */
	uint64_t done = 0;
	int rc = 0;
	for (;;) {
		size_t want = max - done < CHUNK ? (size_t)(max - done) : CHUNK;
		ssize_t k = want ? read_retry(fd, b + keep, want) : 0;
		if (k < 0) {
			rc = (int)k;
			break;
		}
		size_t have = keep + (size_t)k;
		if (memmem(b, have, needle, nlen)) {
			*found = true;
			break;
		}
		done += (uint64_t)k;
		if (k == 0 || done >= max) {
			char extra;
			if (done >= max && read_retry(fd, &extra, 1) == 1)
				rc = -EFBIG; /* more than MAX: what lies beyond is not known */
			break;
		}
		keep = have < nlen - 1 ? have : nlen - 1;
		memmove(b, b + have - keep, keep);
	}
	close(fd);
	return rc;
}

ssize_t read_retry(int fd, void *p, size_t n)
{
	for (;;) {
		ssize_t k = read(fd, p, n);
		if (k >= 0 || errno != EINTR)
			return k < 0 ? -errno : k;
	}
}

int write_all(int fd, const void *p, size_t len)
{
	for (size_t off = 0; off < len;) {
		ssize_t n = write(fd, (const char *)p + off, len - off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		off += (size_t)n;
	}
	return 0;
}

int write_file_atomic(const char *path, const void *data, size_t len, mode_t mode)
{
	struct stat st; /* never renamed over a device, FIFO or socket (/dev/full was) */
	if (!lstat(path, &st) && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
		return S_ISDIR(st.st_mode) ? -EISDIR : -ERR_NOTREG;
	char tmp[PATH_MAX];
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path + 1) : 0;
	if (snprintf(tmp, sizeof(tmp), "%.*s.%s.XXXXXX", dirlen, path, path + dirlen) >=
	    (int)sizeof(tmp))
		return -ENAMETOOLONG;
	int fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int r = fchmod(fd, mode) ? -errno : 0;
	if (!r)
		r = write_all(fd, data, len);
	if (!r && fsync(fd))
		r = -errno;
	if (close(fd) && !r)
		r = -errno;
	if (!r && rename(tmp, path))
		r = -errno;
	if (r)
		unlink(tmp);
	return r;
}

const char *path_err_str(int err)
{
	return err == -ENOENT ? "no such file or directory" : read_err_str(err);
}

int mkdir_mode(const char *path, mode_t mode)
{
	if (mkdir(path, mode))
		return -errno;
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int r = fchmod(fd, mode) ? -errno : 0;
	close(fd);
	return r;
}

int replace_file_keep(const char *path, const char *keep, const void *data, size_t len, mode_t mode)
{
	if (link(path, keep))
		return -errno;
	int r = write_file_atomic(path, data, len, mode);
	if (r)
		unlink(keep);
	return r;
}

/* One step of path_root_only(): P owned by root, no group or other write, not a link. */
static int root_only_step(const char *p, bool last, struct stat *st)
{
	if (lstat(p, st))
		return -errno;
	if (S_ISLNK(st->st_mode) || st->st_uid != 0 || (st->st_mode & 022))
		return -EPERM;
	return last || S_ISDIR(st->st_mode) ? 0 : -ENOTDIR;
}

int path_root_only(const char *path, char *bad, size_t n, struct stat *st)
{
	char p[PATH_MAX];
	size_t len = strlen(path);
	if (path[0] != '/')
		return -EINVAL;
	if (len >= sizeof(p))
		return -ENAMETOOLONG;
	memcpy(p, path, len + 1);
	int r = root_only_step("/", len == 1, st);
	if (r) {
		snprintf(bad, n, "/");
		return r;
	}
	/* each prefix that ends a component: "/usr", "/usr/bin", "/usr/bin/thpctl" */
	for (size_t end = 2; end <= len; end++) {
		if ((end < len && p[end] != '/') || p[end - 1] == '/')
			continue;
		char c = p[end];
		p[end] = '\0';
		r = root_only_step(p, end == len, st);
		if (r) {
			snprintf(bad, n, "%s", p);
			return r;
		}
		p[end] = c;
	}
	return 0;
}
