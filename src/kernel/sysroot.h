/* SPDX-License-Identifier: MIT */
/*
 * sysroot: the one place that knows where /proc and /sys live. Every kernel
 * file is opened relative to one directory handle, so `--sysroot DIR` can
 * replay a tree recorded on another host exactly like the live one.
 */
#ifndef THPCTL_SYSROOT_H
#define THPCTL_SYSROOT_H

#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "../util/buf.h"

/* Paths relative to the sysroot (never absolute outside sysroot.c). */
#define SR_PROC "proc"
/* The same, as a host path, for words shown to people (render/). */
#define PATH_PROC "/proc"
#define SR_THP "sys/kernel/mm/transparent_hugepage"
#define SR_HUGETLB "sys/kernel/mm/hugepages"
#define SR_NODES "sys/devices/system/node"
#define SR_PASSWD "etc/passwd"
#define SR_CGROUP "sys/fs/cgroup"
#define SR_TRACEFS "sys/kernel/tracing"
#define SR_DEBUG_TRACING "sys/kernel/debug/tracing"
#define SR_MOUNTS "proc/self/mounts"

/* The most bytes sysroot_read() takes from one file: 256 MiB. */
#define SYSROOT_READ_MAX (256u << 20)

struct fdcache;

struct sysroot {
	int dirfd;	       /* O_DIRECTORY handle of the root */
	bool live;	       /* the root is "/" of the running system */
	char path[PATH_MAX];   /* as given, for messages */
	struct fdcache *cache; /* NULL, or files kept open by watch/exporter (fdcache.h) */
};

/* Open DIR (NULL means "/") as the sysroot. Returns 0 or -errno. */
int sysroot_open(struct sysroot *sr, const char *dir);
void sysroot_close(struct sysroot *sr);

/*
 * Read the whole file at REL (relative, e.g. "proc/vmstat") into B, replacing
 * its content. Returns 0 or -errno (-ENOENT missing, -EACCES, -ESRCH for a
 * process that exited, -EFBIG above 256 MiB). With a cache set, the paths it
 * takes are re-read from files kept open.
 */
int sysroot_read(const struct sysroot *sr, const char *rel, struct buf *b);

/*
 * Read REL in chunks of whole lines, calling FN(CTX, text, len) for each;
 * the last chunk may lack a final newline. Memory stays bounded by the
 * longest line plus 64 KiB, whatever the file's size. Returns 0, -errno of
 * the read, or FN's non-zero value.
 */
int sysroot_read_chunks(const struct sysroot *sr, const char *rel, struct buf *b,
			int (*fn)(void *ctx, const char *text, size_t len), void *ctx);

/* Like sysroot_read, but formats REL with printf-style arguments. */
int sysroot_readf(const struct sysroot *sr, struct buf *b, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* openat() relative to the sysroot. Returns an fd or -errno. */
int sysroot_openat(const struct sysroot *sr, const char *rel, int flags);

/* opendir() relative to the sysroot; NULL with errno set on failure. */
DIR *sysroot_opendir(const struct sysroot *sr, const char *rel);

/* 0 if REL exists, else -errno. */
int sysroot_exists(const struct sysroot *sr, const char *rel);

/*
 * Whether the file REL can be written here, without writing: 0 if yes,
 * -EROFS (read-only mount, e.g. a container's /sys), -EACCES (not root or mode
 * without write bits), -ENOENT. On a recorded tree the recorded mode bits and
 * the "ro" flag of the /sys line in proc/mounts decide.
 */
int sysroot_writable(const struct sysroot *sr, const char *rel);

#endif
