/* SPDX-License-Identifier: MIT */
/* Regions for experiments: PMD-aligned anonymous mappings, advice, touches. */
#ifndef THPCTL_LAB_REGION_H
#define THPCTL_LAB_REGION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/clock.h"

#include "lab.h"

/*
 * On a function whose memory accesses an experiment times (a pointer walk
 * over a region) or lays out (the walk's chain): no AddressSanitizer checks.
 * Under ASan each access also reads its shadow byte, a second random access
 * per step: it doubles the TLB misses being measured and made the ASan test
 * build's lab fileread 6x slower than the release build's (205 vs 34 s).
 * These functions touch only regions the experiment mapped itself and (the
 * chain builder) the permutation array it sized for them: keep them that small.
 */
#define LAB_NO_ASAN __attribute__((noinline, no_sanitize("address")))

struct region {
	char *p;    /* aligned start */
	size_t len; /* bytes */
	void *map;  /* what mmap returned (for munmap) */
	size_t maplen;
};

/*
 * Map LEN bytes of private anonymous memory aligned to ALIGN (a power of two,
 * usually the PMD size). Nothing is touched. Returns 0 or -errno.
 */
int region_map(struct region *r, size_t len, size_t align);
void region_unmap(struct region *r);

/*
 * Apply MODE's advice (madv: MADV_HUGEPAGE, nohuge: MADV_NOHUGEPAGE; nothp:
 * the caller's process must already have PR_SET_THP_DISABLE, then
 * MADV_HUGEPAGE). Returns 0 or -errno.
 */
int region_advise(struct region *r, enum lab_mode mode);

/* Write one byte every STRIDE bytes from OFFSET. Returns the number of writes. */
size_t region_touch(struct region *r, size_t offset, size_t stride);

/* MADV_COLLAPSE over the region. Returns 0 or -errno. */
int region_collapse(struct region *r);

/* Minor faults of this process so far (getrusage). */
long minflt_self(void);

/*
 * Bring memory to STATE before a measurement of LEN bytes: warm pre-faults
 * and unmaps LEN + 64 MiB; cold sleeps 6 s so freed memory goes back to the
 * host. Returns 0 or -errno.
 */
int lab_prepare_state(enum lab_state state, size_t len);

/*
 * Run FN(ARG, OUT) in a forked child with OUT in memory shared with the
 * parent (OUT_LEN bytes, zeroed first). With NOTHP the child calls
 * prctl(PR_SET_THP_DISABLE, 1) first. Returns FN's value (0..125) or -errno
 * (-ECHILD when the child died).
 */
int lab_in_child(int (*fn)(void *arg, void *out), void *arg, void *out, size_t out_len, bool nothp);

#endif
