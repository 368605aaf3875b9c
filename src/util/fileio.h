/* SPDX-License-Identifier: MIT */
/*
 * File I/O loops written once: read a whole file under a size limit, pread a
 * range whole, write a buffer whole, replace a file atomically. Every
 * function retries EINTR and short transfers and returns 0 (or a count) or
 * -errno; none prints or exits.
 */
#ifndef THPCTL_UTIL_FILEIO_H
#define THPCTL_UTIL_FILEIO_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "buf.h"

/* Flags of buf_read_fd(). */
enum {
	READ_PREAD = 1 << 0,	  /* read with pread() from offset 0, not from the fd's offset
			      * (a file kept open and re-read: sysfs, seq_file procfs) */
	READ_ONE_RECORD = 1 << 1, /* a short read ending in '\n' is the whole file (a
				   * sysfs attribute, statm): no second call for EOF */
};

/*
 * Read FD to its end into B, replacing B's content; B is NUL-terminated
 * whenever it has memory, on errors too. Reads in chunks of 64 KiB (procfs
 * generates text per read call). Returns 0, -ENOMEM, -EFBIG once the
 * content passes MAX bytes, or the -errno of read().
 */
int buf_read_fd(struct buf *b, int fd, size_t max, unsigned flags);

/* One read() of at most N bytes into P, retried on EINTR: the count, 0 at the end, or -errno. */
ssize_t read_retry(int fd, void *p, size_t n);

/*
 * -ERR_NOTREG: a path that should name a regular file names a FIFO, a device
 * or a socket. Linux has no EFTYPE; ENOSTR ("not a stream", a STREAMS errno
 * that open/read on Linux never return) stands for it. Say it in words with
 * read_err_str(), never strerror().
 */
#define ERR_NOTREG ENOSTR

/* Flags of open_regular_at(). */
enum {
	OPEN_NOFOLLOW = 1 << 0, /* a symlink in the last component is refused (-ELOOP) */
	OPEN_PRECHECK = 1 << 1, /* fstatat() before open(): a device or FIFO is never opened
				 * (a tree on disk; the live /proc and /sys have none) */
	OPEN_BENEATH = 1 << 2,	/* resolve PATH below DIRFD only (openat_beneath()): no
				 * symlink at all with OPEN_NOFOLLOW, else none leading out */
};

/*
 * openat() of PATH below DIRFD, never outside it (a recorded tree: a
 * directory symlink such as proc/PID -> / must not lead out of it). Where
 * the kernel has openat2() (5.6), with RESOLVE_BENEATH, plus
 * RESOLVE_NO_SYMLINKS unless LINKS (then symlinks that stay below DIRFD are
 * followed); without it (ENOSYS, or EPERM from a seccomp filter), the walk
 * of openat_walk(), which follows no symlink even with LINKS. OFLAGS get
 * O_CLOEXEC. Returns an fd or -errno: -ELOOP for a symlink refused or a
 * path leading out ("..", an absolute link), -ENOENT, -ENOTDIR, ...
 */
int openat_beneath(int dirfd, const char *path, int oflags, bool links);

/*
 * The fallback of openat_beneath(): PATH walked one component at a time from
 * DIRFD, each directory opened O_PATH | O_NOFOLLOW, the last with OFLAGS |
 * O_NOFOLLOW (with O_PATH, a symlink there is opened itself: fstat says so).
 * ".." is refused. Returns an fd or -errno (-ELOOP for a symlink or "..").
 */
int openat_walk(int dirfd, const char *path, int oflags);

/*
 * Open PATH (relative to DIRFD, or AT_FDCWD) read-only for a whole-file read:
 * O_NONBLOCK (opening a FIFO never waits), O_NOCTTY, O_CLOEXEC, O_NOFOLLOW
 * with OPEN_NOFOLLOW; then fstat() and refuse anything but a regular file
 * (procfs and sysfs files are regular). Returns an fd, or -errno: -ENOENT,
 * -EACCES, -ELOOP (a symlink with OPEN_NOFOLLOW, or a symlink loop), -EISDIR
 * (a directory), -ERR_NOTREG (a FIFO, device or socket).
 */
int open_regular_at(int dirfd, const char *path, unsigned flags);

/*
 * The error of a file read in a few words for people and JSON: "missing",
 * "too large" (-EFBIG), "not a regular file", "a directory", "a symlink or
 * a symlink loop", "malformed" (-EINVAL), else strerror(). ERR is -errno.
 */
const char *read_err_str(int err);

/* read_err_str for a path the user named ("cannot read PATH: no such file or directory"):
 * -ENOENT is said as strerror does, not "missing" (a kernel file's word). Static text. */
const char *path_err_str(int err);

/*
 * Read the whole file PATH (relative to DIRFD, or AT_FDCWD) into B, at most
 * MAX bytes, opened by open_regular_at(DIRFD, PATH, 0). Returns 0 or -errno
 * (-ENOENT, -EACCES, -EFBIG above MAX, -EISDIR, -ERR_NOTREG, ...).
 */
int read_file_at(int dirfd, const char *path, struct buf *b, size_t max);

/*
 * Whether the file PATH (relative to DIRFD, or AT_FDCWD; opened by
 * open_regular_at()) holds the NLEN bytes of NEEDLE anywhere in its first
 * MAX bytes, read in bounded chunks, into *FOUND (a probe of a library's
 * strings: mimalloc's option names). Returns 0, or -errno; -EFBIG when the
 * file is longer than MAX and NEEDLE was not in those bytes (not known).
 */
int file_has_bytes(int dirfd, const char *path, const void *needle, size_t nlen, uint64_t max,
		   bool *found);

/*
 * pread() LEN bytes at byte offset OFF into P, going on after short reads.
 * Returns the number of bytes read, less than LEN only at end of file, or
 * -errno.
 */
ssize_t pread_full(int fd, void *p, size_t len, uint64_t off);

/* pread_full() that wants all LEN bytes: 0, -errno, or -EIO at an early end of file. */
int pread_exact(int fd, void *p, size_t len, uint64_t off);

/* write() all LEN bytes of P. Returns 0 or -errno. */
int write_all(int fd, const void *p, size_t len);

/*
 * Replace the file PATH with LEN bytes of DATA so that a reader sees the old
 * file or the new one, never a part: DATA goes to a temporary file made by
 * mkstemp() in PATH's directory (".NAME.XXXXXX"), which gets mode MODE, is
 * fsync'd and renamed over PATH. Returns 0 or -errno (-ENAMETOOLONG for a
 * path too long for PATH_MAX; -ERR_NOTREG when PATH is a device, FIFO or
 * socket, -EISDIR a directory: never replaced; a symlink is, as rename does);
 * on error PATH is untouched and the temporary file removed.
 */
int write_file_atomic(const char *path, const void *data, size_t len, mode_t mode);

/*
 * write_file_atomic() over the file PATH, keeping the file it replaces as KEEP (a second
 * name, link()ed before the write and removed again when the write fails; a symlink PATH
 * is kept as the symlink). Returns 0; -EEXIST when KEEP exists and -ENOENT when PATH does
 * not (nothing changed), or the -errno of link() (-EPERM: a file system without hard
 * links) or write_file_atomic().
 */
int replace_file_keep(const char *path, const char *keep, const void *data, size_t len,
		      mode_t mode);

/*
 * Whether only root can change what the absolute PATH names: "/", every directory below
 * it on the way and PATH itself owned by uid 0, not writable by group or others (a sticky
 * bit is no exception) and not a symlink (lstat(), no link followed). Returns 0; -EPERM
 * for the first one that is not, its path in BAD (N bytes) and its lstat() in ST; -EINVAL
 * for a relative PATH, -ENAMETOOLONG, or lstat()'s -errno (BAD names the path then too).
 */
int path_root_only(const char *path, char *bad, size_t n, struct stat *st);

/*
 * Create the directory PATH with exactly MODE, whatever the umask: mkdir(), then fchmod() of
 * the directory just made (opened without following a link). A directory that already
 * existed is left as it is: -EEXIST. Returns 0 or -errno (the directory stays when only the
 * fchmod failed).
 */
int mkdir_mode(const char *path, mode_t mode);

#endif
