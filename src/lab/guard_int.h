/* SPDX-License-Identifier: MIT */
/* Internal to lab/guard*.c: the journal directory, the lock, safe opening. */
#ifndef THPCTL_LAB_GUARD_INT_H
#define THPCTL_LAB_GUARD_INT_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * The journal directory's fd, opened and checked once: a real directory (not
 * a symlink) owned by root and writable by nobody else (mode 0700 for a test
 * directory). CREATE (root only): make it when missing. Returns the fd, or
 * -errno (-ENOENT: none yet; -EPERM: it failed a check, said once on stderr).
 */
int gfs_dir(bool create);
const char *gfs_dir_path(void);

/*
 * Read DIRFD/NAME without following a symlink or blocking on a FIFO: a
 * regular file owned by root of at most MAX bytes, into OUT (N > MAX bytes,
 * NUL-terminated). Returns the length, -ENOENT, -EINVAL (not a regular file
 * or not root's), -EFBIG (too large) or -errno.
 */
ssize_t gfs_read_root_file(int dirfd, const char *name, char *out, size_t n, size_t max);

/* The purpose a command's recovery check holds the lock under (briefly). */
#define GFS_RECOVERY "recovery"

/* Take the lock (WAIT: block until free). Returns 0, -EBUSY (guard_holder() names who) or -errno. */
int gfs_lock_take(bool wait, const char *purpose);
/* Whether another process holds the lock (then guard_holder() names it). */
bool gfs_lock_holder(void);
/* 0 when the lock is free, -EBUSY when held, -errno when it cannot be checked. */
int gfs_lock_check(void);
void gfs_lock_drop(void);

/* O_PATH fd of "/" (kept), or -errno. */
int gfs_root(void);

/*
 * Open REL beneath ROOTFD one component at a time, following no symlink and
 * no "..", never blocking. Async-signal-safe. Returns an fd or -errno.
 */
int gfs_open_beneath(int rootfd, const char *rel, int flags);

struct journal_entry;
/*
 * Write E's old value back beneath ROOTFD and read it back. Async-signal-safe.
 * Returns 0 when the file now holds it, else the write's -errno or -EIO.
 */
int gfs_restore_one(int rootfd, const struct journal_entry *e);

#endif
