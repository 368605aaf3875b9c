// SPDX-License-Identifier: MIT
/*
 * Undo files (guard_undo_add): host changes undone by an action, such as a
 * tracefs instance. Each process keeps its own file "undo.<pid>" in the
 * journal directory, holds a POSIX write lock on it while it lives (the
 * descriptor is never closed, see guard.c), and rewrites it in place. A
 * file nobody holds a lock on belongs to a dead process: its undos run.
 * Records are written before the change is made, so a torn rewrite can only
 * lose a record of a change that was not made yet or was already undone.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../kernel/memcg_lab.h"
#include "../kernel/tracefs.h"
#include "fileread.h"
#include "guard.h"
#include "guard_int.h"

#define UNDO_MAX 8
#define UNDO_MAX_BYTES 4096

static const struct {
	const char *kind;
	const char *what; /* for messages */
	int (*run)(const char *arg);
} undo_kinds[] = {
	{GUARD_UNDO_TRACEFS_INSTANCE, "tracefs instance", tracefs_remove_instance_named},
	{GUARD_UNDO_LAB_DIR, "lab directory (tmpfs mounts, data file)", fr_dir_undo},
	{GUARD_UNDO_MEMCG, "lab memory cgroup", memcg_lab_remove},
};

static struct {
	int fd; /* our undo file, locked; never closed */
	int n;
	char kind[UNDO_MAX][32];
	char arg[UNDO_MAX][96];
	char purpose[64];
} u = {.fd = -1};

static int undo_kind(const char *kind)
{
	for (size_t i = 0; i < sizeof(undo_kinds) / sizeof(undo_kinds[0]); i++)
		if (strcmp(undo_kinds[i].kind, kind) == 0)
			return (int)i;
	return -1;
}

/* Whether ARG is a well-formed argument of KIND: a name, or for a lab directory its path. */
static bool arg_ok(const char *kind, const char *arg)
{
	if (strcmp(kind, GUARD_UNDO_LAB_DIR) == 0)
		return strlen(arg) < sizeof(u.arg[0]) && fr_dir_path_ok(arg);
	if (strcmp(kind, GUARD_UNDO_MEMCG) == 0)
		return strlen(arg) < sizeof(u.arg[0]) && memcg_lab_path_ok(arg);
	for (const char *p = arg; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' || *p == '.'))
			return false;
	return *arg && strlen(arg) < sizeof(u.arg[0]);
}

/* Create and lock our undo file once. */
static int undo_open(void)
{
	if (u.fd >= 0)
		return 0;
	int dfd = gfs_dir(true);
	if (dfd < 0)
		return dfd;
	char name[32];
	snprintf(name, sizeof(name), "undo.%ld", (long)getpid());
	int fd = openat(dfd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	struct stat st;
	struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != 0 || fcntl(fd, F_SETLK, &fl)) {
		close(fd);
		return -EPERM;
	}
	u.fd = fd;
	return 0;
}

/* Rewrite our undo file in place; when the list is empty, remove it and let go of it. */
static int undo_save(void)
{
	if (!u.n) {
		char name[32];
		snprintf(name, sizeof(name), "undo.%ld", (long)getpid());
		int dfd = gfs_dir(false);
		if (dfd >= 0)
			unlinkat(dfd, name, 0);
		close(u.fd); /* after the unlink: nobody can find it unlocked */
		u.fd = -1;
		return 0;
	}
	char text[UNDO_MAX_BYTES];
	int k = snprintf(text, sizeof(text), "thpctl-undo 2\nowner %ld\npurpose %s\n",
			 (long)getpid(), u.purpose);
	for (int i = 0; i < u.n; i++)
		k += snprintf(text + k, sizeof(text) - (size_t)k, "undo %s\t%s\n", u.kind[i],
			      u.arg[i]);
	if (ftruncate(u.fd, 0) || pwrite(u.fd, text, (size_t)k, 0) != k || fsync(u.fd))
		return -errno;
	return 0;
}

int guard_undo_add(const char *purpose, const char *kind, const char *arg)
{
	if (geteuid() != 0)
		return -EPERM;
	if (undo_kind(kind) < 0 || !arg_ok(kind, arg))
		return -EINVAL;
	if (u.n == UNDO_MAX)
		return -ENOSPC;
	int r = undo_open();
	if (r)
		return r;
	snprintf(u.purpose, sizeof(u.purpose), "%s", purpose);
	snprintf(u.kind[u.n], sizeof(u.kind[0]), "%s", kind);
	snprintf(u.arg[u.n], sizeof(u.arg[0]), "%s", arg);
	u.n++;
	r = undo_save();
	if (r)
		u.n--;
	return r;
}

void guard_undo_done(const char *kind, const char *arg)
{
	for (int i = 0; i < u.n; i++) {
		if (strcmp(u.kind[i], kind) || strcmp(u.arg[i], arg))
			continue;
		memmove(u.kind[i], u.kind[i + 1], (size_t)(u.n - i - 1) * sizeof(u.kind[0]));
		memmove(u.arg[i], u.arg[i + 1], (size_t)(u.n - i - 1) * sizeof(u.arg[0]));
		u.n--;
		undo_save();
		return;
	}
}

void guard_undo_drop_signal(void)
{
	if (u.fd < 0)
		return;
	int dfd = gfs_dir(false); /* opened by undo_open(): a cached descriptor by now */
	if (dfd < 0)
		return;
	char name[32] = "undo.", digits[24];
	int k = 0;
	for (long pid = (long)getpid(); pid > 0 && k < (int)sizeof(digits); pid /= 10)
		digits[k++] = (char)('0' + pid % 10);
	size_t at = 5;
	while (k > 0)
		name[at++] = digits[--k];
	name[at] = '\0';
	unlinkat(dfd, name, 0);
	u.n = 0;
}

/* Run the undo lines of TEXT (a dead owner's file at PATH). Returns true if all ran. */
static bool run_undos(char *text, const char *path, FILE *out)
{
	char purpose[64] = "?";
	bool all = true;
	for (char *save = NULL, *l = strtok_r(text, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		if (strncmp(l, "purpose ", 8) == 0) {
			snprintf(purpose, sizeof(purpose), "%s", l + 8);
			continue;
		}
		char *tab = strchr(l, '\t');
		if (strncmp(l, "undo ", 5) || !tab)
			continue;
		*tab = '\0';
		int k = undo_kind(l + 5);
		if (k < 0 || !arg_ok(l + 5, tab + 1)) {
			fprintf(out, "thpctl: %s: refused undo line '%.40s'\n", path, l + 5);
			continue;
		}
		int r = undo_kinds[k].run(tab + 1);
		if (r) {
			all = false;
			fprintf(out,
				"thpctl: could not remove %s %s left by a killed thpctl (%s): %s\n",
				undo_kinds[k].what, tab + 1, purpose, strerror(-r));
		} else {
			fprintf(out, "thpctl: removed %s %s (left by a killed thpctl: %s)\n",
				undo_kinds[k].what, tab + 1, purpose);
		}
	}
	return all;
}

int guard_undo_recover(FILE *out)
{
	int dfd = gfs_dir(false);
	if (dfd < 0)
		return 0;
	int dup_fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = dup_fd < 0 ? NULL : fdopendir(dup_fd);
	if (!d) {
		if (dup_fd >= 0)
			close(dup_fd);
		return 0;
	}
	int done = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		long pid;
		char extra;
		if (sscanf(de->d_name, "undo.%ld%c", &pid, &extra) != 1 || pid <= 0 ||
		    pid == (long)getpid())
			continue;
		bool root = geteuid() == 0;
		int fd = openat(dfd, de->d_name,
				(root ? O_RDWR : O_RDONLY) | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;
		struct stat st;
		char text[UNDO_MAX_BYTES + 1];
		struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
		ssize_t len = -1;
		bool dead = false;
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == 0 &&
		    st.st_size <= UNDO_MAX_BYTES) {
			/* root takes the lock (the owner is dead if it can); others only look */
			dead = root ? fcntl(fd, F_SETLK, &fl) == 0
				    : fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type == F_UNLCK;
			if (dead)
				len = pread(fd, text, UNDO_MAX_BYTES, 0);
		}
		if (len >= 0) {
			text[len] = '\0';
			/* a version-1 file (a thpctl from before the lock) is not locked by a
			 * live owner: its owner pid decides, as it did then */
			long owner = 0;
			if (strncmp(text, "thpctl-undo 1\n", 14) == 0 &&
			    sscanf(text + 14, "owner %ld", &owner) == 1 && owner > 0 &&
			    (kill((pid_t)owner, 0) == 0 || errno == EPERM))
				len = -1;
		}
		if (len < 0) {
			close(fd);
			continue;
		}
		char path[512];
		snprintf(path, sizeof(path), "%s/%s", gfs_dir_path(), de->d_name);
		if (!root) {
			fprintf(out,
				"thpctl: %s holds change(s) left by a killed thpctl: run any thpctl command as root to undo them\n",
				path);
		} else if (run_undos(text, path, out)) {
			unlinkat(dfd, de->d_name, 0);
		}
		close(fd); /* drops our lock on it */
		done++;
	}
	closedir(d);
	return done;
}
