/* SPDX-License-Identifier: MIT */
/*
 * Per-interval rates from two counter snapshots (pure, no I/O), and the row
 * `thpctl watch` prints per interval.
 *
 * A counter that goes down (new < old) was reset: its file was recreated
 * (a per-size stats directory after a size was disabled and re-enabled, a
 * recorded tree replaced), or a 32-bit kernel's unsigned long wrapped. Both
 * look the same from here, so it is treated as a reset, as Prometheus'
 * rate() does: the events in the interval are taken to be the new value
 * (counted from zero) and the rate is marked RATE_RESET. That undercounts a
 * wrap by the events before it, at most one interval's worth.
 *
 * A counter absent from the new snapshot has no rate (RATE_ABSENT, shown as
 * "-" / null), never 0. One absent from the old snapshot only (it appeared)
 * has no rate yet either (RATE_NEW): we do not know when it started.
 */
#ifndef THPCTL_RATES_H
#define THPCTL_RATES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../kernel/kv.h"
#include "../kernel/parse.h"
#include "../kernel/sample.h"

enum rate_state {
	RATE_OK,     /* present in both, new >= old */
	RATE_RESET,  /* present in both, new < old: reset or wrap, delta = new */
	RATE_NEW,    /* absent before, present now: no rate yet */
	RATE_ABSENT, /* absent now (disappeared, or never there): no rate */
};

/* The rate of one counter over one interval. */
struct rate {
	enum rate_state state;
	uint64_t delta; /* events in the interval (RATE_OK, RATE_RESET), else 0 */
	double per_s;	/* delta / interval, events per second (RATE_OK, RATE_RESET), else 0 */
};

static inline bool rate_valid(const struct rate *r)
{
	return r->state == RATE_OK || r->state == RATE_RESET;
}

/*
 * Rate of a counter that was OLD and is NEW after INTERVAL_S seconds.
 * Returns 0, or -EINVAL when INTERVAL_S is not > 0 (then R is RATE_ABSENT).
 */
int rate_compute(const struct opt_u64 *old, const struct opt_u64 *cur, double interval_s,
		 struct rate *r);

/* A counter NAME of a kvlist (vmstat, per-size stats) as an optional value. */
struct opt_u64 kv_opt(const struct kvlist *l, const char *name);

/*
 * Sum of the counters named PREFIX or PREFIX_<anything> ("allocstall" sums
 * allocstall_dma32, allocstall_normal, ...; kernels before 4.10 print one
 * "allocstall"). Absent when none is present.
 */
struct opt_u64 kv_sum_prefix(const struct kvlist *l, const char *prefix);

/* rate_compute() of counter NAME between two kvlists. */
int rate_kv(const struct kvlist *old, const struct kvlist *cur, const char *name, double interval_s,
	    struct rate *r);

/* The vmstat counters of a watch row, in column order. */
enum watch_col {
	WC_FAULT_ALLOC,
	WC_FAULT_FALLBACK,
	WC_COLLAPSE_ALLOC,
	WC_COLLAPSE_FAILED,
	WC_SPLIT_PAGE,
	WC_SPLIT_PMD,
	WC_DEFERRED_SPLIT,
	WC_COMPACT_STALL,
	WC_COMPACT_FAIL,
	WC_ALLOCSTALL,	  /* sum of allocstall_* */
	WC_PGSCAN_DIRECT, /* pages scanned by direct reclaim */
	WC_N
};

/* vmstat name of column C ("allocstall" for the sum). */
const char *watch_col_key(enum watch_col c);

/*
 * The rates of the watch columns between two vmstat snapshots INTERVAL_S
 * apart into R (allocstall summed over zones). Returns 0, or -EINVAL when
 * INTERVAL_S is not > 0.
 */
int rates_vmstat(const struct kvlist *old, const struct kvlist *cur, double interval_s,
		 struct rate r[WC_N]);

/*
 * `thpctl status --sample S`: what moved on the host between two snapshots
 * S seconds apart (host-wide counters and the [khugepaged] thread).
 */
struct host_recent {
	double interval_s;	     /* measured between the two reads, CLOCK_MONOTONIC */
	bool khugepaged_valid;	     /* the same [khugepaged] thread in both, CPU time not back */
	double khugepaged_cpu_s;     /* its utime + stime in the interval, s (clock ticks) */
	double khugepaged_cpu_ratio; /* khugepaged_cpu_s / interval_s: share of one CPU */
	struct rate r[WC_N];	     /* the watch columns, host-wide */
};

/*
 * Derive OUT from OLD and CUR (pure). khugepaged is unknown (not valid) when
 * either read missed the thread, the pids differ (it stops while THP is off
 * and restarts with a new pid) or its CPU time went back. Returns 0, or
 * -EINVAL when CUR is not later than OLD.
 */
int host_recent_derive(const struct host_snapshot *old, const struct host_snapshot *cur,
		       struct host_recent *out);

/* Per-size (mTHP) fault rates of one size that moved in the interval. */
struct size_rate {
	uint64_t size_kb;
	struct rate alloc, fallback; /* stats/anon_fault_alloc, stats/anon_fault_fallback */
};

/* How one process's memory changed in the interval, kB. */
struct proc_change {
	pid_t pid;
	char comm[64];
	uint64_t rss_kb, anon_huge_kb; /* now (0 for an exited process) */
	int64_t rss_delta_kb, anon_huge_delta_kb;
	bool anon_huge_known; /* smaps_rollup readable both times (or now, when it appeared) */
	bool appeared, exited;
};

#define WATCH_MAX_TOP 100

/* One interval of `thpctl watch`. */
struct watch_row {
	double wall_s;	   /* CLOCK_REALTIME at the end of the interval */
	double interval_s; /* measured, CLOCK_MONOTONIC */
	struct rate r[WC_N];
	int nsizes; /* sizes whose anon_fault_alloc or _fallback moved (PMD size left out) */
	struct size_rate sizes[THP_MAX_SIZES];
	struct opt_u64 anon_huge_kb; /* meminfo AnonHugePages now */
	bool has_anon_huge_delta;
	int64_t anon_huge_delta_kb;
	struct opt_u64 free_pmd_blocks; /* buddyinfo, all zones but DMA, PMD units */
	uint64_t pmd_kb;		/* hpage_pmd_size in kB, 0 unknown */
	size_t ntop;
	struct proc_change top[WATCH_MAX_TOP];
};

/*
 * Derive the row for the interval from OLD to CUR (pure). TOP (<=
 * WATCH_MAX_TOP) processes with the largest change of AnonHugePages or RSS
 * are listed when both samples hold all processes, sorted by pid.
 * Returns 0, or -EINVAL when CUR is not later than OLD.
 */
int watch_derive(const struct sample *old, const struct sample *cur, size_t top,
		 struct watch_row *row);

/*
 * The TOP processes whose AnonHugePages or RSS changed most between OLD and
 * CUR (each sorted by pid), largest absolute change first; unchanged ones are
 * left out. A pid whose comm changed is a new process (pid reuse). Returns
 * the number written to OUT (at most TOP).
 */
size_t rates_top_changes(const struct proc_sample *old, size_t nold, const struct proc_sample *cur,
			 size_t ncur, size_t top, struct proc_change *out);

#endif
