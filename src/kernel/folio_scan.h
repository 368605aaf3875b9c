/* SPDX-License-Identifier: MIT */
/*
 * The folio view of one process: for each VMA, the folio_acct of
 * pagemap.h, read as cheaply as the kernel allows.
 *
 * As root on 6.7+ (FM_PAGEFLAGS_SCAN): pagemap is read for every page (cheap
 * where PMD-mapped), PAGEMAP_SCAN's PAGE_IS_HUGE tells which PMD-aligned runs
 * of frames are PMD mappings, and /proc/kpageflags (~0.1 us a frame plus
 * ~0.3 us a read here, the dominant cost) is read only for PTE-mapped pages,
 * three frames per folio once a run's folio size is known (fill_run). Without
 * PAGEMAP_SCAN (FM_PAGEFLAGS) every frame is classified and smaps separates
 * the PMD-mapped part, as thpmaps does. --underused (pmd_only) asks
 * PAGEMAP_SCAN alone.
 * Without CAP_SYS_ADMIN the PFNs in pagemap are zero and kpageflags is closed:
 * then only smaps and PAGEMAP_SCAN are used (FM_SMAPS_SCAN, FM_SMAPS), which
 * see PMD-mapped THP only: the result is partial.
 *
 * Pages are read in chunks of FOLIO_CHUNK pages by up to `threads` threads
 * (the caller's included; each with its own file descriptors) and classified
 * in address order by the caller's thread; memory stays bounded (16 slots of
 * chunk buffers, ~400 KiB) whatever the size of the process.
 */
#ifndef THPCTL_FOLIO_SCAN_H
#define THPCTL_FOLIO_SCAN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "numa.h"
#include "pagemap.h"
#include "sysroot.h"

#define FOLIO_CHUNK 1024 /* pages per work item (4 MiB, two PMDs) */

enum folio_method {
	FM_PAGEFLAGS_SCAN, /* exact: PAGEMAP_SCAN + pagemap + kpageflags */
	FM_PAGEFLAGS,	   /* exact: pagemap + kpageflags everywhere, smaps for PMD */
	FM_SMAPS_SCAN,	   /* partial: smaps + PAGEMAP_SCAN (PMD-mapped only) */
	FM_SMAPS,	   /* partial: smaps only */
};

/* "pagemap+kpageflags+PAGEMAP_SCAN", ... for output */
const char *folio_method_name(enum folio_method m);
static inline bool folio_method_partial(enum folio_method m)
{
	return m == FM_SMAPS_SCAN || m == FM_SMAPS;
}

struct folio_opts {
	uint64_t cont_pages; /* --cont block in pages, 0 none */
	int threads;	     /* 0: one per online CPU, at most 4 */
	bool no_scan;	     /* do not use PAGEMAP_SCAN (tests of the fallback) */
	bool no_probe;	     /* read every frame's kpageflags (tests of the shortcut) */
	bool probe_all;	     /* prove folios from two frames from 16 pages up (tests of it) */
	bool pmd_only;	     /* only find PMD-mapped THPs (--underused): skip PTE-mapped pages */
	/* count THP pages per NUMA node (folio_acct.thp_node) with this map; NULL: not
	 * counted. It must outlive the context. Needs visible PFNs (root). */
	const struct numa_nodes *numa;
};

struct folio_vma {
	uint64_t start, end; /* bytes */
	char perms[5];
	const char *name; /* not NUL-terminated; "" anonymous */
	size_t name_len;
	struct folio_acct c;
};

struct folio_ctx;

/*
 * Decide the method for this host and caller (probing PAGEMAP_SCAN and PFN
 * visibility on this process) and start the reader threads. SR must be the
 * live system. Returns 0, -EOPNOTSUPP for a recorded tree, or -errno.
 */
int folio_ctx_new(const struct sysroot *sr, const struct folio_opts *o, struct folio_ctx **out);
void folio_ctx_free(struct folio_ctx *c);
enum folio_method folio_ctx_method(const struct folio_ctx *c);
/* PFNs hidden from this caller (not CAP_SYS_ADMIN). */
bool folio_ctx_pfns_hidden(const struct folio_ctx *c);

typedef int (*folio_vma_cb)(const struct folio_vma *v, void *arg);
/* A PMD-mapped anonymous THP at ADDR (in address order). */
typedef int (*folio_pmd_cb)(uint64_t addr, void *arg);

/*
 * Walk process PID: VMA_CB for each VMA in address order, PMD_CB (may be
 * NULL) for each PMD-mapped anonymous THP. Returns 0, a callback's non-zero
 * value, -ESRCH when the process is gone, -EACCES/-EPERM when its files are
 * not readable, or -errno.
 */
int folio_scan_pid(struct folio_ctx *c, pid_t pid, folio_vma_cb vma_cb, folio_pmd_cb pmd_cb,
		   void *arg);

/*
 * Classify [ADDR, ADDR + LEN) of process PID (0: this process) into C from
 * pagemap and kpageflags alone, on the caller's thread (the lab's proofs).
 * Without PAGEMAP_SCAN's help, PMD-mapped THPs count as aligned PMD-order
 * folios. Returns 0, -EPERM when PFNs are hidden (not CAP_SYS_ADMIN), or
 * -errno.
 */
int folio_scan_range(const struct sysroot *sr, pid_t pid, uint64_t addr, uint64_t len,
		     struct folio_acct *c);

#endif
