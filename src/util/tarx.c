// SPDX-License-Identifier: MIT
/*
 * The guarded extractor of a bundle (tarball.h): libarchive reads the
 * stream (tar formats and gzip only); this file decides what is written.
 */
#include "tarball.h"

#include "archive_load.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

const struct tarx_limits tarx_default_limits = {
	.max_member = 256ull << 20,
	.max_total = 2ull << 30,
	.max_members = 1u << 20,
	.keep_free = 64ull << 20,
};

struct xctx {
	struct archive *a;
	int root;
	const struct tarx_limits *lim;
	struct tarx_stats *st;
	void (*warn)(void *ctx, const char *name, const char *why);
	void *wctx;
	char *err;
	size_t errn;
};

static int fail(struct xctx *x, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(struct xctx *x, int rc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(x->err, x->errn, fmt, ap);
	va_end(ap);
	return rc;
}

static void skip(struct xctx *x, const char *name, const char *why)
{
	x->st->skipped++;
	if (x->warn)
		x->warn(x->wctx, name, why);
}

/*
 * Create (0700, or reuse) and open the directories of REL below ROOT,
 * component by component, never through a symlink. With UPTO_LAST the last
 * component is not made but left for the caller in *LAST. Returns a
 * directory fd or -errno.
 */
static int walk_dirs(int root, char *rel, bool upto_last, const char **last)
{
	int dfd = dup(root);
	if (dfd < 0)
		return -errno;
	char *p = rel;
	for (;;) {
		char *slash = strchr(p, '/');
		if (!slash && upto_last) {
			*last = p;
			return dfd;
		}
		if (slash)
			*slash = '\0';
		if (mkdirat(dfd, p, 0700) && errno != EEXIST) {
			int e = -errno;
			close(dfd);
			return e;
		}
		int nfd = openat(dfd, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int e = -errno;
		close(dfd);
		if (slash)
			*slash = '/';
		if (nfd < 0)
			return e;
		dfd = nfd;
		if (!slash) {
			*last = NULL;
			return dfd;
		}
		p = slash + 1;
	}
}

static int space_left(struct xctx *x, int fd, uint64_t want)
{
	struct statvfs v;
	if (fstatvfs(fd, &v))
		return 0;
	uint64_t avail = (uint64_t)v.f_bavail * v.f_frsize;
	return avail < want + x->lim->keep_free ? -ENOSPC : 0;
}

/* Copy the current member's content into NAME below DFD. Returns 0 or a fatal -errno. */
static int write_member(struct xctx *x, int dfd, const char *leaf, const char *name, mode_t mode)
{
	int fd = openat(dfd, leaf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		skip(x, name, errno == EEXIST ? "a duplicate name" : strerror(errno));
		return 0;
	}
	char buf[65536];
	uint64_t got = 0;
	int r = 0;
	for (;;) {
		la_ssize_t n = la.archive_read_data(x->a, buf, sizeof(buf));
		if (n == 0)
			break;
		if (n < 0) {
			r = fail(x, -EINVAL, "corrupt archive at %s: %s", name,
				 la.archive_error_string(x->a) ?: "read error");
			break;
		}
		got += (uint64_t)n;
		if (got > x->lim->max_member) {
			r = fail(x, -EFBIG, "%s: over %llu bytes (the most for one member)", name,
				 (unsigned long long)x->lim->max_member);
			break;
		}
		if (x->st->bytes + got > x->lim->max_total) {
			r = fail(x, -EFBIG, "%s: the members pass %llu bytes in all", name,
				 (unsigned long long)x->lim->max_total);
			break;
		}
		if ((r = space_left(x, fd, (uint64_t)n))) {
			fail(x, r, "%s: the file system would keep less than %llu MiB free", name,
			     (unsigned long long)(x->lim->keep_free >> 20));
			break;
		}
		for (la_ssize_t o = 0; o < n;) {
			ssize_t w = write(fd, buf + o, (size_t)(n - o));
			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				r = fail(x, -errno, "%s: %s", name, strerror(errno));
				break;
			}
			o += w;
		}
		if (r)
			break;
	}
	if (!r && fchmod(fd, (mode & 0777) | 0400))
		r = fail(x, -errno, "%s: %s", name, strerror(errno));
	close(fd);
	if (r) {
		unlinkat(dfd, leaf, 0);
		return r;
	}
	x->st->files++;
	x->st->bytes += got;
	return 0;
}

/* One header's member: written, skipped with a warning, or a fatal -errno. */
static int one_member(struct xctx *x, struct archive_entry *e)
{
	const char *raw = la.archive_entry_pathname(e);
	char name[PATH_MAX];
	if (!raw)
		raw = "(no name)";
	if (la.archive_entry_size_is_set(e) && la.archive_entry_size(e) > 0 &&
	    (uint64_t)la.archive_entry_size(e) > x->lim->max_member)
		return fail(x, -EFBIG, "%s: a member of %lld bytes (at most %llu)", raw,
			    (long long)la.archive_entry_size(e),
			    (unsigned long long)x->lim->max_member);
	/* "./" (tar -C DIR -c .): the root itself, which is there */
	if (la.archive_entry_filetype(e) == AE_IFDIR && tar_name_is_root(raw))
		return 0;
	if (tar_name_sanitize(raw, name, sizeof(name))) {
		skip(x, raw, "an absolute name, a .. component or an unusable name");
		return 0;
	}
	if (la.archive_entry_hardlink(e)) {
		skip(x, raw, "a hard link");
		return 0;
	}
	mode_t type = la.archive_entry_filetype(e);
	if (type != AE_IFREG && type != AE_IFDIR) {
		skip(x, raw,
		     type == AE_IFLNK			      ? "a symlink"
		     : type == AE_IFIFO			      ? "a FIFO"
		     : (type == AE_IFCHR || type == AE_IFBLK) ? "a device node"
							      : "not a regular file or directory");
		return 0;
	}
	const char *leaf = NULL;
	int dfd = walk_dirs(x->root, name, type == AE_IFREG, &leaf);
	if (dfd < 0) {
		skip(x, raw, "its directory cannot be made (a file of that name?)");
		return 0;
	}
	int r = 0;
	if (type == AE_IFDIR)
		x->st->dirs++;
	else
		r = write_member(x, dfd, leaf, raw, la.archive_entry_perm(e));
	close(dfd);
	return r;
}

int tarx_extract(const char *archive, int dirfd, const struct tarx_limits *lim,
		 void (*warn)(void *ctx, const char *name, const char *why), void *ctx,
		 struct tarx_stats *st, char *err, size_t errn)
{
	memset(st, 0, sizeof(*st));
	struct xctx x = {.root = dirfd,
			 .lim = lim,
			 .st = st,
			 .warn = warn,
			 .wctx = ctx,
			 .err = err,
			 .errn = errn};
	char why[256];
	if (la_load(why, sizeof(why)))
		return fail(&x, -ENOTSUP, "cannot read bundles: %s", why);
	int fd = open(archive, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return fail(&x, -errno, "%s: %s", archive, strerror(errno));
	struct stat sb;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode)) {
		close(fd);
		return fail(&x, -EINVAL, "%s: not a regular file", archive);
	}
	x.a = la.archive_read_new();
	if (!x.a) {
		close(fd);
		return fail(&x, -ENOMEM, "out of memory");
	}
	/* only tar and gzip: no other format's or filter's parser sees the input */
	la.archive_read_support_format_tar(x.a);
	la.archive_read_support_filter_gzip(x.a);
	int r = 0;
	if (la.archive_read_open_fd(x.a, fd, 65536) != ARCHIVE_OK) {
		r = fail(&x, -EINVAL, "not a tar.gz bundle: %s",
			 la.archive_error_string(x.a) ?: "unreadable");
		goto out;
	}
	uint64_t n = 0;
	for (;;) {
		struct archive_entry *e;
		int h = la.archive_read_next_header(x.a, &e);
		if (h == ARCHIVE_EOF)
			break;
		if (h != ARCHIVE_OK && h != ARCHIVE_WARN) {
			r = fail(&x, -EINVAL, "corrupt or truncated archive: %s",
				 la.archive_error_string(x.a) ?: "read error");
			break;
		}
		if (++n > lim->max_members) {
			r = fail(&x, -E2BIG, "more than %llu members",
				 (unsigned long long)lim->max_members);
			break;
		}
		/* headers, pax records and skipped content count against the total too */
		uint64_t raw = (uint64_t)la.archive_filter_bytes(x.a, 0);
		if (raw > lim->max_total + lim->max_member) {
			r = fail(&x, -EFBIG, "over %llu bytes of tar stream",
				 (unsigned long long)(lim->max_total + lim->max_member));
			break;
		}
		if ((r = one_member(&x, e)))
			break;
	}
out:
	la.archive_read_free(x.a);
	close(fd);
	return r;
}

struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* Empty the directory DFD (closed here); DEPTH levels left. */
static int empty_dir(int dfd, int depth)
{
	char buf[4096] __attribute__((aligned(8)));
	int r = 0;
	for (;;) {
		long n = syscall(SYS_getdents64, dfd, buf, sizeof(buf));
		if (n <= 0) {
			if (n < 0)
				r = -errno;
			break;
		}
		bool removed = false;
		for (long o = 0; o < n;) {
			struct linux_dirent64 *d = (struct linux_dirent64 *)(buf + o);
			o += d->d_reclen;
			const char *nm = d->d_name;
			if (nm[0] == '.' && (!nm[1] || (nm[1] == '.' && !nm[2])))
				continue;
			unsigned char t = d->d_type;
			struct stat sb;
			if (t == DT_UNKNOWN && fstatat(dfd, nm, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISDIR(sb.st_mode))
				t = DT_DIR;
			if (t == DT_DIR && depth > 0) {
				int c = openat(dfd, nm,
					       O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
				if (c >= 0)
					empty_dir(c, depth - 1);
				if (unlinkat(dfd, nm, AT_REMOVEDIR) && !r)
					r = -errno;
			} else if (unlinkat(dfd, nm, 0) && !r) {
				r = -errno;
			}
			removed = true;
		}
		if (removed)
			lseek(dfd, 0,
			      SEEK_SET); /* entries moved under us: read again from the start */
		if (r)
			break;
	}
	close(dfd);
	return r;
}

int tree_remove(const char *path)
{
	int dfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return errno == ENOENT ? 0 : -errno;
	int r = empty_dir(dfd, 64);
	if (rmdir(path) && !r)
		r = -errno;
	return r;
}
