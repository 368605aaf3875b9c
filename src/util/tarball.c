// SPDX-License-Identifier: MIT
/* The bundle writer (libarchive, gzip + GNU tar format) and the member name sanitizer. */
#include "tarball.h"

#include "archive_load.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int tar_name_sanitize(const char *in, char *out, size_t n)
{
	if (!in || !n)
		return -EINVAL;
	if (in[0] == '/')
		return -EINVAL;
	size_t o = 0;
	int depth = 0;
	const char *p = in;
	while (*p) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		const char *e = strchrnul(p, '/');
		size_t l = (size_t)(e - p);
		/* bytes 0x01-0x1f and 0x7f are kept: a cgroup may be named so, the private
		 * extraction directory takes them, and every printed name is escaped */
		if (l == 2 && p[0] == '.' && p[1] == '.')
			return -EINVAL;
		if (l > 255)
			return -EINVAL;
		if (!(l == 1 && p[0] == '.')) {
			if (++depth > TAR_MAX_DEPTH)
				return -EINVAL;
			if (o + (o ? 1 : 0) + l + 1 > n)
				return -ENAMETOOLONG;
			if (o)
				out[o++] = '/';
			memcpy(out + o, p, l);
			o += l;
		}
		p = e;
	}
	if (!o)
		return -EINVAL;
	out[o] = '\0';
	return 0;
}

bool tar_name_is_root(const char *in)
{
	if (!in || in[0] == '/')
		return false;
	for (const char *p = in; *p; p++)
		if (*p != '.' && *p != '/')
			return false;
		else if (*p == '.' && p[1] && p[1] != '/')
			return false; /* "..", "..." */
	return in[0] == '.';
}

struct tarw {
	struct archive *a;
	char err[256];
	time_t now;
	int fd;
	char tmp[PATH_MAX];  /* what is written: DIR/.NAME.XXXXXX beside PATH */
	char path[PATH_MAX]; /* the bundle's name, made only when it is complete */
};

/* TMP: "DIR/.BASE.XXXXXX" for PATH "DIR/BASE" (or "BASE"). 0 or -ENAMETOOLONG. */
static int temp_name(const char *path, char *tmp, size_t n)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	int dl = slash ? (int)(slash - path + 1) : 0;
	int r = snprintf(tmp, n, "%.*s.%s.XXXXXX", dl, path, base);
	return r < 0 || (size_t)r >= n ? -ENAMETOOLONG : 0;
}

struct tarw *tarw_open(const char *path, int *err)
{
	if (la_load(NULL, 0)) {
		*err = -ENOTSUP; /* la_load() says why */
		return NULL;
	}
	struct stat sb;
	int e = lstat(path, &sb) == 0 ? -EEXIST : errno == ENOENT ? 0 : -errno;
	if (e) { /* said now, before the work; tarw_close() places it without replacing */
		*err = e;
		return NULL;
	}
	struct tarw *w = calloc(1, sizeof(*w));
	if (!w) {
		*err = -ENOMEM;
		return NULL;
	}
	snprintf(w->path, sizeof(w->path), "%s", path);
	if ((*err = temp_name(path, w->tmp, sizeof(w->tmp))) ||
	    (w->fd = mkostemp(w->tmp, O_CLOEXEC)) < 0) { /* O_EXCL, mode 0600 */
		*err = *err ? *err : -errno;
		free(w);
		return NULL;
	}
	w->now = time(NULL);
	if (!(w->a = la.archive_write_new()) ||
	    la.archive_write_set_bytes_in_last_block(w->a, 1) != ARCHIVE_OK ||
	    la.archive_write_add_filter_gzip(w->a) != ARCHIVE_OK ||
	    /* GNU tar: names as the bytes they are (a cgroup's name may be any bytes, and
	     * thpctl runs in the C locale); pax translated them to UTF-8, refused any byte >=
	     * 0x80 and failed the whole capture (and its hdrcharset=BINARY, on every member,
	     * made GNU tar warn for each) */
	    la.archive_write_set_format_gnutar(w->a) != ARCHIVE_OK ||
	    la.archive_write_open_fd(w->a, w->fd) != ARCHIVE_OK) {
		*err = w->a ? -EIO : -ENOMEM;
		tarw_abort(w);
		return NULL;
	}
	*err = 0; /* la.archive_write_open_fd() does not close the fd: tarw_close() does */
	return w;
}

const char *tarw_temp(const struct tarw *w)
{
	return w->tmp;
}

int tarw_add(struct tarw *w, const char *name, unsigned mode, const void *data, size_t len)
{
	struct archive_entry *e = la.archive_entry_new();
	if (!e)
		return -ENOMEM;
	la.archive_entry_set_pathname(e, name);
	la.archive_entry_set_filetype(e, AE_IFREG);
	la.archive_entry_set_perm(e, mode & 0777);
	la.archive_entry_set_size(e, (la_int64_t)len);
	la.archive_entry_set_mtime(e, w->now, 0);
	int r = 0;
	if (la.archive_write_header(w->a, e) != ARCHIVE_OK ||
	    (len && la.archive_write_data(w->a, data, len) != (la_ssize_t)len)) {
		snprintf(w->err, sizeof(w->err), "%s",
			 la.archive_error_string(w->a) ?: "write error");
		r = -EIO;
	}
	la.archive_entry_free(e);
	return r;
}

const char *tarw_error(const struct tarw *w)
{
	return w->err[0] ? w->err : "write error";
}

/* TMP under the name PATH, never over an existing file: link(), else (a file system without
 * hard links) renameat2(RENAME_NOREPLACE). 0 or -errno (-EEXIST: PATH exists). */
static int place(const char *tmp, const char *path)
{
	if (link(tmp, path) == 0)
		return 0;
	if (errno == EEXIST)
		return -EEXIST;
	return renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) ? -errno : 0;
}

int tarw_close(struct tarw *w)
{
	int r = la.archive_write_close(w->a) == ARCHIVE_OK ? 0 : -EIO;
	la.archive_write_free(w->a);
	if (fsync(w->fd) && errno != EINVAL)
		r = -EIO;
	if (close(w->fd))
		r = -EIO;
	if (!r)
		r = place(w->tmp, w->path);
	unlink(w->tmp); /* linked: the bundle stays under its name; renamed: already gone */
	free(w);
	return r;
}

void tarw_abort(struct tarw *w)
{
	if (w->a)
		la.archive_write_free(w->a); /* closes the archive, not the fd */
	close(w->fd);
	unlink(w->tmp);
	free(w);
}
