/* SPDX-License-Identifier: MIT */
/*
 * The raw facts of a process's THP ledger (model/ledger.h turns them into
 * bytes): one pass over the VMAs the caller names, with PAGEMAP_SCAN (6.7+)
 * over /proc/PID/pagemap:
 *  - invented: every PMD-mapped THP of an anonymous VMA is found
 *    (PAGE_IS_HUGE) and K of its subpages are read through /proc/PID/mem
 *    (stratified: one at a pseudo-random offset in each of K equal strata);
 *    an all-zero subpage was never written (or was written with zeros). Needs
 *    ptrace read access (root, or the same user without Yama restrictions).
 *  - creep: per PMD-aligned range fully inside a creep candidate VMA, the
 *    resident base pages r (present, not the zero page); khugepaged may
 *    collapse it when 1 <= r < nsub and r >= nsub - max_ptes_none, adding
 *    nsub - r pages: an upper bound (it also needs a free huge page and
 *    max_ptes_swap / max_ptes_shared to agree).
 *  - held: for the present PTE-mapped pages of anonymous VMAs, pagemap gives
 *    the frame and /proc/kpageflags its folio (head, tails): a large folio
 *    that this process maps only in part keeps its unmapped pages allocated
 *    (and charged to the memory cgroup) until the deferred-split shrinker
 *    splits it. Needs CAP_SYS_ADMIN (PFNs are zero otherwise, 4.2+).
 * All counts are in base pages.
 */
#ifndef THPCTL_KERNEL_LEDGER_H
#define THPCTL_KERNEL_LEDGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sysroot.h"

#define LEDGER_ORDERS 16 /* folio orders kept apart (order 0 unused) */

/*
 * An anonymous private VMA to scan (from smaps; no file, shmem or hugetlb: only
 * those are listed). 16 bytes: a process may have hundreds of thousands.
 */
struct ledger_vma {
	uint64_t start : 63; /* bytes; user addresses are below 2^63 */
	uint64_t nh : 1;     /* MADV_NOHUGEPAGE (or a MAP_STACK stack, 6.7+): never huge, not even
			      * by MADV_COLLAPSE, so none of its PMD ranges counts as a gain */
	uint64_t end : 63;   /* bytes */
	uint64_t creep : 1;  /* khugepaged may collapse here (hg, or eligible under always) */
};

struct ledger_opts {
	int k;		    /* subpages sampled per PMD THP (1..nsub); 0: no invented estimate */
	bool held;	    /* look for partially mapped folios (needs CAP_SYS_ADMIN) */
	double budget_ms;   /* stop sampling and the held walk after this long (0: none) */
	long max_ptes_none; /* khugepaged/max_ptes_none; < 0: no creep bound */
	unsigned page;	    /* base page, bytes */
	int pmd_order;	    /* base pages per PMD = 1 << pmd_order */
};

struct ledger_raw {
	int scan_err;	       /* 0, or -errno of PAGEMAP_SCAN (-ENOTTY/-EINVAL: < 6.7; -EACCES) */
	uint64_t thps;	       /* PMD-mapped THPs found in anonymous VMAs */
	uint64_t thps_sampled; /* of them, sampled (fewer when the budget ran out) */
	uint64_t samples, zero_samples; /* subpages read, and those all zero */
	int mem_err;			/* 0, or -errno opening or reading /proc/PID/mem */
	uint64_t creep_ranges,
		creep_pages;	     /* PMD ranges khugepaged may collapse; pages it may add */
	uint64_t creep_resident;     /* resident pages in those ranges */
	uint64_t creep_pages_eighth; /* of creep_pages, those khugepaged may still add at
				      * max_ptes_none = nsub / 8 (or now, when lower) */
	uint64_t pte_full_ranges;    /* PMD ranges of anonymous VMAs, not nh, whose every page is
				   * resident in small pages (PTE-mapped, not the zero page) */
	int held_err;		     /* 0; -EPERM: PFNs hidden or kpageflags closed; -errno */
	bool held_cut;		     /* the budget ran out: a lower bound */
	uint64_t partial_folios;     /* large anonymous folios mapped here only in part */
	uint64_t partial_mapped;     /* their pages mapped here */
	uint64_t held_pages;	     /* their pages not mapped here: held until split */
	uint64_t mthp_pages
		[LEDGER_ORDERS]; /* whole large folios below PMD size mapped here, by order */
	double elapsed_ms;
};

/*
 * Scan the N VMAs V of process PID of the live system SR (in address
 * order). Returns 0 (per-part outcomes in RAW's *_err), -ESRCH when the
 * process is gone, or -errno when pagemap cannot be opened (then only
 * scan_err is set).
 */
int ledger_scan(const struct sysroot *sr, pid_t pid, const struct ledger_vma *v, size_t n,
		const struct ledger_opts *o, struct ledger_raw *raw);

/* The VMAs of one process to scan, gathered from its smaps. */
struct ledger_vmas {
	struct ledger_vma *v;
	size_t n, cap;
	int err; /* -ENOMEM when an add failed */
};

struct smaps_vma;
/*
 * Add smaps VMA V to LV when it can hold THPs: anonymous private memory
 * (no path; not hugetlb, not [vdso]/[vvar]) for invented, held and creep;
 * creep only where VmFlags has hg, or, when POLICY (the PMD size's effective
 * anon policy: "always", "madvise", "never"; NULL unknown) is "always", where
 * THPeligible is 1 and VmFlags has no nh; never under "never".
 */
void ledger_vmas_add(struct ledger_vmas *lv, const struct smaps_vma *v, const char *policy);
void ledger_vmas_free(struct ledger_vmas *lv);

/*
 * Whether the host's counters show that no pagemap walk can find held memory
 * or whole mTHP folios: every SR_THP/hugepages-*kB/stats/nr_anon_partially_mapped
 * is 0 and every nr_anon of a size below PMD_KB is 0 (6.12+). Returns 1 when
 * they do, 0 when one is not 0, -ENOENT when a file is missing (older kernel),
 * -EINVAL when one is damaged, or another -errno.
 */
int ledger_host_no_held(const struct sysroot *sr, unsigned pmd_kb);

/*
 * Host-wide anonymous THPs of all sizes on the deferred-split list: the sum of
 * SR_THP/hugepages-*kB/stats/nr_anon_partially_mapped (6.12+). Returns the
 * count, or -1 when no size has the file (older kernel) or one is unreadable.
 */
long long ledger_host_partial(const struct sysroot *sr);

/* ---- pure parts, for tests ---- */

/* Offset (in subpages) of sample I of K in the THP at ADDR: one per stratum of NSUB / K. */
unsigned ledger_sample_pos(uint64_t addr, int i, int k, unsigned nsub);

/*
 * Creep of one PMD range with R resident pages of NSUB: the pages khugepaged
 * may add at MAX_PTES_NONE (0 when it would not collapse the range).
 */
uint64_t ledger_creep_pages(uint64_t r, unsigned nsub, long max_ptes_none);

/* One PMD block's kpageflags (NSUB values from frame BASE): the folio holding PFN. */
struct ledger_folio {
	uint64_t head, pages; /* first frame, size in pages; pages 0: not a large anon folio */
};
struct ledger_folio ledger_folio_of(const uint64_t *kf, unsigned nsub, uint64_t base, uint64_t pfn);

/*
 * Folios seen with the pages mapped in each (merged by head). A folio whose
 * pages were all seen in one run is done at once (an anonymous page is mapped
 * once in one process): only its pages by order are kept, in whole[], so the
 * list holds the folios seen in part, not every large folio of the process.
 */
struct ledger_folios {
	struct ledger_folio_use {
		uint64_t head, pages, mapped;
	} * v;
	size_t n, cap;
	uint64_t whole[LEDGER_ORDERS]; /* pages of folios done whole, by order */
};
/* Add MAPPED pages of folio F. Returns 0 or -ENOMEM. */
int ledger_folios_add(struct ledger_folios *s, struct ledger_folio f, uint64_t mapped);
/*
 * Merge duplicates; add the partially mapped ones to RAW's held counts and
 * the whole ones below NSUB pages (mTHP) to RAW->mthp_pages. Frees S.
 */
void ledger_folios_finish(struct ledger_folios *s, unsigned nsub, struct ledger_raw *raw);

#endif
