/* SPDX-License-Identifier: MIT */
/*
 * A sample: the host snapshot (host_snapshot.h, without the feature probes)
 * plus a scan of the processes, taken repeatedly by `thpctl watch` (every
 * interval) and `thpctl exporter` (every scrape). Per-process files are read
 * only as asked: statm (a prefilter), status and smaps_rollup by default,
 * full smaps only with SAMPLE_PROC_FLAGS.
 */
#ifndef THPCTL_SAMPLE_H
#define THPCTL_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "fdcache.h"
#include "host_snapshot.h"
#include "proc_status.h"

/* What sample_collect() reads besides vmstat, meminfo and buddyinfo. */
enum {
	SAMPLE_SETTINGS = 1 << 0,   /* everything under transparent_hugepage/, per-size stats too */
	SAMPLE_HUGETLB = 1 << 1,    /* hugetlb pools */
	SAMPLE_KHUGEPAGED = 1 << 2, /* uptime and CPU time of the [khugepaged] thread */
	SAMPLE_PROCS_TOP = 1 << 3,  /* the top N processes by AnonHugePages (exporter) */
	SAMPLE_PROCS_ALL = 1 << 4,  /* every process: RSS and AnonHugePages (watch --top) */
	SAMPLE_PROC_FLAGS = 1 << 5, /* with PROCS_TOP: full smaps walk for hg bytes */
};

/* One process. Sizes in kB as the kernel prints them. */
struct proc_sample {
	pid_t pid;
	char comm[COMM_LEN];   /* status Name:, raw bytes */
	long uid;	       /* -1 unknown */
	uint64_t rss_kb;       /* status VmRSS, when rss_known (else 0) */
	bool rss_known;	       /* VmRSS read: not damaged, not a zombie */
	uint64_t anon_huge_kb; /* smaps_rollup (or smaps) AnonHugePages; valid when readable */
	bool readable;	       /* smaps_rollup/smaps could be read */
	int thp_enabled;       /* status THP_enabled: 0/1, -1 absent (kernel < 5.0) */
	bool has_hg;	       /* hg_kb valid: collected with the full smaps walk */
	uint64_t hg_kb;	       /* Size: of VMAs with VmFlags hg (MADV_HUGEPAGE) */
	/* exporter --process-ledger (filled by the command, model/ledger.h): kB, -1 unknown */
	int64_t invented_kb, held_kb, creep_kb, lazyfree_kb;
	/* ... and its allocator (model/alloc.h) in words; alloc "" when not collected */
	char alloc[16], alloc_version[32], alloc_evidence[24];
};

struct sample {
	/* host-wide files, the same collector as `status` (host.mono_s: when the sample started);
	 * first, and duration_s right after it: sample_collect clears from there on */
	struct host_snapshot host;
	double duration_s; /* wall time the collection took, processes included */
	/* processes: the top N by AnonHugePages (desc), or all (by pid) */
	struct proc_sample *procs;
	size_t nprocs, procs_cap;
	size_t procs_seen;	 /* processes looked at (kernel threads excluded) */
	size_t procs_candidates; /* whose anonymous RSS could hold the threshold: smaps_rollup read */
	size_t procs_unreadable; /* candidates whose smaps_rollup was denied (EACCES) */
	size_t procs_errors;	 /* unexpected read or parse errors */
	bool procs_truncated;	 /* the scan stopped at the time budget */
};

/* State kept between samples, set up once ("detect once"). */
struct sampler {
	const struct sysroot *sr;
	struct host_reader host; /* the host part: one reader, its khugepaged pid cached */
	long page_size;		 /* bytes; 0 unknown */
	unsigned what;		 /* SAMPLE_* */
	size_t top;		 /* PROCS_TOP: how many processes to keep (<= SAMPLE_MAX_TOP) */
	uint64_t min_ahp_kb;	 /* PROCS_TOP: keep processes with AnonHugePages >= this (0: all) */
	double budget_s;	 /* stop the process scan after this long (0: no limit) */
	uint64_t rss_slack_pages; /* how far the mm's per-CPU RSS counters may lag */
	pid_t skip_pid;		  /* left out of the process scan (watch: itself), 0 none */
	struct buf b;		  /* scratch, reused */
};

#define SAMPLE_MAX_TOP 1000

/* Set up S for SR. PAGE_SIZE in bytes (0 unknown). WHAT is SAMPLE_*. */
void sampler_init(struct sampler *s, const struct sysroot *sr, long page_size, unsigned what);
void sampler_free(struct sampler *s);

/*
 * Collect one sample into OUT (its previous content is freed first; zero it
 * before the first use). Returns 0 (unreadable files are listed in
 * OUT->host.missing) or -ENOMEM.
 */
int sample_collect(struct sampler *s, struct sample *out);
void sample_free(struct sample *out);

/*
 * How a sysroot's fdcache (fdcache.h) should treat REL when sampling: sysfs
 * attributes, /proc/PID/statm and /proc/PID/stat are single records (those
 * under transparent_hugepage/ static: one missing stays missing);
 * vmstat, meminfo and buddyinfo are kept open too; other per-process files
 * (status, smaps_rollup, smaps) are opened afresh each time.
 */
enum fdc_mode sample_fdc_mode(const char *rel);

#endif
