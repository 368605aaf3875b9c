/* SPDX-License-Identifier: MIT */
/*
 * Files kept open across samples and re-read with pread() at offset 0, for
 * commands that read the same files again and again (watch, exporter).
 *
 * An open + read + read + close of a sysfs attribute costs ~8 us; a pread of
 * an open one ~1 us (measured on the 6.18 x86-64 guest). sysfs attributes and
 * seq_file-backed procfs files regenerate their content on a read at offset
 * 0, as procps top relies on for /proc/stat and /proc/meminfo. A cached
 * /proc/PID/... file is bound to its process: once that exits, reads fail
 * with ESRCH (the entry is dropped), so a reused pid never reads the old
 * process's data.
 *
 * Cost: every open file keeps a struct file and, after its first read, a
 * seq_file page in the kernel, so the number of entries is capped.
 */
#ifndef THPCTL_FDCACHE_H
#define THPCTL_FDCACHE_H

#include <stdbool.h>
#include <stddef.h>

struct sysroot;
struct buf;

struct fdc_ent;

/* What the cache does with a path. */
enum fdc_mode {
	FDC_NO,	    /* not cached */
	FDC_MULTI,  /* cached; read until EOF (procfs files of many records: vmstat) */
	FDC_SINGLE, /* cached; one record generated at once (a sysfs attribute, statm,
		     * stat): a short read ending in a newline is the whole file */
	FDC_STATIC, /* FDC_SINGLE, and a file missing once is missing until fdcache_free:
		     * attributes made once at boot (transparent_hugepage/: hugepages-8kB
		     * has no "enabled", and an open that fails each scrape costs a path walk) */
};

struct sr_dirlist;
struct fdc_dir;

struct fdcache {
	struct fdc_ent *tab;			/* open addressing, size a power of two */
	size_t size, used;			/* slots, slots in use (live or dead) */
	size_t max;				/* most open files (default FDCACHE_DEFAULT_MAX) */
	size_t open;				/* open files now */
	unsigned gen;				/* bumped by fdcache_sweep() */
	enum fdc_mode (*mode)(const char *rel); /* how to treat a path relative to the sysroot */
	struct fdc_dir *dirs;			/* directory listings kept (fdcache_listdir) */
	size_t ndirs;
};

#define FDCACHE_DEFAULT_MAX 1024

/* An empty cache of at most MAX files (0: default); MODE decides per path. */
void fdcache_init(struct fdcache *c, size_t max, enum fdc_mode (*mode)(const char *rel));
/* Close every file and free the table. */
void fdcache_free(struct fdcache *c);

/*
 * Read REL through the cache into B (like sysroot_read). Returns 0, -errno,
 * or -EOPNOTSUPP when REL is not cached (FDC_NO, the cache is full, or
 * out of file descriptors): the caller then reads it the usual way.
 */
int fdcache_read(struct fdcache *c, const struct sysroot *sr, const char *rel, struct buf *b);

/*
 * The entries of directory REL, listed once and then kept (L->kept) until
 * fdcache_free: only for a directory whose path the mode keeps open as
 * FDC_SINGLE (sysfs), at most FDCACHE_MAX_DIRS of them. Returns 0, -errno,
 * or -EOPNOTSUPP when REL is not kept: the caller lists it the usual way.
 */
int fdcache_listdir(struct fdcache *c, const struct sysroot *sr, const char *rel,
		    struct sr_dirlist *l);
#define FDCACHE_MAX_DIRS 64

/* Close the files not read since the last sweep (exited processes, gone files). */
void fdcache_sweep(struct fdcache *c);

#endif
