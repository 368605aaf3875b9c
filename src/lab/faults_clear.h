/* SPDX-License-Identifier: MIT */
/*
 * lab faults, the form `perf bench mem mmap` uses: GB/s to demand-fault and
 * clear a region, one write per base page, with 4 KiB pages
 * (MADV_NOHUGEPAGE), each anonymous mTHP size the kernel offers (root: that
 * size alone at always for its runs, through the guard; --quick: 64K only) and PMD-size THP
 * (MADV_HUGEPAGE), shown beside the kernel release (7.0 doubled the 2 MiB
 * rate on some CPUs: 11.76 -> 23.58 GB/s on AMD Genoa). Proofs only: the
 * faults table and verdict are left as they are.
 */
#ifndef THPCTL_LAB_FAULTS_CLEAR_H
#define THPCTL_LAB_FAULTS_CLEAR_H

#include "lab.h"

/* Add the proofs "clear SIZE" (median GB/s, min-max over runs) for a region of SIZE bytes. */
void faults_clear_rates(const struct lab_ctx *ctx, const struct lab_opts *o, struct lab_result *r,
			uint64_t size);

#endif
