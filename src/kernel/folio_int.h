/* SPDX-License-Identifier: MIT */
/* Internal to kernel/folio_scan.c and kernel/folio_chunk.c: the scan context and its work items. */
#ifndef THPCTL_KERNEL_FOLIO_INT_H
#define THPCTL_KERNEL_FOLIO_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "folio_scan.h"

#define NSLOT 16
#define MAX_THREADS 4
#define SCAN_VEC 64
#define MAX_PMD_PER_CHUNK 4
#define KF_SPAN 4096 /* kpageflags frames per read at most (32 KiB, on the reader's stack) */
#define KF_GAP 128   /* frames between two runs read rather than skipped (~ a read call's cost) */
/*
 * Proving a folio from two frames (fill_run) costs two read calls; reading all its frames
 * with the rest of a span costs the kernel a per-frame price (stable_page_flags() per PFN).
 * Both vary between kernel builds: one 6.18 x86-64 guest took ~150 ns a frame, where proving
 * from order 4 cut maps --folios of 2 GiB of 64K mTHP and 2 GiB of PMD THP from 105-115 ms
 * to 66-68 ms; another (fc-v1252) took ~34 ns a frame and ~1.3 us a call (the least of 200
 * one-frame and 50 1024-frame preads), where the same proof took
 * 64.8 ms against 34.3 ms reading every frame (bench/folios.sh, 10 runs each). So the order
 * to prove from is timed on the host, once per scan, at the first run that could be proven
 * (calibrate_probe in kernel/folio_chunk.c); FOLIO_PROBE_ORDER is used until then and where
 * the timing fails. THPCTL_NO_PROBE=1 reads every frame; THPCTL_PROBE=1 proves from
 * FOLIO_PROBE_MIN_ORDER, untimed (tests of the shortcut).
 */
#define FOLIO_PROBE_ORDER 4
#define FOLIO_PROBE_MIN_ORDER 4

enum slot_state { S_FREE, S_PENDING, S_BUSY, S_READY };

/* One work item: FOLIO_CHUNK pages at most, and what was read for them. */
struct slot {
	enum slot_state st;
	uint64_t idx;
	uint64_t vfn0;
	size_t n;
	int err;
	struct folio_acct c; /* what the reader accounted itself: PMD, zero, swap */
	int npmd;
	uint64_t pmd_addr[MAX_PMD_PER_CHUNK];
	uint64_t pm[FOLIO_CHUNK], kf[FOLIO_CHUNK], kfa[FOLIO_CHUNK];
};

struct folio_ctx {
	enum folio_method method;
	bool pfns_hidden;
	const struct sysroot *sr;
	int kf_fd;
	int page_shift;
	uint64_t pmd_pages;
	uint64_t cont_pages;
	int probe_order; /* prove folios of this order and up from two frames (fill_run); 64: never
			  * (read and written atomically: calibrate_probe sets it once) */
	int probe_floor; /* the lowest probe_order allowed: FOLIO_PROBE_MIN_ORDER, 64 never */
	int probe_timed; /* 0 until a reader claims the timing (calibrate_probe), then 1 */
	int order_hint;	 /* folio order fill_run learnt last (any thread; racy by design: a
			    * wrong hint costs one failed proof, never a wrong count) */
	bool pmd_only;	 /* PAGEMAP_SCAN only: PMD-mapped THPs, nothing PTE-mapped */
	uint64_t zero_pfn;	       /* the zero page's frame, 0 unknown */
	const struct numa_nodes *numa; /* folio_opts.numa */
	uint64_t page_bytes;
	/* the VMA being read */
	int pm_fd;
	char pm_rel[64];  /* its pagemap, for the readers to open their own */
	uint64_t job_gen; /* changes with the process */
	uint64_t base, vfn_start, vfn_end;
	/* readers */
	int nworkers;
	pthread_t th[MAX_THREADS];
	pthread_mutex_t mu;
	pthread_cond_t cv_work, cv_done;
	bool quit;
	struct slot *slots;
	int nslot; /* of them (NSLOT at most) */
};

/*
 * The file descriptors a thread reads with. Each reader thread opens its own:
 * reads through one shared struct file bounce its reference count between
 * CPUs (fdget in a multi-threaded process), costing more than they save.
 */
struct rfd {
	int kf, pm;
};

/*
 * Read and classify slot S of the VMA being read (pagemap, kpageflags, or
 * PAGEMAP_SCAN, as C's method says) through F; the result, or the error in
 * S->err, is left in S.
 */
/*
 * The order from which proving a folio (two one-frame kpageflags reads of CALL_NS each) costs
 * less than reading its 2^order frames within a span, where a read of FRAMES frames took
 * SPAN_NS: FOLIO_PROBE_MIN_ORDER..30, or 64 where proving never pays (kernel/folio_chunk.c).
 */
int folio_probe_order_for(uint64_t call_ns, uint64_t span_ns, size_t frames);

void folio_process_slot(struct folio_ctx *c, const struct rfd *f, struct slot *s);

#endif
