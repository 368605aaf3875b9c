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
#include <sys/stat.h>

#include "../util/buf.h"

/* Paths relative to the sysroot (never absolute outside sysroot.c). */
#define SR_PROC "proc"
/* The same, as a host path, for words shown to people (render/). */
#define PATH_PROC "/proc"
#define SR_THP "sys/kernel/mm/transparent_hugepage"
#define PATH_THP "/" SR_THP /* as a host path, for words shown to people */
#define SR_THP_RHEL6 "sys/kernel/mm/redhat_transparent_hugepage" /* RHEL 6 (2.6.32) */
#define SR_HUGETLB "sys/kernel/mm/hugepages"
#define SR_NODES "sys/devices/system/node"
#define PATH_HUGETLB "/" SR_HUGETLB /* host paths, for words shown to people */
#define PATH_NODES "/" SR_NODES
#define SR_PASSWD "etc/passwd"
#define SR_CGROUP "sys/fs/cgroup"
#define SR_TRACEFS "sys/kernel/tracing"
#define SR_DEBUG_TRACING "sys/kernel/debug/tracing"
#define SR_MOUNTS "proc/self/mounts"

/*
 * The most bytes sysroot_read() takes from one file of a kind it has no
 * ceiling for (proc/PID/maps, dpkg files): 256 MiB. Known kinds have their
 * own (sysroot_read_max()).
 */
#define SYSROOT_READ_MAX (256u << 20)
/* Ceilings by kind: a sysfs knob or counter, a small proc/PID file, a host counter file. */
#define SR_MAX_KNOB (4u << 10)
#define SR_MAX_PROC_SMALL (16u << 10)
#define SR_MAX_COUNTERS (64u << 10)
/* The longest line sysroot_read_chunks() takes (a smaps header: PATH_MAX escaped, < 17 KiB). */
#define SR_MAX_LINE (64u << 10)

struct fdcache;

/* Members of a --sysroot bundle that extraction skipped: the tree is partial. Data only:
 * render/skips.c words them (model/skips.h carries them there). */
#define SKIPS_MAX 4
struct sr_skips {
	unsigned long n;	    /* all of them */
	char names[SKIPS_MAX][128]; /* the first ones (min(n, SKIPS_MAX)), escaped (util/esc.h) */
};

struct sysroot {
	int dirfd;	       /* O_DIRECTORY handle of the root */
	bool live;	       /* the root is "/" of the running system */
	char path[PATH_MAX];   /* as given, for messages */
	struct fdcache *cache; /* NULL, or files kept open by watch/exporter (fdcache.h) */
	bool rhel_thp;	       /* RHEL 6: THP under sys/kernel/mm/redhat_transparent_hugepage */
	bool procfs;	       /* live, and proc/ is a procfs mount (statfs) */
	bool proc_pid;	       /* a proc/PID handle of a live procfs (proc_read's pass): its
				* files are the kernel's own, opened without the regular-file
				* check, and status/stat/statm/smaps_rollup are one record each
				* (a short read ending in a newline is the whole file) */
	struct sr_skips skips; /* a bundle's members not extracted (cmd/bundle.c) */
};

/* Open DIR (NULL means "/") as the sysroot. Returns 0 or -errno. */
int sysroot_open(struct sysroot *sr, const char *dir);
void sysroot_close(struct sysroot *sr);

/*
 * The ceiling in bytes of a whole-file read of REL, by its kind: knobs and
 * counters under sys/kernel/mm, node hugepages and proc/sys 4 KiB;
 * proc/{vmstat,meminfo,buddyinfo} (and node meminfo) 64 KiB; proc/PID/{status,
 * stat,statm,smaps_rollup} 16 KiB; cmdline/environ 8 MiB; else up to
 * SYSROOT_READ_MAX.
 */
size_t sysroot_read_max(const char *rel);

/*
 * Open REL for a whole-file read (open_regular_at(), util/fileio.h): never
 * blocks on a FIFO, refuses what is not a regular file, and does not follow a
 * symlink in the last component of a kernel path (everything but etc/, var/,
 * boot/, usr/ and the live proc/mounts link). Returns an fd or -errno
 * (-ENOENT, -ELOOP, -EISDIR, -ERR_NOTREG, ...).
 */
int sysroot_open_file(const struct sysroot *sr, const char *rel);

/*
 * Read the whole file at REL (relative, e.g. "proc/vmstat") into B, replacing
 * its content, opened by sysroot_open_file(). Returns 0 or -errno (-ENOENT
 * missing, -EACCES, -ESRCH for a process that exited, -EFBIG above
 * sysroot_read_max(REL), -ELOOP, -EISDIR, -ERR_NOTREG). With a cache set,
 * the paths it takes are re-read from files kept open.
 */
int sysroot_read(const struct sysroot *sr, const char *rel, struct buf *b);

/*
 * Read REL (opened by sysroot_open_file()) in chunks of whole lines, calling
 * FN(CTX, text, len) for each; the last chunk may lack a final newline.
 * Memory stays bounded by SR_MAX_LINE plus 64 KiB, whatever the file's size:
 * a longer line stops the read with -EFBIG. Returns 0, -errno of the open or
 * read, or FN's non-zero value.
 */
int sysroot_read_chunks(const struct sysroot *sr, const char *rel, struct buf *b,
			int (*fn)(void *ctx, const char *text, size_t len), void *ctx);

/* Like sysroot_read, but formats REL with printf-style arguments. */
int sysroot_readf(const struct sysroot *sr, struct buf *b, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * openat() relative to the sysroot, O_NONBLOCK added (a FIFO never blocks). On
 * the live root links are followed as the system does (proc/self); in a
 * recorded tree REL is resolved below its root only (openat_beneath(),
 * util/fileio.h): a symlink in a kernel path, a directory one too, is
 * refused with -ELOOP, and a system file (etc/, var/, boot/, usr/) follows
 * only links that stay in the tree. Returns an fd or -errno.
 */
int sysroot_openat(const struct sysroot *sr, const char *rel, int flags);

/*
 * fstatat() of REL in the sysroot (lstat with NOFOLLOW), resolved as
 * sysroot_openat() does: in a recorded tree below its root only. 0 or -errno.
 */
int sysroot_stat(const struct sysroot *sr, const char *rel, struct stat *st, bool nofollow);

/* opendir() relative to the sysroot; NULL with errno set on failure. */
DIR *sysroot_opendir(const struct sysroot *sr, const char *rel);

/* A directory's entries, "." and ".." left out (sysroot_listdir). */
struct sr_dirlist {
	char *names;	      /* N names, each NUL-terminated, one after the other */
	unsigned char *types; /* the d_type of each; DT_UNKNOWN where the filesystem does not say */
	size_t n;
	bool kept; /* owned by the sysroot's fdcache (do not change it); freeing is a no-op */
};

/*
 * The entries of the directory REL into L. With SR->cache, a directory the
 * cache keeps open files of (a sysfs one: the kernel makes them, at boot for
 * transparent_hugepage/) is listed once and kept for the cache's life: watch
 * and the exporter read it again and again. Returns 0 or -errno (-ENOMEM).
 * Free with sysroot_dirlist_free().
 */
int sysroot_listdir(const struct sysroot *sr, const char *rel, struct sr_dirlist *l);
/* The same, read now whatever SR->cache keeps (fdcache.c lists through it). */
int sysroot_listdir_fresh(const struct sysroot *sr, const char *rel, struct sr_dirlist *l);
void sysroot_dirlist_free(struct sr_dirlist *l);

/* 0 if REL exists, else -errno. */
int sysroot_exists(const struct sysroot *sr, const char *rel);

/*
 * Whether the file REL can be written here, without writing: 0 if yes,
 * -EROFS (read-only mount, e.g. a container's /sys), -EACCES (not root or mode
 * without write bits), -ENOENT. On a recorded tree the recorded mode bits and
 * the "ro" flag of the /sys line in proc/mounts decide; a tree without that
 * line (no proc/mounts recorded: a sos report) gives -ENODATA, not recorded.
 */
int sysroot_writable(const struct sysroot *sr, const char *rel);

#endif
