/* SPDX-License-Identifier: MIT */
/*
 * Whether a PMD-size huge page may back a shmem VMA (kernel/smaps.h enum shmem_kind),
 * decided once for why, ps and collapse. Shmem follows shmem_enabled, never enabled
 * (mm/shmem.c shmem_allowable_huge_orders, shmem_huge_global_enabled):
 *   - deny on the top-level file: none anywhere, tmpfs mounts included; force: every kind;
 *   - MAP_SHARED anonymous memory: hugepages-<PMD>kB/shmem_enabled (6.11+; "inherit"
 *     follows the top-level file), else the top-level file;
 *   - SysV and memfd segments (the internal shm mount): the top-level file;
 *   - a tmpfs mount's files: its huge= option, which thpctl does not read (unknown).
 * always and within_size allow, advise only with MADV_HUGEPAGE (hg), never forbids. What
 * the policy forbids no fault and no khugepaged scan makes; MADV_COLLAPSE refuses it with
 * EINVAL on 6.18 (seen on that kernel). No I/O.
 */
#ifndef THPCTL_MODEL_SHMEM_H
#define THPCTL_MODEL_SHMEM_H

#include <stdbool.h>
#include <stdint.h>

#include "../kernel/features.h"
#include "../kernel/smaps.h"
#include "../kernel/thp_settings.h"

/* The PMD-size shmem policy of one kind of VMA, and the file and value that decided it. */
struct shmem_pmd {
	enum tri allowed; /* TRI_YES may, TRI_NO may not, TRI_UNKNOWN (unread, a mount's huge=) */
	const char *top;  /* shmem_enabled as read; NULL unread */
	uint64_t size_kb; /* not 0: hugepages-<size_kb>kB/shmem_enabled decided */
	const char *size_val; /* ... as read ("inherit": the top-level value through it) */
	const char *policy;   /* the value that decided ("inherit" resolved); NULL unknown */
};

/* The policy of every kind, for VMAs without [0] and with [1] MADV_HUGEPAGE. */
struct shmem_rules {
	struct shmem_pmd k[SHK_N][2];
};

/*
 * Decide the PMD policy of kind K (HG: the VMA has MADV_HUGEPAGE) from TOP (shmem_enabled)
 * and SIZE (hugepages-<SIZE_KB>kB/shmem_enabled; NULL or not present: none) into OUT, whose
 * strings point into TOP and SIZE. SHK_NONE: unknown. Pure.
 */
void shmem_pmd_decide(const struct choice *top, const struct choice *size, uint64_t size_kb,
		      enum shmem_kind k, bool hg, struct shmem_pmd *out);

/* Every kind's policy, as shmem_pmd_decide(), into OUT. Pure. */
void shmem_rules_make(const struct choice *top, const struct choice *size, uint64_t size_kb,
		      struct shmem_rules *out);

/* shmem_rules_make() over the settings S, the PMD size PMD_SIZE (bytes; 0 unknown). Pure. */
void shmem_rules_of(const struct thp_settings *s, uint64_t pmd_size, struct shmem_rules *out);

/*
 * The policy of a VMA of kind K with VMF_* FLAGS under R; NULL when R is NULL or K is not
 * shmem. Pure.
 */
const struct shmem_pmd *shmem_rule(const struct shmem_rules *r, enum shmem_kind k, unsigned flags);

/* Whether R forbids a PMD huge page to a VMA of kind K with FLAGS (TRI_NO). Pure. */
bool shmem_forbids(const struct shmem_rules *r, enum shmem_kind k, unsigned flags);

#endif
