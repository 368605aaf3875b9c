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

/* 0 when ST is a regular file, else -EISDIR or -ERR_NOTREG. */
static int regular(const struct stat *st)
{
	if (S_ISREG(st->st_mode))
		return 0;
	return S_ISDIR(st->st_mode) ? -EISDIR : -ERR_NOTREG;
}

int open_regular_at(int dirfd, const char *path, unsigned flags)
{
	struct stat st;
	int nofollow = flags & OPEN_NOFOLLOW ? O_NOFOLLOW : 0;
	if (flags & OPEN_PRECHECK) {
		if (fstatat(dirfd, path, &st, nofollow ? AT_SYMLINK_NOFOLLOW : 0))
			return -errno;
		if (S_ISLNK(st.st_mode))
			return -ELOOP;
		int r = regular(&st);
		if (r)
			return r;
	}
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | nofollow);
	if (fd < 0)
		return -errno;
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
