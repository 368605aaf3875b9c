/* SPDX-License-Identifier: MIT */
/*
 * The folio view (`maps --folios`, `ps --folios`) and the underused-THP
 * estimate (`maps --underused`): reports built from the collectors of
 * kernel/folio_scan.h and kernel/underused.h, and the facts derived from them.
 * No I/O here.
 */
#ifndef THPCTL_MODEL_FOLIOS_H
#define THPCTL_MODEL_FOLIOS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../kernel/folio_scan.h"
#include "../kernel/proc_status.h"

#define FOLIO_NAME_LEN 256

/* One VMA of `maps --folios`. */
struct folio_vma_row {
	uint64_t start, end;
	char perms[5];
	char name[FOLIO_NAME_LEN];
	struct folio_acct c;
};

/* Geometry shared by the reports. */
struct folio_geom {
	uint64_t page_kb;     /* base page, kB */
	int pmd_order;	      /* 9 with 4 kB pages */
	uint64_t cont_kb;     /* --cont block, 0 none */
	uint32_t host_orders; /* bit o: the host has a hugepages-<size>kB/ directory of order o */
};

void folio_geom_init(struct folio_geom *g, long page_size, uint64_t cont_kb);

/* `maps PID --folios` */
struct folio_report {
	long pid;
	struct proc_status st;
	enum folio_method method;
	struct folio_geom g;
	struct folio_vma_row *vmas; /* VMAs holding THP or zero-page mappings */
	size_t n, cap;
	size_t nvmas; /* all VMAs read */
	struct folio_acct total;
	double elapsed_ms;
	const struct numa_nodes *numa; /* the node map the scan counted with, NULL none */
	bool has_allowed;	       /* allowed read (kernel/numa.h numa_proc_allowed) */
	struct cpuset allowed;	       /* CPUs the process's threads may run on */
};

/* Add VMA V to R (kept when it holds something to show). Returns 0 or -ENOMEM. */
int folio_report_add(struct folio_report *r, const struct folio_vma *v);
void folio_report_free(struct folio_report *r);

/* kB of PAGES base pages. */
static inline uint64_t folio_kb(const struct folio_geom *g, uint64_t pages)
{
	return pages * g->page_kb;
}

/* PAGES as a share of C's resident pages of type T; negative when that RSS is 0. */
double folio_share(const struct folio_acct *c, enum folio_type t, uint64_t pages);

/* How the folios were found ("kpageflags", "smaps", ...): a key for text and JSON. */
const char *folio_method_label(enum folio_method m);
/* Whether method M sees only PMD-mapped THP (PFNs hidden): the report is partial. */
bool folio_method_is_partial(enum folio_method m);
/* Add C's counts into SUM. */
void folio_sum(struct folio_acct *sum, const struct folio_acct *c);
/* Base pages of C's type T in THP folios of any kind: PMD, aligned, unaligned, partial. */
uint64_t folio_thp_pages(const struct folio_acct *c, enum folio_type t);
/* Base pages of C's type T in whole folios of ORDER (PMD-mapped included for the PMD order). */
uint64_t folio_order_pages(const struct folio_acct *c, enum folio_type t, int order, int pmd_order);

/* Whether C holds THP (any type) or huge zero page mappings. */
bool folio_acct_any(const struct folio_acct *c);

/* Orders with memory in C (bit o), and the host's sizes, for table columns. */
uint32_t folio_orders_used(const struct folio_acct *c, int pmd_order);

/* ---- underused PMD THPs (maps --underused) ---- */

/* Zero-subpage histogram of a set of PMD THPs: hist[z] THPs have z all-zero subpages. */
struct underused_hist {
	int nsub;	/* subpages per THP (512 with 4 kB pages) */
	uint64_t *hist; /* nsub + 1 buckets */
	uint64_t nthp;
	uint64_t zero; /* all-zero subpages */
};

int underused_hist_init(struct underused_hist *h, int nsub);
void underused_hist_free(struct underused_hist *h);
void underused_hist_add(struct underused_hist *h, int zero);
void underused_hist_merge(struct underused_hist *into, const struct underused_hist *h);

/*
 * What the underused-THP shrinker (6.12+, shrink_underused) would split and
 * free at MAX_PTES_NONE: thp_underused() splits a THP with more than
 * max_ptes_none all-zero subpages and maps those to the shared zero page;
 * at max_ptes_none = nsub - 1 (the default 511) it returns false at once.
 */
void underused_split(const struct underused_hist *h, int max_ptes_none, uint64_t *thps,
		     uint64_t *subpages);

/* The thresholds reported: 0, nsub/8, nsub/4, nsub/2, nsub-1 (0 64 128 256 511). */
#define UNDERUSED_NTHRESH 5
void underused_thresholds(int nsub, int out[UNDERUSED_NTHRESH]);

struct underused_vma {
	uint64_t start, end;
	char name[FOLIO_NAME_LEN];
	struct underused_hist h;
};

struct underused_report {
	long pid;
	struct proc_status st;
	struct folio_geom g;
	struct underused_vma *vmas;
	size_t n, cap;
	struct underused_hist total;
	uint64_t bytes_read;
	int unreadable;	       /* THPs whose memory could not be read (gone meanwhile) */
	long max_ptes_none;    /* khugepaged/max_ptes_none now, -1 absent, -2 unreadable */
	long shrink_underused; /* 0/1, -1 absent (< 6.12), -2 unreadable or damaged */
	double elapsed_ms;
	bool partial; /* PMD THPs found without kpageflags (anon told by smaps) */
};

void underused_report_free(struct underused_report *r);

#endif
