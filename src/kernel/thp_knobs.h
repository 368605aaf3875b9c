/* SPDX-License-Identifier: MIT */
/*
 * Every file under sys/kernel/mm/transparent_hugepage/ as a flat list of
 * knobs ("enabled", "khugepaged/max_ptes_none", "hugepages-64kB/enabled"),
 * with its raw text and whether it can be written (a write bit in its mode:
 * the counters and hpage_pmd_size have none). stats/ directories are left
 * out. Unlike thp_settings.h this knows no file by name, so a vendor's knob
 * (anon_beside_full) or a newer kernel's is listed, saved and restored too.
 * Used by `set`, `snapshot` and `persist`.
 */
#ifndef THPCTL_THP_KNOBS_H
#define THPCTL_THP_KNOBS_H

#include <stdbool.h>
#include <stdint.h>

#include "sysroot.h"

#define KNOB_KEY_LEN 64
#define KNOB_RAW_LEN 192
#define KNOB_MAX 128
#define KNOB_UNREAD_MAX 16

struct thp_knob {
	char key[KNOB_KEY_LEN]; /* relative to transparent_hugepage/ */
	char raw[KNOB_RAW_LEN]; /* the file's text without its trailing newline */
	bool writable;		/* a write bit in its mode */
};

struct thp_knobs {
	bool present; /* transparent_hugepage/ exists */
	int n;
	struct thp_knob k[KNOB_MAX]; /* top level, khugepaged/, then hugepages-* by size */
	uint64_t pmd_size;	     /* hpage_pmd_size in bytes, 0 if absent */
	int nbad;		     /* files that could not be read or were too long */
	/* of those, the keys (the first KNOB_UNREAD_MAX): a knob that is there but cannot be
	 * read is not "absent from this kernel" (snapshot, set, restore refuse it by name) */
	char unread[KNOB_UNREAD_MAX][KNOB_KEY_LEN];
	int nunread;
};

/* Whether KEY is a file of K that could not be read (thp_knobs.unread). */
bool thp_knobs_unreadable(const struct thp_knobs *k, const char *key);

/*
 * Read every knob. A missing directory leaves present=false and returns 0.
 * Returns 0 or -ENOMEM.
 */
int thp_knobs_read(const struct sysroot *sr, struct thp_knobs *k);

/* The knob KEY, or NULL. */
const struct thp_knob *thp_knobs_find(const struct thp_knobs *k, const char *key);

/*
 * HPAGE_PMD_NR (base pages per PMD), the bound of khugepaged/max_ptes_*:
 * hpage_pmd_size / PAGE_SIZE. PAGE_SIZE 0 (a recorded tree) is derived from
 * the PMD size itself: with 8-byte page-table entries a PMD maps
 * PAGE_SIZE * PAGE_SIZE / 8 bytes (2 MiB -> 4 KiB, 32 MiB -> 16 KiB,
 * 512 MiB -> 64 KiB). Returns 0 when the PMD size is unknown.
 */
uint64_t thp_knobs_pmd_nr(const struct thp_knobs *k, long page_size);

#endif
