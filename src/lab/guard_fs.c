// SPDX-License-Identifier: MIT
/*
 * The journal directory, the lock and safe opening for lab/guard.c. See
 * guard.c for why the lock is a POSIX record lock that is never closed.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "guard.h"
#include "guard_int.h"
#include "../util/fileio.h"
#include "journal.h"

#define DEFAULT_DIR "/run/thpctl"

static struct {
	int dirfd; /* the journal directory, checked */
	int dir_err;
	bool dir_done;
	bool custom_dir;
	int lockfd; /* never closed once open */
	int rootfd;
	char dir[PATH_MAX];
	char path[PATH_MAX + 16];
	char holder[160];
	char holder_purpose[64];
} g = {.dirfd = -1, .lockfd = -1, .rootfd = -1};

static const char *dir_path(void)
{
	g.custom_dir = false;
#ifdef THPCTL_TEST_HOOKS
	/* test builds only: release binaries have no such variable */
	const char *d = getenv("THPCTL_JOURNAL_DIR");
	if (d && *d) {
		g.custom_dir = true;
		return d;
	}
#endif
	return DEFAULT_DIR;
}

const char *guard_journal_path(void)
{
	if (!g.path[0]) {
		snprintf(g.dir, sizeof(g.dir), "%s", dir_path());
		snprintf(g.path, sizeof(g.path), "%s/journal", g.dir);
	}
	return g.path;
}

/*
 * Open and check the journal directory once: a real directory (not a
 * symlink) owned by root, writable by nobody else (0700 for a test
 * directory). CREATE (root): make it when missing. Returns the fd, or -errno
 * (-ENOENT: none yet; -EPERM: it failed a check, said once on stderr).
 */
int gfs_dir(bool create)
{
	if (g.dir_done && !(g.dir_err == -ENOENT && create))
		return g.dir_err ? g.dir_err : g.dirfd;
	guard_journal_path();
	g.dir_done = true;
	int fd = open(g.dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && create && geteuid() == 0) {
		if (mkdir(g.dir, g.custom_dir ? 0700 : 0755) && errno != EEXIST)
			return g.dir_err = -errno;
		fd = open(g.dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0) {
		g.dir_err = errno == ELOOP || errno == ENOTDIR ? -EPERM : -errno;
		if (g.dir_err == -EPERM)
			fprintf(stderr,
				"thpctl: journal directory %s ignored: not a directory (a symlink?)\n",
				g.dir);
		return g.dir_err;
	}
	struct stat st;
	const char *why = NULL;
	if (fstat(fd, &st))
		why = "cannot stat it";
	else if (st.st_uid != 0)
		why = "not owned by root";
	else if (st.st_mode & (g.custom_dir ? 077 : 022))
		why = g.custom_dir ? "its mode is not 0700" : "writable by group or others";
	if (why) {
		fprintf(stderr, "thpctl: journal directory %s ignored: %s\n", g.dir, why);
		close(fd);
		return g.dir_err = -EPERM;
	}
	g.dir_err = 0;
	return g.dirfd = fd;
}

/*
 * Open DIRFD/NAME for reading without following a symlink or blocking on a
 * FIFO: a regular file owned by root of at most MAX bytes, read into OUT (N
 * >= MAX+1, NUL-terminated). Returns the length, -ENOENT, or -errno
 * (-EINVAL: not a regular file or not root's; -EFBIG: too large).
 */
ssize_t gfs_read_root_file(int dirfd, const char *name, char *out, size_t n, size_t max)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return errno == ELOOP ? -EINVAL : -errno;
	struct stat st;
	ssize_t r;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != 0)
		r = -EINVAL;
	else if ((size_t)st.st_size > max)
		r = -EFBIG;
	else
		r = pread(fd, out, n - 1, 0);
	if (r < 0 && r != -EINVAL && r != -EFBIG)
		r = -errno;
	close(fd);
	if (r >= 0)
		out[r] = '\0';
	return r;
}

/* ---- the lock ------------------------------------------------------------ */

static int lock_open(void)
{
	if (g.lockfd >= 0)
		return 0;
	int dfd = gfs_dir(geteuid() == 0);
	if (dfd < 0)
		return dfd;
	int flags = geteuid() == 0 ? O_RDWR | O_CREAT : O_RDONLY;
	int fd = openat(dfd, "lock", flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	struct stat st;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != 0) {
		close(fd);
		fprintf(stderr, "thpctl: %s/lock ignored: not a regular file owned by root\n",
			g.dir);
		return -EPERM;
	}
	g.lockfd = fd;
	return 0;
}

/* Describe the lock's holder into g.holder; false when nobody holds it. */
bool gfs_lock_holder(void)
{
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
	if (fcntl(g.lockfd, F_GETLK, &fl) || fl.l_type == F_UNLCK)
		return false;
	char text[128] = "";
	ssize_t r = pread(g.lockfd, text, sizeof(text) - 1, 0);
	text[r > 0 ? r : 0] = '\0';
	text[strcspn(text, "\n")] = '\0';
	long pid = 0;
	int off = 0;
	const char *purpose = "";
	if (sscanf(text, "%ld %n", &pid, &off) == 1 && pid == fl.l_pid)
		purpose = text + off;
	snprintf(g.holder_purpose, sizeof(g.holder_purpose), "%s", purpose);
	if (fl.l_pid > 0)
		snprintf(g.holder, sizeof(g.holder), "pid %ld%s%s%s", (long)fl.l_pid,
			 *purpose ? " (" : "", purpose, *purpose ? ")" : "");
	else
		snprintf(g.holder, sizeof(g.holder), "a thpctl in another PID namespace");
	return true;
}

const char *guard_holder(void)
{
	return g.holder;
}

/* Take the lock (WAIT: block until it is free). Returns 0, -EBUSY (g.holder set) or -errno. */
int gfs_lock_take(bool wait, const char *purpose)
{
	int r = lock_open();
	if (r)
		return r;
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
	for (int tries = 0; fcntl(g.lockfd, F_SETLK, &fl); tries++) {
		if (errno != EAGAIN && errno != EACCES)
			return -errno;
		/*
		 * Let go meanwhile, or held by another command's recovery (a few
		 * reads, or a restore): that is no change in progress, retry for
		 * up to a second rather than fail.
		 */
		bool held = gfs_lock_holder();
		if (tries < 100 && (!held || strcmp(g.holder_purpose, GFS_RECOVERY) == 0)) {
			usleep(10000);
			continue;
		}
		if (!held)
			snprintf(g.holder, sizeof(g.holder), "another thpctl");
		if (!wait)
			return -EBUSY;
		fprintf(stderr, "thpctl: waiting for %s to finish changing settings\n", g.holder);
		while (fcntl(g.lockfd, F_SETLKW, &fl))
			if (errno != EINTR)
				return -errno;
		break;
	}
	char text[128];
	int n = snprintf(text, sizeof(text), "%ld %s\n", (long)getpid(), purpose);
	if (ftruncate(g.lockfd, 0) == 0 && pwrite(g.lockfd, text, (size_t)n, 0) < 0) {
		/* the content only names us in messages: the lock is what counts */
	}
	return 0;
}

void gfs_lock_drop(void)
{
	if (g.lockfd < 0)
		return;
	if (ftruncate(g.lockfd, 0)) {
		/* cosmetic only */
	}
	struct flock fl = {.l_type = F_UNLCK, .l_whence = SEEK_SET};
	fcntl(g.lockfd, F_SETLK, &fl);
}

/* ---- writing knob files -------------------------------------------------- */

/*
 * Open REL beneath ROOTFD one component at a time, following no symlink and
 * no "..", never blocking. Async-signal-safe. Returns an fd or -errno.
 */
int gfs_open_beneath(int rootfd, const char *rel, int flags)
{
	int dir = rootfd;
	for (;;) {
		size_t n = strcspn(rel, "/");
		char comp[NAME_MAX + 1];
		if (n == 0 || n > NAME_MAX || (n == 2 && rel[0] == '.' && rel[1] == '.') ||
		    (n == 1 && rel[0] == '.')) {
			if (dir != rootfd)
				close(dir);
			return -EINVAL;
		}
		memcpy(comp, rel, n);
		comp[n] = '\0';
		bool last = rel[n] == '\0';
		int fd = openat(dir, comp,
				last ? flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC
				     : O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int err = errno;
		if (dir != rootfd)
			close(dir);
		if (fd < 0)
			return -err;
		if (last)
			return fd;
		dir = fd;
		rel += n + 1;
	}
}

/*
 * Write E's old value back and read it back. Async-signal-safe. Returns 0
 * when the file now holds it, else the write's -errno or -EIO.
 */
int gfs_restore_one(int rootfd, const struct journal_entry *e)
{
	int fd = gfs_open_beneath(rootfd, e->rel, O_WRONLY);
	if (fd < 0)
		return fd;
	int err = write_all(fd, e->old, strlen(e->old));
	close(fd);
	fd = gfs_open_beneath(rootfd, e->rel, O_RDONLY);
	if (fd < 0)
		return err ? err : fd;
	char text[512];
	ssize_t n = read(fd, text, sizeof(text));
	close(fd);
	if (n > 0 && journal_value_matches(text, (size_t)n, e->old))
		return 0;
	return err ? err : -EIO;
}

const char *gfs_dir_path(void)
{
	guard_journal_path();
	return g.dir;
}

int gfs_root(void)
{
	if (g.rootfd < 0 && (g.rootfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -errno;
	return g.rootfd;
}

int gfs_lock_check(void)
{
	int r = lock_open();
	return r ? r : gfs_lock_holder() ? -EBUSY : 0;
}
