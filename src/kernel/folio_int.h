/* SPDX-License-Identifier: MIT */
/* Internal to kernel/folio_scan.c and kernel/folio_chunk.c: the scan context and its work items. */
#ifndef THPCTL_KERNEL_FOLIO_INT_H
#define THPCTL_KERNEL_FOLIO_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "folio_scan.h"

#define NSLOT 16
#define MAX_THREADS 4
#define SCAN_VEC 64
#define MAX_PMD_PER_CHUNK 4

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
	bool probe;	   /* prove large folios from two frames (fill_run) */
	int order_hint;	   /* folio order fill_run learnt last (any thread; racy by design: a
			    * wrong hint costs one failed proof, never a wrong count) */
	bool pmd_only;	   /* PAGEMAP_SCAN only: PMD-mapped THPs, nothing PTE-mapped */
	uint64_t zero_pfn; /* the zero page's frame, 0 unknown */
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
void folio_process_slot(struct folio_ctx *c, const struct rfd *f, struct slot *s);

#endif
