/* SPDX-License-Identifier: MIT */
/* Proofs: what the kernel says happened, read in the same run as the measurement. */
#ifndef THPCTL_LAB_PROOF_H
#define THPCTL_LAB_PROOF_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "../kernel/kv.h"
#include "../kernel/smaps.h"
#include "../kernel/sysroot.h"
#include "../kernel/thp_settings.h"

/* /proc/vmstat plus every hugepages-<size>kB/stats counter, at one moment. */
struct snap {
	struct kvlist vm;
	int nsizes;
	uint64_t size_kb[THP_MAX_SIZES];
	struct kvlist stats[THP_MAX_SIZES];
	bool ok; /* vmstat was read */
};

/* Take a snapshot. Returns 0 or -errno (vmstat unreadable). */
int snap_take(const struct sysroot *sr, struct snap *s);
void snap_free(struct snap *s);

/* B - A for vmstat counter NAME; false when either lacks it. */
bool snap_delta(const struct snap *a, const struct snap *b, const char *name, int64_t *d);
/* B - A for hugepages-<SIZE_KB>kB/stats/NAME; false when absent. */
bool snap_size_delta(const struct snap *a, const struct snap *b, uint64_t size_kb, const char *name,
		     int64_t *d);

/* The smaps of [ADDR, ADDR+LEN) of process PID (0 = self), summed over overlapping VMAs. */
struct region_smaps {
	struct smaps_totals t; /* kB */
	int nvmas;
	int thp_eligible; /* of the first VMA, -1 absent */
	unsigned vmflags; /* OR of the VMAs' VMF_* */
};

/* Read it. Returns 0, -ENOENT when no VMA overlaps, or -errno. */
int region_smaps_read(const struct sysroot *sr, pid_t pid, uintptr_t addr, size_t len,
		      struct region_smaps *out);

/*
 * Folios backing [ADDR, ADDR+LEN) of this process by order, from
 * /proc/self/pagemap and /proc/kpageflags (root only: PFNs are hidden from
 * others). by_order[o] counts folios of 2^o pages with KPF_THP; small counts
 * present pages without KPF_THP. Returns 0, -EPERM when not readable.
 */
struct folio_counts {
	uint64_t by_order[32];
	uint64_t small;
	uint64_t present;
};
int region_folios(const struct sysroot *sr, uintptr_t addr, size_t len, long page_size,
		  struct folio_counts *fc);

/*
 * Free memory in blocks of order >= ORDER over all zones but DMA, in blocks of 2^ORDER pages.
 * Returns 0, -errno reading buddyinfo, or -EOVERFLOW when the count does not fit a u64.
 */
int free_blocks_at_least(const struct sysroot *sr, int order, uint64_t *blocks);

#endif
