/* SPDX-License-Identifier: MIT */
/* hugetlb pools: sys/kernel/mm/hugepages/hugepages-<N>kB/ and per node. */
#ifndef THPCTL_HUGETLB_H
#define THPCTL_HUGETLB_H

#include "parse.h"
#include "sysroot.h"

#define HUGETLB_MAX_POOLS 64

/* One pool, global (node -1) or one NUMA node. Counts are huge pages. */
struct hugetlb_pool {
	uint64_t size_kb;
	int node;
	struct opt_u64 nr, free, resv, surplus, overcommit; /* resv/overcommit: global only */
};

struct hugetlb {
	int npools;
	struct hugetlb_pool pools[HUGETLB_MAX_POOLS];
};

/*
 * Read all global and per-node pools. A missing hugepages directory (no
 * hugetlb in this kernel) gives 0 pools and returns 0; other errors -errno.
 */
int hugetlb_read(const struct sysroot *sr, struct hugetlb *h);

#endif
