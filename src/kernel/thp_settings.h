/* SPDX-License-Identifier: MIT */
/*
 * sys/kernel/mm/transparent_hugepage/...: global policy, khugepaged knobs and
 * counters, per-size (mTHP, 6.8+) policies and stats (6.10+).
 */
#ifndef THPCTL_THP_SETTINGS_H
#define THPCTL_THP_SETTINGS_H

#include "kv.h"
#include "parse.h"
#include "sysroot.h"

enum khp_knob {
	KHP_DEFRAG,
	KHP_PAGES_TO_SCAN,
	KHP_SCAN_SLEEP_MS,
	KHP_ALLOC_SLEEP_MS,
	KHP_MAX_PTES_NONE,
	KHP_MAX_PTES_SWAP,   /* 4.8+ */
	KHP_MAX_PTES_SHARED, /* 5.8+ */
	KHP_PAGES_COLLAPSED, /* counter */
	KHP_FULL_SCANS,	     /* counter */
	KHP_NKNOBS
};

/* File name of knob K under khugepaged/. */
const char *khp_knob_name(enum khp_knob k);
/* Whether K is a counter (read-only) rather than a setting. */
bool khp_knob_is_counter(enum khp_knob k);

#define THP_MAX_SIZES 32
#define THP_MAX_EXTRA 8

/* One hugepages-<size>kB directory. */
struct thp_size {
	uint64_t size_kb;
	int order;		     /* log2(size / base page), -1 when the page size is unknown */
	struct choice enabled;	     /* anon policy; absent for shmem-only sizes (8kB on x86) */
	struct choice shmem_enabled; /* 6.11+ */
	const char *eff_enabled;     /* "inherit" resolved against the top-level file */
	const char *eff_shmem;	     /* likewise against shmem_enabled */
	bool has_stats;		     /* stats/ directory (6.10+) */
	struct kvlist stats;	     /* every file in stats/, by name */
};

/* An unknown top-level file (e.g. a vendor's anon_beside_full), raw text. */
struct thp_extra {
	char name[48];
	char value[48];
};

struct thp_settings {
	bool present; /* transparent_hugepage/ exists: THP built in */
	/* the directory read, as a host path for words shown to people ("/sys/kernel/mm/...") */
	const char *dir;
	struct choice enabled, defrag, shmem_enabled;
	struct opt_u64 use_zero_page, hpage_pmd_size /* bytes, 4.10+ */,
		shrink_underused /* 6.12+ */;
	struct opt_u64 khp[KHP_NKNOBS];
	int nsizes;
	struct thp_size sizes[THP_MAX_SIZES]; /* sorted by size */
	int nextra;
	struct thp_extra extra[THP_MAX_EXTRA];
	int write_err; /* sysroot_writable() of "enabled": 0, -EROFS, -EACCES; -ENODATA not probed */
	int nbad;      /* files present but unparsable */
	/* files present but unreadable (not regular, too large, a symlink, a directory) */
	int nunread;
	int unread_err;	 /* -errno of the first */
	char unread[96]; /* the first, relative to sys/kernel/mm ("transparent_hugepage/enabled") */
};

/*
 * Read everything under transparent_hugepage/. PAGE_SIZE (bytes, 0 unknown)
 * gives orders. A missing directory sets present=false and returns 0; a
 * malformed file is counted in nbad and left absent; a file there but not
 * readable (any error but -ENOENT) in nunread, the first named in unread.
 * Returns 0 or -ENOMEM.
 */
int thp_settings_read(const struct sysroot *sr, long page_size, struct thp_settings *s);
/* The same with OPTS: THP_NO_WRITE_PROBE leaves write_err -ENODATA (not probed) instead of
 * opening "enabled" for write (an open and a close a call: the exporter's scrapes do not say it). */
#define THP_NO_WRITE_PROBE 1u
int thp_settings_read_opts(const struct sysroot *sr, long page_size, struct thp_settings *s,
			   unsigned opts);
void thp_settings_free(struct thp_settings *s);

/* The size entry for SIZE_KB, or NULL. */
const struct thp_size *thp_size_find(const struct thp_settings *s, uint64_t size_kb);

/*
 * The effective anonymous policy of the PMD size without reading the whole
 * tree: hugepages-<hpage_pmd_size>kB/enabled (6.8+), "inherit" resolved to
 * the top-level enabled, else the top-level file. Copies it into OUT (N
 * bytes) and returns 0, or -ENOENT when THP is absent, -EINVAL if malformed.
 */
int thp_pmd_policy(const struct sysroot *sr, char *out, size_t n);

/* The PMD size in kB from SR's hpage_pmd_size: 0 when it cannot be read (or is not a size). */
uint64_t thp_pmd_kb(const struct sysroot *sr);

/*
 * The PMD size's shmem policy files without reading the whole tree: shmem_enabled into TOP
 * and hugepages-<hpage_pmd_size>kB/shmem_enabled (6.11+) into SIZE (not there: present
 * false), *SIZE_KB the PMD size in kB (0 unknown). Returns 0, or -ENOENT when
 * shmem_enabled is absent (no THP), -EINVAL if malformed.
 */
int thp_pmd_shmem_policy(const struct sysroot *sr, struct choice *top, struct choice *size,
			 uint64_t *size_kb);

#endif
