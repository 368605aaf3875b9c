/* SPDX-License-Identifier: MIT */
/*
 * capture: read every file thpctl reads from a sysroot (the live host or a
 * recorded tree) and hand each to a sink, with the same relative paths, so
 * that the files replay through `--sysroot` like a fixture tree. The walk
 * reads; the sink (cmd/capture.c: a tar.gz) writes.
 */
#ifndef THPCTL_CAPTURE_H
#define THPCTL_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../util/buf.h"
#include "sysroot.h"

/* The manifest at the root of a capture: what was recorded whole, absent, unreadable. */
#define SR_CAPTURE_MANIFEST "capture/manifest"

struct capture_sink {
	void *ctx;
	/* a file: REL (relative), permission bits, content. Non-zero stops the capture. */
	int (*file)(void *ctx, const char *rel, unsigned mode, const char *data, size_t len);
	/* a file or process not recorded, ERR -errno (-ESRCH: the process exited) */
	void (*skipped)(void *ctx, const char *rel, int err);
};

struct capture_opts {
	const pid_t *pids; /* processes to record (status, stat, smaps, ...) */
	size_t npids;
	bool all;	  /* every process under proc/ instead */
	pid_t khugepaged; /* > 0: record its stat too (the khugepaged CPU line) */
};

struct capture_stats {
	size_t files, skipped, procs, procs_gone;
	size_t kthreads; /* kernel threads of the memory cgroups whose stat alone was recorded */
	uint64_t bytes;
};

/*
 * Record SR's host files (see the README's capture section for the list)
 * and then SR_CAPTURE_MANIFEST through SINK. Returns 0, -ENOMEM, or the
 * sink's non-zero value; unreadable files are reported to sink->skipped
 * and listed in the manifest, never fatal.
 */
int capture_host(const struct sysroot *sr, const struct capture_opts *o,
		 const struct capture_sink *sink, struct capture_stats *st);

/*
 * Filters applied to what is recorded (pure, unit-tested). Each replaces
 * OUT's content and returns 0 or -ENOMEM.
 *
 * environ (NUL-separated NAME=VALUE): the values that bear on THP are kept
 * (MALLOC_CONF and its jemalloc spellings, GLIBC_TUNABLES, MIMALLOC_*,
 * MALLOC_ARENA_MAX and glibc's MALLOC_*_ variables; the disablethp= item of
 * GODEBUG; the HugePage/LargePage -XX: flags of JAVA_TOOL_OPTIONS,
 * JDK_JAVA_OPTIONS, _JAVA_OPTIONS); every other value becomes "<redacted>".
 */
/* The file of a bundle that says which thpctl wrote it (cmd/capture.c writes it). */
#define CAPTURE_VERSION_FILE "capture/version"

/* Whether SR is a tree thpctl capture wrote (its CAPTURE_VERSION_FILE is there): such a
 * tree holds the processes it was told to record only. */
bool capture_tree(const struct sysroot *sr);

int capture_filter_environ(const char *in, size_t len, struct buf *out);
/* cmdline of the kernel: what follows " -- " (init's arguments) dropped. */
int capture_filter_cmdline(const char *in, size_t len, struct buf *out);
/* mounts: "/", /proc, /sys, sysfs and hugetlbfs mounts, tmpfs mounts with huge=. */
int capture_filter_mounts(const char *in, size_t len, struct buf *out);

/* What a capture's manifest says about one path. */
enum capture_state {
	CAP_NOT_LISTED = 0, /* not in the manifest (a file recorded, or never tried) */
	CAP_COMPLETE,	    /* a directory recorded with every readable file */
	CAP_PARTIAL,	    /* a directory recorded, some files unreadable */
	CAP_ABSENT,	    /* absent on the host */
	CAP_WRITEONLY,	    /* a write-only file (no read bits) */
	CAP_UNREADABLE,	    /* present but could not be read (permission, error) */
	CAP_NOMM,	    /* a kernel thread's smaps_rollup */
	CAP_GONE,	    /* a process that exited during the capture */
};

/* The state of PATH (relative, exact) in manifest TEXT[LEN]; pure. */
enum capture_state capture_manifest_state(const char *text, size_t len, const char *path);

#endif
