// SPDX-License-Identifier: MIT
/*
 * A lab experiment's hugetlb pages: enough free pages of one size reserved
 * in the kernel's pool for the run (nr_hugepages raised through the guard:
 * journalled, put back by lab_pool_release(), on a signal or by the next
 * thpctl after a SIGKILL).
 */
#ifndef THPCTL_LAB_HUGETLB_POOL_H
#define THPCTL_LAB_HUGETLB_POOL_H

#include <stdbool.h>
#include <stdint.h>

#include "../kernel/parse.h"
#include "common.h"

struct lab_pool {
	uint64_t kb;	 /* page size, kB */
	uint64_t need;	 /* free pages wanted */
	uint64_t nr0;	 /* nr_hugepages as found */
	uint64_t nr;	 /* nr_hugepages after the reservation */
	uint64_t got;	 /* available pages after it: free less resv_hugepages */
	bool raised;	 /* nr_hugepages was written (and must go back) */
	char rel[128];	 /* the pool's nr_hugepages, relative to / */
	const char *why; /* when it failed: why, for a proof */
};

/*
 * Make NEED pages of KB kB available (free less resv_hugepages) in the hugetlb pool (root, after
 * guard_begin(); source: sys/kernel/mm/hugepages/hugepages-KBkB/). 0, or
 * -ENOENT (no pool of that size), -EIO (the pool cannot be read),
 * -EPERM/-EACCES (the write was refused), -ENOMEM (the kernel found fewer free
 * pages than needed: memory fragmented or short); P->why says which.
 */
int lab_pool_reserve(const struct lab_ctx *ctx, uint64_t kb, uint64_t need, struct lab_pool *p);

/*
 * nr_hugepages, free_hugepages and resv_hugepages of KB kB in the global hugetlb pool now
 * (each absent when unreadable); false when there is no pool of that size.
 */
bool lab_pool_now(const struct lab_ctx *ctx, uint64_t kb, struct opt_u64 *nr, struct opt_u64 *free,
		  struct opt_u64 *resv);

/* Free pages of KB kB in the global hugetlb pool now; -1 when it cannot be read. */
int64_t lab_pool_free(const struct lab_ctx *ctx, uint64_t kb);

/* Put nr_hugepages back as found, when lab_pool_reserve() raised it. */
void lab_pool_release(struct lab_pool *p);

#endif
