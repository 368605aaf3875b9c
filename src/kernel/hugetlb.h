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
	int nbad; /* count files there but unreadable or not one whole number: unknown */
	char bad[128]; /* the first, "sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages (malformed)" */
};

/*
 * Read all global and per-node pools. A missing hugepages directory (no
 * hugetlb in this kernel) gives 0 pools and returns 0; other errors -errno.
 * A count file that is there but unreadable or damaged ("12abc", "-1",
 * "0x1f", 2^64) leaves that count absent and is counted in H->nbad.
 */
int hugetlb_read(const struct sysroot *sr, struct hugetlb *h);

#endif
