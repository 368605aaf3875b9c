/* SPDX-License-Identifier: MIT */
/*
 * The host snapshot: every host-wide THP file thpctl reads, collected by one
 * reader for `status`, `advise`, `why`, `hugetlb`, `watch` and `exporter`.
 * Per-process files are not part of it (see sample.h for the exporter's and
 * watch's process scan).
 */
#ifndef THPCTL_HOST_SNAPSHOT_H
#define THPCTL_HOST_SNAPSHOT_H

#include <stdbool.h>
#include <sys/types.h>

#include "../util/buf.h"
#include "buddyinfo.h"
#include "features.h"
#include "hugetlb.h"
#include "kv.h"
#include "shrinker_record.h"
#include "sysroot.h"
#include "thp_settings.h"
#include "tuned.h"

/* What a snapshot reads besides proc/vmstat, proc/meminfo and proc/buddyinfo. */
enum {
	HS_FEATURES = 1 << 0,	/* kernel features: release, page size, probes (features.h) */
	HS_SETTINGS = 1 << 1,	/* everything under transparent_hugepage/, per-size stats too */
	HS_HUGETLB = 1 << 2,	/* hugetlb pools */
	HS_KHUGEPAGED = 1 << 3, /* proc/uptime and the CPU time of the [khugepaged] thread */
	HS_TUNED = 1 << 4,	/* tuned: active profile and the THP settings it writes (tuned.h) */
	/* with HS_SETTINGS: whether "enabled" opens for write (thp.write_err), and the lab's
	 * records (the shrinker's); status and advise say them, watch and the exporter do not */
	HS_FINDINGS = 1 << 5,
	HS_ALL = HS_FEATURES | HS_SETTINGS | HS_HUGETLB | HS_KHUGEPAGED | HS_TUNED | HS_FINDINGS,
};

#define HOST_MAX_MISSING 16

struct host_snapshot {
	double mono_s;	       /* CLOCK_MONOTONIC seconds when the read started */
	double wall_s;	       /* CLOCK_REALTIME seconds, same moment */
	struct kvlist vmstat;  /* proc/vmstat */
	struct kvlist meminfo; /* proc/meminfo, kB */
	bool has_vmstat, has_meminfo, has_buddy;
	struct buddyinfo buddy;	   /* proc/buddyinfo */
	struct features feat;	   /* with HS_FEATURES (else zero) */
	bool has_settings;	   /* thp valid */
	struct thp_settings thp;   /* with HS_SETTINGS */
	int pmd_order;		   /* log2(hpage_pmd_size / page size), -1 unknown */
	bool has_hugetlb;	   /* hugetlb valid */
	struct hugetlb hugetlb;	   /* with HS_HUGETLB */
	bool has_khugepaged_cpu;   /* the [khugepaged] thread was found */
	double khugepaged_cpu_s;   /* its utime + stime, seconds since it started */
	double khugepaged_start_s; /* when it started, seconds after boot (stat starttime) */
	pid_t khugepaged_pid;	   /* the thread it was read from (a restart gets a new pid) */
	double uptime_s;	   /* proc/uptime, 0 unknown */
	bool has_tuned;		   /* tuned valid (HS_TUNED) */
	struct tuned_state tuned;
	/* what `thpctl lab shrinker` measured here (shrinker_record.h; HS_SETTINGS | HS_FINDINGS) */
	bool has_shrinker;
	struct shrinker_record shrinker;
	/* files that could not be read or parsed: the snapshot is partial */
	int nmissing;
	char missing[HOST_MAX_MISSING][128];
	/* a --sysroot bundle's members not extracted: the snapshot is partial too */
	struct sr_skips skips;
};

/* State kept between snapshots of one host, set up once ("detect once"). */
struct host_reader {
	const struct sysroot *sr;
	unsigned what;		/* HS_* */
	long page_size;		/* bytes, 0 unknown; replaced by the probe with HS_FEATURES */
	long clk_tck;		/* sysconf(_SC_CLK_TCK) */
	pid_t khugepaged;	/* cached pid of [khugepaged]; 0 not looked up, -1 none */
	double khugepaged_scan; /* mono seconds of the last search of proc/ */
	struct buf b;		/* scratch, reused */
};

/* Set up R to read SR. WHAT is HS_*; PAGE_SIZE in bytes (0 unknown). */
void host_reader_init(struct host_reader *r, const struct sysroot *sr, unsigned what,
		      long page_size);
void host_reader_free(struct host_reader *r);

/*
 * Read one snapshot into OUT through R. OUT's previous content is reused and
 * replaced (zero it before the first use). Unreadable or malformed files are
 * listed in OUT->missing. Returns 0 or -ENOMEM.
 */
int host_snapshot_next(struct host_reader *r, struct host_snapshot *out);

/* One full snapshot (HS_ALL) of SR into OUT (zeroed first). Returns 0 or -ENOMEM. */
int host_snapshot_read(const struct sysroot *sr, struct host_snapshot *out);

/* Free what OUT holds; OUT may be reused after host_snapshot_next(). */
void host_snapshot_free(struct host_snapshot *out);

/* Append WHAT (a file in words, sysroot-relative) to OUT's missing list. */
void host_snapshot_missing(struct host_snapshot *out, const char *what);

/*
 * Append WHAT with the words of read error ERR (-errno of sysroot_read(),
 * read_err_str()): "proc/vmstat (not a regular file)"; a plain WHAT for
 * -ENOENT, -EINVAL and 0.
 */
void host_snapshot_missing_err(struct host_snapshot *out, const char *what, int err);

/*
 * Whether the missing entry WHAT (one of OUT->missing) is a file `hugetlb plan`
 * reads: proc/meminfo, proc/buddyinfo, the hugepages pools, the NUMA nodes.
 */
bool host_missing_hugetlb_input(const char *what);

#endif
