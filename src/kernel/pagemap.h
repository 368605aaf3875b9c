/* SPDX-License-Identifier: MIT */
/*
 * /proc/PID/pagemap, /proc/kpageflags and PAGEMAP_SCAN: which folios back a
 * process's memory, by size and by how they are mapped. AnonHugePages (smaps,
 * meminfo) counts PMD-mapped THP only; a 6.8+ kernel with multi-size THP can
 * back gigabytes with 16K-1M folios that only kpageflags shows.
 *
 * The classifier (folio_walk_*) is a pure function over arrays of pagemap
 * entries and kpageflags values, fed in order in bounded pieces: it never
 * holds per-page state of a whole VMA. Its method is the one of the kernel's
 * tools/mm/thpmaps (6.10):
 *  - keep present pages with KPF_THP; split them into ranges where both the
 *    virtual and the physical frame number go up by one;
 *  - in a range, each KPF_COMPOUND_HEAD starts a folio that ends at the next
 *    head or at the end of the range; its order is floor(log2(pages)) and it
 *    counts 1 << order pages (thpmaps' rule, kept for identical numbers);
 *  - pages before the first head of a range, and the last folio when the
 *    frame after the range is a KPF_COMPOUND_TAIL, are "partial": a folio cut
 *    by the VMA, by munmap/MADV_DONTNEED of some of its pages, or by mremap;
 *  - aligned means the head's virtual frame number is a multiple of the
 *    folio's pages (only then can arm64 use contiguous PTEs, or a PMD map it).
 * Differences from thpmaps, all deliberate: the huge zero page (KPF_ZERO_PAGE
 * with KPF_THP) is counted as a zero-page mapping, not as a file THP; order-1
 * (8 kB) file folios are reported (thpmaps drops orders below 2); VMAs without
 * r/w/x permission are included.
 */
#ifndef THPCTL_PAGEMAP_H
#define THPCTL_PAGEMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uapi_compat.h"

/* pagemap entry bits (Documentation/admin-guide/mm/pagemap.rst) */
#define PM_PFN_MASK ((1ULL << 55) - 1) /* PFN if present; zeroed without CAP_SYS_ADMIN (4.2+) */
#define PM_EXCLUSIVE (1ULL << 56)      /* 4.2 */
#define PM_FILE (1ULL << 61)	       /* file page or shared anonymous (shmem) */
#define PM_SWAP (1ULL << 62)
#define PM_PRESENT (1ULL << 63)

/* kpageflags bits as masks (bit numbers in uapi_compat.h) */
#define KPF_M_ANON (1ULL << KPF_ANON_BIT)
#define KPF_M_HEAD (1ULL << KPF_COMPOUND_HEAD_BIT)
#define KPF_M_TAIL (1ULL << KPF_COMPOUND_TAIL_BIT)
#define KPF_M_HUGE (1ULL << KPF_HUGE_BIT) /* hugetlb */
/* any large rmappable folio: PMD THP, mTHP, large page cache folios (not only PMD-sized) */
#define KPF_M_THP (1ULL << KPF_THP_BIT)
#define KPF_M_ZERO (1ULL << KPF_ZERO_PAGE_BIT) /* the zero page; with KPF_THP the huge zero page */

#define FOLIO_ORDERS 12 /* orders 0..11 kept apart; larger ones add to the last */

enum folio_type { FT_ANON, FT_FILE, FT_N }; /* FT_FILE: page cache and shmem */

#define FOLIO_NODES 16 /* NUMA nodes counted apart in folio_acct.thp_node */

/* What backs a range of memory, in base pages. */
struct folio_acct {
	uint64_t pmd[FT_N];			/* PMD-mapped THP */
	uint64_t aligned[FT_N][FOLIO_ORDERS];	/* PTE-mapped whole folios, aligned */
	uint64_t unaligned[FT_N][FOLIO_ORDERS]; /* PTE-mapped whole folios, not aligned */
	uint64_t partial[FT_N];			/* pages of folios mapped only in part */
	uint64_t cont_pte[FT_N]; /* PTE-mapped aligned blocks of cont_pages within one folio */
	uint64_t rss[FT_N];	 /* resident pages (no zero pages, no hugetlb) */
	uint64_t zero_pte;	 /* mappings of the shared zero page (not RSS) */
	uint64_t zero_pmd;	 /* base pages mapped from the huge zero page (not RSS) */
	uint64_t swap;		 /* swapped out */
	uint64_t hugetlb;	 /* hugetlb pages (not THP; smaps counts them apart) */
	/* pages of THP folios (any type, PMD- or PTE-mapped) by the NUMA node of their frame
	 * (kernel/numa.h), when the scan has a node map and sees PFNs: node N in
	 * thp_node[N] for N < FOLIO_NODES, every other one in thp_node_unknown */
	uint64_t thp_node[FOLIO_NODES];
	uint64_t thp_node_unknown;
};

void folio_acct_add(struct folio_acct *sum, const struct folio_acct *c);
/* Pages in THP folios of any kind: PMD, aligned, unaligned, partial. */
uint64_t folio_acct_thp(const struct folio_acct *c, enum folio_type t);
/* Pages in whole folios of ORDER (PMD-mapped included for the PMD order). */
uint64_t folio_acct_order(const struct folio_acct *c, enum folio_type t, int order, int pmd_order);

/*
 * Classifier state for one VMA. Feed the VMA's pages in address order, in
 * pieces of any size, then end it. Pages the caller accounts itself
 * (PMD-mapped ranges found by PAGEMAP_SCAN, zero-page ranges) are fed as
 * entries without PM_PRESENT: they end a range, which changes no count
 * because a PMD-mapped THP is a whole, aligned folio.
 */
struct folio_walk {
	uint64_t cont_pages; /* --cont block in pages (power of two), 0 for none */
	bool in_range;
	uint64_t prev_vfn, prev_pfn, prev_after;
	uint64_t range_vfn; /* first page of the open range */
	int range_type;	    /* folio_type of that page */
	bool have_head;	    /* a head was seen in the range */
	uint64_t head_vfn;  /* the last head */
	int head_type;
	bool cont_ok;		 /* --cont: the range's frames are equally aligned */
	bool blk_active, blk_ok; /* --cont: a block started in this range; no head inside yet */
	int blk_type;
};

void folio_walk_init(struct folio_walk *w, uint64_t cont_pages);

/*
 * Classify N pages starting at virtual frame VFN0 into C. PM holds their
 * pagemap entries, KF the kpageflags of each present page's PFN (ignored for
 * pages not present), and KF_AFTER[i] the kpageflags of PFN(i) + 1 wherever
 * page i is present and page i + 1 is not present with the next PFN (always
 * for the last page of a piece): thpmaps' test for a folio cut at the end of
 * a range. Entries of other pages in KF_AFTER are not read.
 */
void folio_walk_feed(struct folio_walk *w, uint64_t vfn0, size_t n, const uint64_t *pm,
		     const uint64_t *kf, const uint64_t *kf_after, struct folio_acct *c);

/* The VMA ends: close the open range. */
void folio_walk_end(struct folio_walk *w, struct folio_acct *c);

/*
 * The thpmaps way of separating PMD-mapped THP when PAGEMAP_SCAN is missing:
 * all pages were fed, so PMD-mapped THPs were counted as aligned PMD-order
 * folios; move the kB smaps reports (AnonHugePages; ShmemPmdMapped +
 * FilePmdMapped) to pmd[], clamped at zero (the process may have changed
 * between the two reads).
 */
void folio_acct_split_pmd(struct folio_acct *c, int pmd_order, uint64_t anon_pmd_pages,
			  uint64_t file_pmd_pages);

/* ---- readers (thin; return 0 or -errno) ---- */

/* N entries of pagemap FD from virtual frame VFN. A short read is -EIO. */
int pagemap_pread(int fd, uint64_t vfn, size_t n, uint64_t *out);
/* N kpageflags values of FD from PFN. */
int kpageflags_pread(int fd, uint64_t pfn, size_t n, uint64_t *out);

struct pm_range {
	uint64_t start, end; /* bytes */
	uint64_t cat;	     /* PAGE_IS_* */
};

/*
 * PAGEMAP_SCAN over [START, END) of pagemap FD: pages that are present or
 * swapped, with categories PRESENT, SWAPPED, HUGE and PFNZERO (not FILE:
 * asking for it costs a page lookup per PTE). Up to MAX ranges into OUT;
 * *NEXT gets where the walk stopped (END when done). Returns the number of
 * ranges, -ENOTTY/-EINVAL when the kernel lacks PAGEMAP_SCAN (< 6.7), or
 * -errno.
 */
int pagemap_scan(int fd, uint64_t start, uint64_t end, struct pm_range *out, size_t max,
		 uint64_t *next);

#endif
