/* SPDX-License-Identifier: MIT */
/* The shmem policy a VMA follows (model/shmem.h), in the words why, ps and collapse share. */
#ifndef THPCTL_RENDER_SHMEM_H
#define THPCTL_RENDER_SHMEM_H

#include <stddef.h>

#include "../model/shmem.h"

/*
 * The file and value that decided P into OUT (N bytes), returned: "shmem_enabled=never",
 * "hugepages-2048kB/shmem_enabled=advise", and unless BRIEF the per-size file through which
 * the top-level one decided: "hugepages-2048kB/shmem_enabled inherit -> shmem_enabled=never"
 * (BRIEF: "shmem_enabled=never"). "shmem_enabled (not readable)" when unread.
 */
const char *shmem_pmd_words(const struct shmem_pmd *p, bool brief, char *out, size_t n);

#endif
