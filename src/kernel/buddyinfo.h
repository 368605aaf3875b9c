/* SPDX-License-Identifier: MIT */
/* /proc/buddyinfo: free blocks per order, per NUMA node and zone. */
#ifndef THPCTL_BUDDYINFO_H
#define THPCTL_BUDDYINFO_H

#include <stddef.h>
#include <stdint.h>

#include "../util/wide.h"

#define BUDDY_MAX_ORDERS 16
#define BUDDY_MAX_ZONES 32

struct buddy_zone {
	int node;
	char zone[16];
	int norders;			 /* orders printed on this kernel (11 for MAX_ORDER 10) */
	uint64_t free[BUDDY_MAX_ORDERS]; /* free blocks of each order */
};

struct buddyinfo {
	int nzones;
	struct buddy_zone zones[BUDDY_MAX_ZONES];
	size_t bad; /* malformed lines skipped */
	size_t dup; /* zones (node and name) listed twice: every copy dropped */
};

/*
 * Parse TEXT into BI. A zone listed twice is damage: every copy is dropped and
 * counted in BI->dup. Returns 0, or -EINVAL when no zone line was found.
 */
int buddyinfo_parse(const char *text, size_t len, struct buddyinfo *bi);

/* Read proc/buddyinfo through SR into BI. Returns 0, -EINVAL (no zone line), or the read's -errno. */
struct sysroot;
int buddyinfo_read(const struct sysroot *sr, struct buddyinfo *bi);

/*
 * Free blocks of order >= MIN_ORDER in Z (in blocks of their own order), exact:
 * 16 counts of up to 2^64-1 sum beyond a u64, never past 2^68.
 */
u128 buddy_blocks_at_least(const struct buddy_zone *z, int min_order);

/* Free memory in blocks of order >= MIN_ORDER in Z, in base pages, exact (below 2^84). */
u128 buddy_pages_at_least(const struct buddy_zone *z, int min_order);

#endif
