/* SPDX-License-Identifier: MIT */
/*
 * tar.gz bundles through libarchive: a writer for `thpctl capture`, and a
 * guarded extractor for `--sysroot FILE.tar.gz` that writes only regular
 * files and directories, under sanitized relative names, below one
 * directory, within size and count ceilings. No kernel paths here: the
 * caller says what to write and where to extract.
 */
#ifndef THPCTL_UTIL_TARBALL_H
#define THPCTL_UTIL_TARBALL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Turn member name IN into a safe relative path in OUT (N bytes): "./" and
 * "." components and repeated or trailing slashes dropped. Refuses with
 * -EINVAL an absolute name, a ".." component, an empty result, a
 * component over 255 bytes or more than TAR_MAX_DEPTH components;
 * -ENAMETOOLONG when OUT is too small. Control bytes (0x01-0x1f, 0x7f)
 * are kept: the filesystem refuses only '/' and NUL, and every printed
 * name is escaped.
 */
int tar_name_sanitize(const char *in, char *out, size_t n);
#define TAR_MAX_DEPTH 32

/*
 * Whether member name IN names the archive's root itself: "." components and slashes only
 * ("./", ".", "./."; not "/", "", ".."), as `tar -C DIR -c .` writes first. Its directory
 * entry is the extraction root: nothing to make, nothing skipped.
 */
bool tar_name_is_root(const char *in);

struct tarw;

/*
 * Start the gzip-compressed tar (GNU format: names as their bytes, no charset translation)
 * PATH: written to a temporary file beside it (".NAME.XXXXXX", O_EXCL, mode 0600,
 * tarw_temp()) that tarw_close() links to PATH when complete, so PATH is never a partial
 * bundle and nothing is replaced. NULL with *ERR -EEXIST if PATH exists, -ENOTSUP when
 * libarchive cannot be loaded (archive_load.h la_load() says why), or another -errno.
 */
struct tarw *tarw_open(const char *path, int *err);
/* The temporary file W writes (for a signal handler to unlink: async-signal-safe). */
const char *tarw_temp(const struct tarw *w);
/* Add a regular file NAME (relative) with permission bits MODE and content DATA[LEN]. Returns 0 or -EIO (tarw_error()). */
int tarw_add(struct tarw *w, const char *name, unsigned mode, const void *data, size_t len);
/* The last error of W in words. */
const char *tarw_error(const struct tarw *w);
/*
 * Finish W (flushes gzip, fsync) and give it its name: linked (or renamed with
 * RENAME_NOREPLACE) to PATH, never over a file made there meanwhile. Returns 0, -EIO, or
 * -EEXIST (PATH exists now); the temporary file is removed and W freed either way.
 */
int tarw_close(struct tarw *w);
/* Drop W: its temporary file is removed, PATH never made. W is freed. */
void tarw_abort(struct tarw *w);

/* Ceilings of tarx_extract(). */
struct tarx_limits {
	uint64_t max_member;  /* bytes of one member's content */
	uint64_t max_total;   /* bytes of all content together (and of the tar stream) */
	uint64_t max_members; /* entries of any kind */
	uint64_t keep_free;   /* bytes that must stay free on the target file system */
};
/* 256 MiB per member, 2 GiB in all, 1 048 576 members, 64 MiB left free. */
extern const struct tarx_limits tarx_default_limits;

struct tarx_stats {
	uint64_t files, dirs, skipped, bytes;
};

/*
 * Extract the tar.gz (or plain tar) ARCHIVE below the directory DIRFD.
 * Regular files become files (mode & 0777, at least owner-readable; created
 * with O_EXCL, never through a symlink), directories 0700; members that are
 * symlinks, hard links, devices, FIFOs or sockets, names tar_name_sanitize()
 * refuses, and duplicates are skipped, each reported through WARN(CTX,
 * name, why). Returns 0, or -errno with a sentence in ERR (ERRN bytes):
 * -EINVAL a corrupt or truncated archive, -EFBIG a member or the total over
 * LIM, -E2BIG more than max_members entries, -ENOSPC less than keep_free
 * left, or the errno of a write. Partial output stays for the caller to
 * remove (tree_remove_at()).
 */
int tarx_extract(const char *archive, int dirfd, const struct tarx_limits *lim,
		 void (*warn)(void *ctx, const char *name, const char *why), void *ctx,
		 struct tarx_stats *st, char *err, size_t errn);

/*
 * Remove the directory PATH and everything below it (at most 64 levels),
 * without following symlinks. Only system calls on a stack buffer, so it may
 * run in a signal handler. Returns 0 or -errno of the first failure.
 */
int tree_remove(const char *path);

#endif
