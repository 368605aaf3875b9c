// SPDX-License-Identifier: MIT
#include "sysroot.h"

#include "../util/buf.h"
#include "../util/fileio.h"
#include "fdcache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

int sysroot_open(struct sysroot *sr, const char *dir)
{
	if (!dir || !*dir)
		dir = "/";
	memset(sr, 0, sizeof(*sr));
	sr->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sr->dirfd < 0)
		return -errno;
	snprintf(sr->path, sizeof(sr->path), "%s", dir);
	/* live when DIR is the same directory as "/" */
	struct stat a, b;
	if (fstat(sr->dirfd, &a) == 0 && stat("/", &b) == 0)
		sr->live = a.st_dev == b.st_dev && a.st_ino == b.st_ino;
	/* RHEL 6 kernels keep the same knobs under another name */
	sr->rhel_thp = faccessat(sr->dirfd, SR_THP, F_OK, 0) != 0 &&
		       faccessat(sr->dirfd, SR_THP_RHEL6, F_OK, 0) == 0;
	struct statfs fs;
	sr->procfs = sr->live && statfs("/proc", &fs) == 0 && fs.f_type == PROC_SUPER_MAGIC;
	return 0;
}

/* REL with SR_THP read as SR_THP_RHEL6 on a RHEL 6 tree (into TMP), else REL itself. */
static const char *map_rel(const struct sysroot *sr, const char *rel, char *tmp, size_t n)
{
	while (*rel == '/')
		rel++;
	size_t l = strlen(SR_THP);
	if (!sr->rhel_thp || strncmp(rel, SR_THP, l) != 0 || (rel[l] && rel[l] != '/'))
		return rel;
	if (snprintf(tmp, n, "%s%s", SR_THP_RHEL6, rel + l) >= (int)n)
		return rel;
	return tmp;
}

void sysroot_close(struct sysroot *sr)
{
	if (sr->dirfd >= 0)
		close(sr->dirfd);
	sr->dirfd = -1;
}

static bool starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Files of the installed system, not of the kernel: symlinks are normal there. */
static bool system_file(const char *rel)
{
	return starts(rel, "etc/") || starts(rel, "var/") || starts(rel, "boot/") ||
	       starts(rel, "usr/");
}

/*
 * openat() of REL (already mapped) in SR. The live root follows its links as
 * the system does (proc/self, proc/mounts); a recorded tree is read below its
 * root only: no symlink in a kernel path (proc/PID -> / is refused), and in a
 * system file (etc/...) only links that stay in the tree.
 */
static int sr_open(const struct sysroot *sr, const char *rel, int flags)
{
	if (sr->live) {
		int fd = openat(sr->dirfd, rel, flags | O_CLOEXEC);
		return fd < 0 ? -errno : fd;
	}
	return openat_beneath(sr->dirfd, rel, flags, system_file(rel));
}

int sysroot_openat(const struct sysroot *sr, const char *rel, int flags)
{
	char tmp[PATH_MAX];
	rel = map_rel(sr, rel, tmp, sizeof(tmp));
	/* O_PATH takes no O_NONBLOCK (openat2 refuses it): it opens nothing to block on */
	return sr_open(sr, rel, flags | (flags & O_PATH ? 0 : O_NONBLOCK));
}

int sysroot_stat(const struct sysroot *sr, const char *rel, struct stat *st, bool nofollow)
{
	char tmp[PATH_MAX];
	rel = map_rel(sr, rel, tmp, sizeof(tmp));
	if (sr->live)
		return fstatat(sr->dirfd, rel, st, nofollow ? AT_SYMLINK_NOFOLLOW : 0) ? -errno : 0;
	int fd = sr_open(sr, rel, O_PATH | (nofollow ? O_NOFOLLOW : 0));
	if (fd < 0)
		return fd;
	int r = fstat(fd, st) ? -errno : 0;
	close(fd);
	return r;
}

size_t sysroot_read_max(const char *rel)
{
	static const struct {
		const char *name;
		size_t max;
	} by_name[] = {
		{"vmstat", SR_MAX_COUNTERS},
		{"meminfo", SR_MAX_COUNTERS},
		{"buddyinfo", SR_MAX_COUNTERS},
		{"status", SR_MAX_PROC_SMALL},
		{"stat", SR_MAX_PROC_SMALL},
		{"statm", SR_MAX_PROC_SMALL},
		{"smaps_rollup", SR_MAX_PROC_SMALL},
		{"uptime", SR_MAX_KNOB},
		{"cgroup", SR_MAX_COUNTERS},
		{"cmdline", 8u << 20},
		{"environ", 8u << 20},
		{"smaps", 64u << 20},
		{"mounts", 64u << 20},
		{"cgroup.procs", 64u << 20},
		{"cgroup.threads", 64u << 20},
		{"config.gz", 16u << 20},
	};
	while (*rel == '/')
		rel++;
	if (starts(rel, "boot/"))
		return 16u << 20;
	if (system_file(rel))
		return SYSROOT_READ_MAX;
	const char *slash = strrchr(rel, '/');
	const char *name = slash ? slash + 1 : rel;
	for (size_t i = 0; i < sizeof(by_name) / sizeof(by_name[0]); i++)
		if (strcmp(name, by_name[i].name) == 0)
			return by_name[i].max;
	if (starts(rel, "sys/kernel/mm/") || starts(rel, "sys/devices/system/node/") ||
	    starts(rel, SR_PROC "/sys/"))
		return SR_MAX_KNOB;
	if (starts(rel, SR_CGROUP "/"))
		return SR_MAX_COUNTERS;
	return SYSROOT_READ_MAX;
}

int sysroot_open_file(const struct sysroot *sr, const char *rel)
{
	if (sr->proc_pid) { /* procfs makes only regular files and links there */
		int fd = openat(sr->dirfd, rel, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
		return fd < 0 ? -errno : fd;
	}
	char tmp[PATH_MAX];
	rel = map_rel(sr, rel, tmp, sizeof(tmp));
	unsigned flags = sr->live ? 0 : OPEN_PRECHECK | OPEN_BENEATH;
	/* the live proc/mounts is a link to self/mounts */
	if (!system_file(rel) && !(sr->live && strcmp(rel, SR_PROC "/mounts") == 0))
		flags |= OPEN_NOFOLLOW;
	return open_regular_at(sr->dirfd, rel, flags);
}

/* A procfs file of proc/PID printed by one show(): one read() returns it whole. */
static bool one_record(const struct sysroot *sr, const char *rel)
{
	return sr->proc_pid && (strcmp(rel, "status") == 0 || strcmp(rel, "stat") == 0 ||
				strcmp(rel, "statm") == 0 || strcmp(rel, "smaps_rollup") == 0);
}

int sysroot_read(const struct sysroot *sr, const char *rel, struct buf *b)
{
	if (sr->cache) {
		int r = fdcache_read(sr->cache, sr, rel, b);
		if (r != -EOPNOTSUPP)
			return r;
	}
	int fd = sysroot_open_file(sr, rel);
	if (fd < 0) {
		b->len = 0;
		if (b->p)
			b->p[0] = '\0';
		return fd;
	}
	int ret = buf_read_fd(b, fd, sysroot_read_max(rel),
			      one_record(sr, rel) ? READ_ONE_RECORD : 0);
	close(fd);
	return ret;
}

int sysroot_read_chunks(const struct sysroot *sr, const char *rel, struct buf *b,
			int (*fn)(void *ctx, const char *text, size_t len), void *ctx)
{
	int fd = sysroot_open_file(sr, rel);
	if (fd < 0)
		return fd;
	size_t keep = 0;  /* bytes of an incomplete last line kept at the start of b */
	size_t fresh = 0; /* bytes read after them, not yet given to FN */
	int ret = 0;
	for (;;) {
		if (buf_reserve(b, keep + 65536 + 1)) {
			ret = -ENOMEM;
			break;
		}
		size_t want = b->cap - keep - fresh - 1;
		if (want > 65536 - fresh)
			want = 65536 - fresh;
		ssize_t n = read(fd, b->p + keep + fresh, want);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		fresh += (size_t)n;
		/* a procfs read returns a page or so (seq_file): read on while 16 KiB are left of
		 * the 64 KiB, so that the kernel's side and FN's each run many pages at a time
		 * (alternating page by page cost the kernel ~20% more for the same smaps) */
		if (n > 0 && 65536 - fresh >= 16384)
			continue;
		size_t have = keep + fresh;
		if (n == 0 && !fresh) {
			if (keep)
				ret = fn(ctx, b->p, keep);
			break;
		}
		/* at most 64 KiB read since the last FN: only the line begun before can be longer */
		const char *first = memchr(b->p + keep, '\n', fresh);
		if ((first ? (size_t)(first - b->p) : have) > SR_MAX_LINE) {
			ret = -EFBIG;
			break;
		}
		if (n == 0) { /* the end: the rest, its last line perhaps without a newline */
			ret = fn(ctx, b->p, have);
			break;
		}
		fresh = 0;
		char *nl = memrchr(b->p, '\n', have);
		if (!nl) {
			keep = have; /* a line longer than the buffer: grow */
			continue;
		}
		size_t whole = (size_t)(nl - b->p) + 1;
		if ((ret = fn(ctx, b->p, whole)))
			break;
		keep = have - whole;
		memmove(b->p, b->p + whole, keep);
	}
	close(fd);
	b->len = 0;
	return ret;
}

int sysroot_readf(const struct sysroot *sr, struct buf *b, const char *fmt, ...)
{
	char rel[PATH_MAX];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(rel))
		return -ENAMETOOLONG;
	return sysroot_read(sr, rel, b);
}

DIR *sysroot_opendir(const struct sysroot *sr, const char *rel)
{
	int fd = sysroot_openat(sr, rel, O_RDONLY | O_DIRECTORY);
	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	DIR *d = fdopendir(fd);
	if (!d) {
		int e = errno;
		close(fd);
		errno = e;
	}
	return d;
}

int sysroot_listdir_fresh(const struct sysroot *sr, const char *rel, struct sr_dirlist *l)
{
	memset(l, 0, sizeof(*l));
	DIR *d = sysroot_opendir(sr, rel);
	if (!d)
		return -errno;
	struct buf names = {0};
	size_t cap = 0;
	int r = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (buf_add(&names, de->d_name, strlen(de->d_name) + 1) ||
		    array_reserve(&l->types, &cap, l->n + 1, 1, 32)) {
			r = -ENOMEM;
			break;
		}
		l->types[l->n++] = de->d_type;
	}
	closedir(d);
	l->names = names.p;
	if (r)
		sysroot_dirlist_free(l);
	return r;
}

int sysroot_listdir(const struct sysroot *sr, const char *rel, struct sr_dirlist *l)
{
	if (sr->cache) {
		int r = fdcache_listdir(sr->cache, sr, rel, l);
		if (r != -EOPNOTSUPP)
			return r;
	}
	return sysroot_listdir_fresh(sr, rel, l);
}

void sysroot_dirlist_free(struct sr_dirlist *l)
{
	if (!l->kept) {
		free(l->names);
		free(l->types);
	}
	memset(l, 0, sizeof(*l));
}

int sysroot_exists(const struct sysroot *sr, const char *rel)
{
	struct stat st;
	return sysroot_stat(sr, rel, &st, false);
}

/*
 * The /sys line of a recorded proc/mounts: 1 "ro", 0 "rw", -1 none (proc/mounts
 * not recorded, or no /sys line: whether the settings were writable is unknown).
 */
static int recorded_sys_ro(const struct sysroot *sr)
{
	struct buf b = {0};
	int ro = -1;
	if (sysroot_read(sr, SR_PROC "/mounts", &b) == 0) {
		char *save = NULL;
		for (char *l = strtok_r(b.p, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
			char dev[256], mnt[256], type[64], opts[512];
			if (sscanf(l, "%255s %255s %63s %511s", dev, mnt, type, opts) != 4)
				continue;
			if (strcmp(mnt, "/sys") == 0)
				ro = strncmp(opts, "ro", 2) == 0 && (opts[2] == ',' || !opts[2]);
		}
	}
	buf_free(&b);
	return ro;
}

int sysroot_writable(const struct sysroot *sr, const char *rel)
{
	if (sr->live) {
		/* opening for write without writing changes nothing */
		int fd = sysroot_openat(sr, rel, O_WRONLY | O_NONBLOCK);
		if (fd < 0)
			return fd;
		close(fd);
		return 0;
	}
	struct stat st;
	int e = sysroot_stat(sr, rel, &st, false);
	if (e)
		return e;
	int ro = recorded_sys_ro(sr);
	if (ro < 0)
		return -ENODATA; /* a tree without that evidence (what sos collects): not recorded */
	if (ro)
		return -EROFS;
	return (st.st_mode & 0222) ? 0 : -EACCES;
}
