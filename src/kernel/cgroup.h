/* SPDX-License-Identifier: MIT */
/*
 * A process's memory cgroup: /proc/PID/cgroup, then the limit file of that
 * cgroup and its ancestors under sys/fs/cgroup (v2 memory.max, v1
 * memory/memory.limit_in_bytes). The effective limit is the smallest one on
 * the path. A THP fault whose huge page cannot be charged falls back to small
 * pages (vmstat thp_fault_fallback_charge, 5.7+).
 */
#ifndef THPCTL_CGROUP_H
#define THPCTL_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sysroot.h"

#define CG_PATH_LEN 256

#define SR_CGROUP "sys/fs/cgroup"

/* The lines of /proc/PID/cgroup that matter here. */
struct proc_cgroup {
	bool has_v2; /* "0::/path" */
	char v2[CG_PATH_LEN];
	bool has_v1_memory; /* "N:memory:/path" (or a comma list holding memory) */
	char v1_memory[CG_PATH_LEN];
	bool has_v1_systemd; /* "N:name=systemd:/path" */
	char v1_systemd[CG_PATH_LEN];
};

/*
 * Parse /proc/PID/cgroup TEXT. Returns 0, or -EINVAL when no line parsed or a
 * hierarchy (v2, v1 memory, v1 name=systemd) is listed twice (CG then empty).
 */
int proc_cgroup_parse(const char *text, size_t len, struct proc_cgroup *cg);

/*
 * Parse a limit file's content: v2 "max" or bytes, v1 bytes (values of 2^62
 * and more mean "no limit": PAGE_COUNTER_MAX pages). Returns 0 or -EINVAL.
 */
int cgroup_limit_parse(const char *text, size_t len, bool *limited, uint64_t *bytes);

/*
 * The systemd unit a cgroup path belongs to: its last component ending in
 * .service or .scope ("/system.slice/redis-server.service" ->
 * "redis-server.service"). Returns 0 and copies it into OUT, or -ENOENT.
 */
int cgroup_unit(const char *path, char *out, size_t n);

struct cg_limit {
	int version;			   /* 1 or 2; 0 unknown (no memory cgroup found) */
	char path[CG_PATH_LEN];		   /* the process's memory cgroup */
	bool limited;			   /* some cgroup on the path has a limit */
	uint64_t limit_bytes;		   /* the smallest one */
	char limit_file[CG_PATH_LEN + 64]; /* sysroot-relative file that set it */
	bool read_any;			   /* at least one limit file was read */
	/* a limit file on the path could not be read (a v1 cgroup always has one, a v2
	 * cgroup with memory.current has memory.max): the effective limit is unknown,
	 * limited/limit_bytes are only what the readable ones say */
	bool limit_unknown;
	int unknown_err;		     /* its -errno */
	char unknown_file[CG_PATH_LEN + 64]; /* sysroot-relative */
	/* headroom: limit - usage (v1 memory.usage_in_bytes, v2 memory.current), the
	 * smallest over the limited cgroups of the path whose usage was read */
	bool has_headroom;
	bool usage_unknown; /* a limited cgroup's usage file could not be read */
	uint64_t headroom_bytes;
	uint64_t usage_bytes, usage_limit_bytes; /* of the cgroup with the smallest headroom */
	char usage_file[CG_PATH_LEN + 64];	 /* sysroot-relative */
};

/*
 * Find CG's memory controller, its effective limit and headroom into OUT, using
 * B as scratch. Returns 0 (OUT->version 0 when no memory cgroup is mounted or
 * listed; OUT->limit_unknown when a limit file on the path was not readable), or
 * -errno when no limit file could be read.
 */
int cgroup_memory_limit(const struct sysroot *sr, const struct proc_cgroup *cg, struct buf *b,
			struct cg_limit *out);

/*
 * Headroom in bytes (limit - usage, the smallest over the memory cgroup the
 * calling process is in, from proc/self/cgroup, and its ancestors; v1
 * memory.limit_in_bytes/usage_in_bytes or v2 memory.max/current), 0 when no
 * limit applies or none can be read. *LIMIT gets the limit that decided it.
 */
uint64_t cgroup_self_headroom(const struct sysroot *sr, uint64_t *limit);

/*
 * Whether the v2 cgroup at PATH ("/" or "/a/b", as in proc/PID/cgroup) has the
 * interface file NAME (e.g. "memory.reclaim"): 0 when it exists, else -errno.
 */
int cgroup_v2_has_file(const struct sysroot *sr, const char *path, const char *name);

#endif
