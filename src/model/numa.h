/* SPDX-License-Identifier: MIT */
/*
 * THP by NUMA node for `maps --folios` and `ps --folios`: a process's THP
 * pages per node (folio_acct.thp_node, frames mapped to nodes by kernel/numa.h)
 * against the nodes its threads may run on (Cpus_allowed_list and each
 * node's cpulist), and the remote-THP finding. No I/O.
 */
#ifndef THPCTL_MODEL_NUMA_H
#define THPCTL_MODEL_NUMA_H

#include <stdbool.h>
#include <stdint.h>

#include "../kernel/numa.h"
#include "../kernel/pagemap.h"

/* More than this share of a process's THP on nodes its threads may not run on: flagged. */
#define NUMA_REMOTE_SHARE 0.5

enum numa_tri { NUMA_NO, NUMA_YES, NUMA_UNKNOWN };

/* Why remote_thp is NUMA_UNKNOWN (render/folios_numa.c words it). */
enum numa_unknown {
	NU_NONE,
	NU_NO_ALLOWED,	 /* the CPUs its threads may run on (Cpus_allowed_list) are unknown */
	NU_NO_CPULIST,	 /* no node's cpulist was readable */
	NU_NOT_ON_NODE,	 /* its allowed CPUs are on no listed node */
	NU_UNKNOWN_TIPS, /* the pages of unknown node could put most of it remote */
};

/* Why per-node figures cannot be given at all. */
enum numa_missing {
	NM_NONE,	 /* they can */
	NM_NO_PFNS,	 /* the scan saw no PFNs (run as root) */
	NM_NO_NODES,	 /* no NUMA node directory */
	NM_NO_BLOCK_MAP, /* no memory block map (memory/block_size_bytes, node*\/memory*) */
};

/* Whether node map M (NULL none) can place frames, for a scan that saw PFNs unless PARTIAL. */
enum numa_missing numa_missing(const struct numa_nodes *m, bool partial);

/* Whether node N is in map M. */
bool numa_node_listed(const struct numa_nodes *m, int n);

struct numa_split {
	uint64_t pages[FOLIO_NODES];   /* THP pages by node number */
	uint64_t unknown;	       /* THP pages whose node is unknown */
	uint64_t total;		       /* all THP pages, unknown included */
	bool allowed_known;	       /* the nodes below could be decided */
	uint64_t allowed;	       /* bit N: node N has a CPU the threads may run on */
	uint64_t remote;	       /* THP pages on nodes not in `allowed` */
	double remote_share;	       /* remote / total; -1 when total is 0 */
	enum numa_tri remote_thp;      /* remote_share > NUMA_REMOTE_SHARE */
	enum numa_unknown why_unknown; /* when remote_thp is NUMA_UNKNOWN */
};

/*
 * Build OUT from C's per-node THP pages, the node map M (its cpulists) and
 * the CPUs the process's threads may run on (ALLOWED, NULL unknown). A node
 * is allowed when its cpulist shares a CPU with ALLOWED. Undecidable (the
 * unknown pages could tip it, no cpulist, no allowed node): NUMA_UNKNOWN with
 * the reason in why_unknown.
 */
void numa_split_build(const struct folio_acct *c, const struct numa_nodes *m,
		      const struct cpuset *allowed, struct numa_split *out);

#endif
