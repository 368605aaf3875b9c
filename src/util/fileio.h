/* SPDX-License-Identifier: MIT */
/*
 * File I/O loops written once: read a whole file under a size limit, pread a
 * range whole, write a buffer whole, replace a file atomically. Every
 * function retries EINTR and short transfers and returns 0 (or a count) or
 * -errno; none prints or exits.
 */
#ifndef THPCTL_UTIL_FILEIO_H
#define THPCTL_UTIL_FILEIO_H

#include <stdint.h>
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

/*
 * Read the whole file PATH (relative to DIRFD, or AT_FDCWD) into B, at most
 * MAX bytes. Returns 0 or -errno (-ENOENT, -EACCES, -EFBIG above MAX, ...).
 */
int read_file_at(int dirfd, const char *path, struct buf *b, size_t max);

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
 * path too long for PATH_MAX); on error PATH is untouched and the temporary
 * file removed.
 */
int write_file_atomic(const char *path, const void *data, size_t len, mode_t mode);

#endif
