/* SPDX-License-Identifier: MIT */
/*
 * A memory cgroup of a lab's own (`lab shrinker`): made under the memory
 * controller's root (cgroup v2: sys/fs/cgroup with "memory" in
 * cgroup.controllers; v1: sys/fs/cgroup/memory), a process moved into it,
 * its usage read, memory pressure applied (v2: memory.reclaim; v1: a
 * memory.limit_in_bytes below the usage, which makes the kernel reclaim to
 * fit), and removed: its processes killed, the directory removed. The
 * caller journals the path as a guard undo (lab/guard.h) before making it,
 * so the next root run removes what a SIGKILLed one left.
 */
#ifndef THPCTL_MEMCG_LAB_H
#define THPCTL_MEMCG_LAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sysroot.h"

struct memcg_lab {
	int version;	/* 1 or 2 */
	char rel[128];	/* relative to the sysroot: sys/fs/cgroup/memory/thpctl-lab-NAME-PID */
	char path[136]; /* absolute, for the undo journal and messages */
};

/*
 * Where a cgroup named "thpctl-lab-WHAT-PID" (PID this process) would go,
 * into M, without making it. 0, or -ENOENT when no memory controller is
 * mounted where thpctl looks (WHAT: lower-case letters).
 */
int memcg_lab_plan(const struct sysroot *sr, const char *what, struct memcg_lab *m);

/* mkdir M. 0 or -errno (-EEXIST: left by a run with the same pid). */
int memcg_lab_create(const struct sysroot *sr, const struct memcg_lab *m);

/* Move process PID into M (cgroup.procs). 0 or -errno. */
int memcg_lab_join(const struct sysroot *sr, const struct memcg_lab *m, pid_t pid);

/* M's usage in bytes (v2 memory.current, v1 memory.usage_in_bytes). 0 or -errno. */
int memcg_lab_usage(const struct sysroot *sr, const struct memcg_lab *m, uint64_t *bytes);

/*
 * Memory pressure on M: v2 writes BYTES to memory.reclaim; v1 writes a
 * memory.limit_in_bytes of its usage minus BYTES. HOW says what was written
 * and what the kernel answered (-EAGAIN/-EBUSY: it could not reclaim that
 * much). Returns that write's 0 or -errno.
 */
int memcg_lab_pressure(const struct sysroot *sr, const struct memcg_lab *m, uint64_t bytes,
		       char *how, size_t n);

/*
 * Whether PATH names a lab cgroup: absolute under /sys/fs/cgroup/, no "."
 * or ".." component, its last one "thpctl-lab-WORD-DIGITS", under 96 bytes.
 */
bool memcg_lab_path_ok(const char *path);

/*
 * Remove the lab cgroup at PATH (absolute, memcg_lab_path_ok): SIGKILL the
 * processes in its cgroup.procs (only a lab's own children go there), wait
 * up to 2 s for them to leave, rmdir. 0 (also when it is gone already),
 * -EINVAL (not a lab cgroup path) or -errno. The guard's undo for it.
 */
int memcg_lab_remove(const char *path);

#endif
