/* SPDX-License-Identifier: MIT */
/*
 * Every memory cgroup of the host and its THP figures: memory.stat (v2
 * anon, anon_thp, file_thp, shmem_thp in bytes, thp_fault_alloc and
 * thp_collapse_alloc events on 6.x; v1 total_rss and total_rss_huge in bytes),
 * memory.current / memory.max (v1 memory.usage_in_bytes /
 * memory.limit_in_bytes) and the PIDs of cgroup.procs. The v2 figures of a
 * cgroup include its descendants; v1's total_* ones too.
 */
#ifndef THPCTL_CGROUP_STAT_H
#define THPCTL_CGROUP_STAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "parse.h"
#include "sysroot.h"

/* The memory.stat fields read here. */
enum memstat_field {
	MS_ANON,	       /* bytes: v2 anon, v1 total_rss */
	MS_ANON_THP,	       /* bytes: v2 anon_thp, v1 total_rss_huge */
	MS_FILE_THP,	       /* bytes: v2 file_thp (none in v1) */
	MS_SHMEM_THP,	       /* bytes: v2 shmem_thp (none in v1) */
	MS_THP_FAULT_ALLOC,    /* events: v2 thp_fault_alloc (5.4+; none in v1) */
	MS_THP_COLLAPSE_ALLOC, /* events: v2 thp_collapse_alloc (5.4+; none in v1) */
	MS_NFIELDS
};

struct memstat {
	struct opt_u64 f[MS_NFIELDS]; /* absent: the kernel does not print it */
	int bad;		      /* malformed lines (no number, overflow) skipped */
};

/*
 * Parse memory.stat TEXT of a cgroup VERSION (1 or 2) into OUT. Lines are
 * "key value"; unknown keys are ignored, a known key with a bad value, or
 * printed twice, stays absent and counts in OUT->bad. Returns 0, or -EINVAL when no line parsed.
 */
int memstat_parse(const char *text, size_t len, int version, struct memstat *out);

/* Longest cgroup path kept (relative to the hierarchy root); deeper ones are skipped. */
#define CGS_PATH_LEN 512
/* At most this many cgroups are read; the rest are counted in cg_tree.skipped. */
#define CGS_MAX_NODES 4096

struct cg_node {
	char path[CGS_PATH_LEN]; /* "/" for the root, else "/a/b" */
	int depth;		 /* 0 for the root */
	struct memstat ms;
	int stat_err; /* memory.stat: 0 or -errno (-EINVAL malformed) */
	struct opt_u64 current;
	int current_err;  /* memory.current (v1 memory.usage_in_bytes): 0 or -errno */
	bool limit_known; /* memory.max (v1 memory.limit_in_bytes) read and parsed */
	bool limited;	  /* a limit is set ("max", v1 >= 2^62: none) */
	uint64_t limit;	  /* bytes, when limited */
	int limit_err;	  /* 0 or -errno */
	pid_t *pids;	  /* cgroup.procs of this cgroup only (malloc'd) */
	int npids;
	int procs_err; /* cgroup.procs: 0 or -errno */
	int procs_bad; /* cgroup.procs lines that are no PID: those processes are not counted */
};

struct cg_tree {
	int version;	       /* 2, 1, or 0: no memory controller mounted */
	char root[64];	       /* sysroot-relative hierarchy root, "sys/fs/cgroup/memory" */
	struct cg_node *nodes; /* pre-order: a node's descendants follow it, deeper */
	size_t n, cap;
	size_t skipped;	       /* cgroups not read: over CGS_MAX_NODES, path too long, too deep */
	struct sr_skips skips; /* a bundle's members not extracted: the tree may lack some */
};

/*
 * Find the memory hierarchy (v2 sys/fs/cgroup or sys/fs/cgroup/unified with
 * "memory" in cgroup.controllers, else v1 sys/fs/cgroup/memory) and read
 * every cgroup in it into T (zeroed by the caller; free with cg_tree_free).
 * Per-file errors are kept in each node; the v2 root has no memory.max (it
 * cannot be limited): it reads as not limited. Returns 0 (T->version 0 when
 * no memory controller is found) or -ENOMEM.
 */
int cg_tree_read(const struct sysroot *sr, struct cg_tree *t);

void cg_tree_free(struct cg_tree *t);

/* The processes of one cgroup (its own cgroup.procs, not its descendants'). */
struct cg_proc_count {
	int n;	     /* processes listed, kernel threads left out */
	int thp_off; /* of them, THP_enabled 0 (prctl PR_SET_THP_DISABLE) */
	int unknown; /* of them, status unreadable or without THP_enabled (< 5.0), or not recorded */
	int unrecorded; /* of unknown, those with no proc/PID in a recorded tree (a capture records
			 * its processes and the kernel threads' stat of cgroup.procs) */
};

/* One process's contribution, kept between counts (cg_tree_count_procs). */
struct cg_pid_fact {
	pid_t pid;
	signed char fact; /* internal to cgroup_stat.c */
};

/* What the last count learned of each process, by pid (sorted). Zero it before use. */
struct cg_pid_cache {
	struct cg_pid_fact *v;
	size_t n;
};

void cg_pid_cache_free(struct cg_pid_cache *cache);

/*
 * Count each node's own processes of T into OUT (T->n entries, zeroed by the
 * caller): proc/PID/status (Kthread: a kernel thread has no mm and no THP of
 * its own; THP_enabled), and stat only where status does not say whether it
 * is a kernel thread (before 6.x; a recorded tree keeps only a kernel
 * thread's stat, thpctl capture the stat of each kernel thread of the memory
 * cgroups). A process that exited since cgroup.procs was read (live) is not
 * counted; one with no proc/PID in a recorded tree is unknown and unrecorded. CACHE (NULL: none) keeps what was read by pid: a later
 * count reads only the processes it has not seen, unless REFRESH (then every
 * process is read again); a pid reused meanwhile or a prctl since then is
 * seen at the next refresh. Returns 0 or -ENOMEM.
 */
int cg_tree_count_procs(const struct sysroot *sr, const struct cg_tree *t,
			struct cg_proc_count *out, struct cg_pid_cache *cache, bool refresh);

/*
 * The memory.stat of the v2 cgroup at PATH ("/" or "/a/b", as in proc/PID/cgroup, under
 * sys/fs/cgroup) into OUT (its THP events: thp_fault_alloc, thp_collapse_alloc, 5.4+; the
 * cgroup's and its descendants'). Returns 0, or -errno (-ENOENT: no such file: not a v2
 * memory cgroup here; -EINVAL: no line parsed); OUT's fields absent when not printed.
 */
int cgroup_v2_memstat(const struct sysroot *sr, const char *path, struct memstat *out);

/*
 * The host-wide vmstat counter thp_fault_fallback_charge (5.7+: THP faults
 * that fell back because the memory cgroup charge failed, all cgroups) into
 * OUT, absent when proc/vmstat is unreadable or lacks it. Returns 0 or -errno.
 */
int cg_fallback_charge(const struct sysroot *sr, struct opt_u64 *out);

/*
 * Whether node N lost something to damage: a file present but unreadable or malformed
 * (memory.stat, memory.current, the limit, cgroup.procs; a file absent, -ENOENT, is a
 * cgroup without the memory controller, not damage), a memory.stat line skipped, or a
 * cgroup.procs line that is no PID. Its cells then show '-' and the result is partial.
 */
bool cg_node_damaged(const struct cg_node *n);

#endif
