/* SPDX-License-Identifier: MIT */
/* Shared by the `why` words files (why_words.c, why_shmem_words.c, why_summary.c). */
#ifndef THPCTL_RENDER_WHY_INT_H
#define THPCTL_RENDER_WHY_INT_H

#include "wb.h"
#include "why.h"

/* The stall line L into B (why_shmem_words.c). */
void why_w_stall(struct wb *b, const struct why_line *l);
/* The shmem and hugetlb-fallback lines L into B (why_shmem_words.c). */
void why_w_shmem(struct wb *b, const struct why_line *l);

/*
 * "shmem, which shmem_enabled=never keeps from huge pages": why O's hg shmem gets none,
 * naming the file and value that decided (FULL: through the per-size file, as the shmem line
 * says it) into B.
 */
void why_w_shm_off(struct wb *b, const struct why_shm_off *o, bool full);

/* "not recorded in this tree" / "not readable (...)": a file of -errno ERR into B. */
void why_w_unreadable(struct wb *b, int err, bool recorded);
/* The memory cgroup line L into B (why_cg_words.c). */
void why_w_cgroup(struct wb *b, const struct why_line *l);
/*
 * "its memory cgroup /a has 300 kB of charge headroom left, under one PMD (2.0 MiB): each
 * needs that much charge, so the cgroup refuses it" into B (why_cg_words.c).
 */
void why_w_cg_room(struct wb *b, const struct why_cg_room *c);

#endif
