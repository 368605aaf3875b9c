/* SPDX-License-Identifier: MIT */
/*
 * The measurement of `lab tlb` (lmbench tlb(8)'s method): two random
 * pointer cycles over the same N cache lines, a sparse one with one line per
 * page of the tested size (the line's offset within the page varied so the
 * lines spread over cache sets) and a dense one with the N lines packed in a
 * region of PMD-mapped THP, timed in turn (ABBA, then BAAB).
 */
#ifndef THPCTL_LAB_TLB_RUN_H
#define THPCTL_LAB_TLB_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "../model/tlbstep.h"

/*
 * Time the sparse cycle over the first NPAGES pages of SPARSE (PAGE bytes
 * apart) against the dense cycle over the first NPAGES lines of DENSE, RUNS
 * times (2 measurements of each per run, STEPS loads each, at most
 * STATS_MW_MAX / 2 runs). Fills PT (pages, excess samples sparse - dense in
 * ns per access) and the medians of each chain's ns/access into *SPARSE_NS
 * and *DENSE_NS. 0 or -ENOMEM.
 */
int tlb_measure(char *sparse, uint64_t page, char *dense, uint64_t npages, int runs, uint64_t steps,
		struct tlb_point *pt, double *sparse_ns, double *dense_ns);

/*
 * STEPS dependent loads along the pointer cycle at P (each slot holds the
 * address of the next); returns where the walk stopped. Never inlined: a
 * timed walk is one call, shared by `lab tlb` and `lab chase`.
 */
void *tlb_walk(void *p, uint64_t steps);

#endif
