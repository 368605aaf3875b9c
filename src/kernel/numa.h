/* SPDX-License-Identifier: MIT */
/*
 * NUMA nodes as sysfs describes them: which memory blocks each node holds
 * (sys/devices/system/node/nodeN/memoryM, M a block number; blocks of
 * sys/devices/system/memory/block_size_bytes, hex) and which CPUs
 * (nodeN/cpulist). A frame's node is then the node of its block: PFN *
 * page size / block size. The mapping and the list parsers are pure; only
 * numa_nodes_read() reads files.
 */
#ifndef THPCTL_NUMA_H
#define THPCTL_NUMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sysroot.h"

#define NUMA_MAX_NODES 64
#define NUMA_MAX_CPUS 1024

/* A set of CPU numbers below NUMA_MAX_CPUS. */
struct cpuset {
	uint64_t w[NUMA_MAX_CPUS / 64];
};

static inline bool cpuset_has(const struct cpuset *s, unsigned cpu)
{
	return cpu < NUMA_MAX_CPUS && (s->w[cpu / 64] >> (cpu % 64) & 1);
}

/*
 * Parse a CPU list ("0-3,8,10-11\n", as in cpulist and Cpus_allowed_list)
 * of LEN bytes into OUT. An empty list is an empty set. Returns 0, or
 * -EINVAL (bad syntax, a CPU at or above NUMA_MAX_CPUS).
 */
int cpulist_parse(const char *s, size_t len, struct cpuset *out);

/* Blocks [first, last] belong to NODE. */
struct numa_range {
	uint64_t first, last;
	int node;
};

struct numa_nodes {
	uint64_t block_bytes; /* memory block size; 0 unknown (no map) */
	struct numa_range *r; /* sorted by first, not overlapping (after numa_map_finish) */
	size_t n, cap;
	int nnodes;		       /* nodeN directories found */
	int id[NUMA_MAX_NODES];	       /* their numbers, ascending */
	bool has_cpus[NUMA_MAX_NODES]; /* cpulist read */
	struct cpuset cpus[NUMA_MAX_NODES];
};

/* Record that memory block BLOCK is on node NODE. Returns 0 or -ENOMEM. */
int numa_map_add(struct numa_nodes *m, uint64_t block, int node);
/* Sort the blocks and merge adjacent ones of the same node (call after the adds). */
void numa_map_finish(struct numa_nodes *m);
/*
 * The node of frame PFN (pages of PAGE_SIZE bytes): the node of its memory
 * block, or -1 when unknown (no block size, the block is on no node).
 */
int numa_node_of_pfn(const struct numa_nodes *m, uint64_t pfn, uint64_t page_size);

/* Index into m->id of node NODE, or -1. */
int numa_index(const struct numa_nodes *m, int node);

/*
 * Read the nodes of SR into M (zeroed by the caller; free with
 * numa_nodes_free). No node directory: M->nnodes 0. An unreadable block size
 * leaves M->block_bytes 0 (no PFN mapping). Returns 0 or -ENOMEM.
 */
int numa_nodes_read(const struct sysroot *sr, struct numa_nodes *m);
void numa_nodes_free(struct numa_nodes *m);

/*
 * The CPUs the threads of process PID may run on: the union of
 * Cpus_allowed_list over proc/PID/task/TID/status (proc/PID/status when the
 * task directory is unreadable) into OUT; PID 0 is the caller (proc/self). Returns 0, -ESRCH (gone), -ENOENT
 * (no Cpus_allowed_list line), or -errno.
 */
int numa_proc_allowed(const struct sysroot *sr, pid_t pid, struct cpuset *out);

/* Whether SR has sys/devices/system/node/nodeNODE (a NUMA node of this host). */
bool numa_node_present(const struct sysroot *sr, int node);

#endif
