/* SPDX-License-Identifier: MIT */
/*
 * `thpctl collapse`: which PMD-aligned ranges of a process to hand to
 * process_madvise(MADV_COLLAPSE), and what an error from it means. No I/O.
 *
 * Default selection: every private, readable and writable anonymous VMA
 * (unnamed, [heap], [stack], [anon:NAME]) holding at least one whole aligned
 * PMD. THPeligible is not required: it is sysfs policy, which MADV_COLLAPSE
 * ignores (it collapses under enabled=madvise and even never; 6.1+,
 * 7d8faaf15545). What MADV_COLLAPSE does refuse is skipped unless --force:
 * VMAs marked nh (MADV_NOHUGEPAGE), processes with THP disabled by
 * prctl (status THP_enabled: 0), and (--vma, --range) shmem whose shmem
 * policy forbids huge pages (model/shmem.h; EINVAL on 6.18, seen there):
 * all give EINVAL. What is no work is skipped whatever --force: a range whose
 * huge-page ranges are empty or PMD-mapped already (collapse_plan_range).
 */
#ifndef THPCTL_COLLAPSE_H
#define THPCTL_COLLAPSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../kernel/buddyinfo.h"
#include "shmem.h"

#define CVMA_NAME_LEN 128

/* One VMA of the target, copied from its smaps. */
struct cvma {
	uint64_t start, end;
	char perms[5];
	char name[CVMA_NAME_LEN]; /* "" for plain anonymous memory */
	bool has_vmflags;
	unsigned vmflags; /* VMF_* of smaps.h */
	int thp_eligible; /* -1 absent */
	uint64_t rss_kb, anon_kb, ahp_kb;
	/* PMD-mapped kB: AnonHugePages + ShmemPmdMapped + FilePmdMapped; pmd_known false when
	 * AnonHugePages is absent or damaged (then unknown, not 0) */
	uint64_t pmd_mapped_kb;
	bool pmd_known;
};

/* Anonymous private memory MADV_COLLAPSE handles on every kernel since 6.1. */
bool cvma_is_anon(const struct cvma *v);
/* The name shown for V: "[anon]" for unnamed anonymous memory. */
const char *cvma_label(const struct cvma *v);

enum crange_skip {
	CR_GO,
	CR_SKIP_NH,	  /* overlaps a VMA marked nh */
	CR_SKIP_PRCTL,	  /* the process has THP_enabled: 0 */
	CR_SKIP_SMALL,	  /* no whole aligned PMD inside */
	CR_SKIP_UNMAPPED, /* no VMA there */
	CR_SKIP_INFLATE,  /* would grow RSS more than --max-inflate (estimated from pagemap) */
	CR_SKIP_SHMEM,	  /* overlaps shmem whose shmem policy forbids huge pages */
	CR_SKIP_HUGE,	  /* every huge-page range with a page present is PMD-mapped already */
	CR_SKIP_EMPTY,	  /* no page present or swapped (pagemap): MADV_COLLAPSE refuses it */
	CR_SKIP_HOLES,	  /* no huge-page range wholly mapped: MADV_COLLAPSE fails (ENOMEM) */
};

/* How the PMD-mapped huge pages already in a range were counted. */
enum crange_huge_how {
	CH_UNKNOWN,	  /* not counted (a skipped range, or smaps without AnonHugePages) */
	CH_PAGEMAP_SCAN,  /* exact, per huge-page range: PAGEMAP_SCAN PAGE_IS_HUGE (6.7+) */
	CH_SMAPS,	  /* exact: smaps of VMAs whose every aligned PMD lies in the range */
	CH_SMAPS_AT_LEAST /* smaps of a VMA only partly in the range: those certainly inside */
};

/* How the bytes a run collapsed were counted (crange.collapsed_bytes). */
enum crange_done_how {
	CD_NONE,      /* not attempted */
	CD_CALLS,     /* each success on a huge-page range PAGEMAP_SCAN found not PMD-mapped */
	CD_ANON_HUGE, /* AnonHugePages after - before of its VMAs, at most the successes:
		       * without PAGEMAP_SCAN a range PMD-mapped already also returns success */
	CD_UNKNOWN    /* successes not checked, and AnonHugePages after unread */
};

struct crange {
	uint64_t req_start, req_end; /* as asked (--range) or the VMA's bounds */
	uint64_t start, end;	     /* the PMD-aligned part inside */
	char vma[CVMA_NAME_LEN];     /* label(s) of the VMA(s) it lies in */
	enum crange_skip skip;
	enum shmem_kind shm; /* SKIP_SHMEM: the kind, and whether that VMA is hg (its policy) */
	bool shm_hg;
	/* results, filled by the command */
	bool attempted;
	uint64_t npmd;		  /* aligned PMDs in [start, end) */
	uint64_t nempty;	  /* PMDs with no page present or swapped: not tried */
	uint64_t nok;		  /* PMDs MADV_COLLAPSE returned success for */
	uint64_t nok_unchecked;	  /* of those, PMDs no PAGEMAP_SCAN found not PMD-mapped first */
	uint64_t nfail;		  /* PMDs that failed (err: the first error) */
	uint64_t nuntried;	  /* PMDs not tried after an error stopped the run */
	uint64_t hole_pmds;	  /* PMDs not wholly inside mapped VMAs: never tried */
	uint64_t collapsed_bytes; /* collapse_settle, counted as done_how says (0: CD_UNKNOWN) */
	enum crange_done_how done_how;
	uint64_t ahp_before_kb, ahp_after_kb; /* AnonHugePages of the VMAs it lies in */
	bool have_after;
	double ms;
	int err;     /* first -errno, 0 if none */
	int retries; /* EAGAIN retries spent */
	/* the RSS estimate, before collapsing (pagemap; have_estimate false when unread) */
	bool have_estimate;
	uint64_t present_pages; /* base pages present or swapped in [start, end) */
	uint64_t nonempty_pmds; /* PMDs with at least one: each becomes a whole huge page */
	double est_inflate;	/* resident pages after / before, >= 1 (have_growth) */
	bool have_growth;	/* est_inflate is defined: pages present where planned_pmds lie */
	/* PMD-mapped already (collapse_estimate; huge_how CH_UNKNOWN: not counted) */
	enum crange_huge_how huge_how;
	uint64_t huge_pmds;	 /* huge-page ranges PMD-mapped (at least, CH_SMAPS_AT_LEAST) */
	uint64_t huge_zero_pmds; /* of those, the huge zero page (CH_PAGEMAP_SCAN only) */
	uint64_t planned_pmds;	 /* huge pages a collapse would make: non-empty, not PMD-mapped
				  * (without pagemap: not PMD-mapped, empty ones included) */
	uint64_t nhuge;		 /* run: PMDs found PMD-mapped before their call: not tried */
	/* RSS (kB) of the VMAs it lies in, from smaps, before and after (have_after) */
	uint64_t rss_before_kb, rss_after_kb;
};

struct crange_req {
	uint64_t start, end;
};

struct collapse_sel {
	const struct crange_req *ranges; /* --range, NULL/0: none */
	int nranges;
	const char *const *vmas; /* --vma names ("[heap]", "[anon]", a path), NULL/0: none */
	int nvmas;
	bool force; /* try nh VMAs, prctl-disabled processes and shmem its policy forbids too */
	int thp_enabled;		 /* status THP_enabled: 0, 1, or -1 when absent */
	const struct shmem_rules *shmem; /* the shmem policy; NULL unknown: no shmem skipped */
};

/*
 * Parse "START-END" (hex, "0x" optional, as in /proc/PID/maps). Returns 0 or
 * -EINVAL (malformed, or END <= START).
 */
int collapse_parse_range(const char *s, uint64_t *start, uint64_t *end);

/*
 * Build the ranges for SEL over the N VMAs of V (sorted by address) with PMD
 * bytes per huge page. Writes at most MAX into OUT and returns how many, or
 * -ENOSPC. Default selection only: *NSMALL counts anonymous VMAs left out
 * because they hold no whole aligned PMD (not listed, there are many).
 */
int collapse_select(const struct cvma *v, int n, const struct collapse_sel *sel, uint64_t pmd,
		    struct crange *out, int max, int *nsmall);

/*
 * The index in SEL->vmas of the first --vma name that no VMA of V[0..N) has (a
 * name matches whole: the name in /proc/PID/maps, or "[anon]" for an unnamed
 * VMA), -1 when each names at least one. A name that matches nothing is a typo
 * or a wrong process, not a VMA with nothing to collapse.
 */
int collapse_vma_unmatched(const struct cvma *v, int n, const struct collapse_sel *sel);

/* AnonHugePages (kB) of the VMAs that overlap [START, END). */
uint64_t collapse_ahp_kb(const struct cvma *v, int n, uint64_t start, uint64_t end);
/* Rss (kB) of the VMAs that overlap [START, END). */
uint64_t collapse_rss_kb(const struct cvma *v, int n, uint64_t start, uint64_t end);

/* Whether [A, B) lies wholly inside the VMAs of V[0..N) (sorted by address, adjacent ones
 * joined): a hole in it makes MADV_COLLAPSE fail with ENOMEM, as if no huge page were free. */
bool collapse_fully_mapped(const struct cvma *v, int n, uint64_t a, uint64_t b);

/* The aligned PMDs of [START, END) (PMD bytes each) not wholly mapped by V[0..N). */
uint64_t collapse_hole_pmds(const struct cvma *v, int n, uint64_t start, uint64_t end,
			    uint64_t pmd);

/*
 * After a run, R's collapsed_bytes and done_how: every success checked by
 * PAGEMAP_SCAN, nok PMDs (CD_CALLS); else the growth of AnonHugePages of its
 * VMAs (have_after), in whole PMDs and at most the successes (CD_ANON_HUGE);
 * else unknown (CD_UNKNOWN, 0 bytes). Not attempted: CD_NONE.
 */
void collapse_settle(struct crange *r, uint64_t pmd);

/* --max-inflate when not given: refuse a range whose RSS would more than double. */
#define COLLAPSE_MAX_INFLATE_DEFAULT 2.0

/*
 * The PMD-mapped huge pages certainly inside R, from the smaps of the N VMAs of V
 * (pmd_mapped_kb; a PMD mapping lies on an aligned PMD inside one VMA): sets
 * R->huge_pmds and R->huge_how: CH_SMAPS when each VMA with huge pages has all
 * its aligned PMDs in R (or none of them, or all huge), else CH_SMAPS_AT_LEAST
 * (those that cannot lie outside R); CH_UNKNOWN when a VMA's count is unknown.
 */
void collapse_huge_smaps(struct crange *r, const struct cvma *v, int n, uint64_t pmd);

/*
 * The plan for R (skip CR_GO; others are left alone), from huge_pmds and, with
 * have_estimate, present_pages and nonempty_pmds (pagemap, every PMD of R):
 * planned_pmds are the non-empty huge-page ranges not PMD-mapped, and each
 * becomes PMD_PAGES resident pages (hole_pmds never: without an estimate they are
 * taken out of npmd). R is skipped CR_SKIP_HOLES when no PMD is wholly mapped,
 * CR_SKIP_EMPTY when nothing is
 * present, CR_SKIP_HUGE when nothing is planned (both whatever FORCE: there is
 * nothing MADV_COLLAPSE would do), CR_SKIP_INFLATE when the RSS growth of the
 * planned ranges (est_inflate, pages after / present there; have_growth) is
 * over MAX and not FORCE.
 */
void collapse_plan_range(struct crange *r, uint64_t pmd_pages, double max, bool force);

/* What a collapse did, for render/collapse.c. */
struct collapse_report {
	long pid;
	char comm[64];
	int thp_enabled; /* -1 absent */
	uint64_t pmd_size;
	bool dry_run, force;
	double max_inflate; /* --max-inflate: refuse ranges growing RSS more (x) */
	long vmrss_before_kb, vmrss_after_kb; /* the process's VmRSS, -1 unknown */
	int nranges;
	struct crange *ranges;
	int nsmall;			 /* anonymous VMAs too small to hold an aligned PMD */
	bool pagemap;			 /* empty PMDs were found (and skipped) through pagemap */
	const struct buddyinfo *buddy;	 /* read after an ENOMEM, else NULL */
	const struct shmem_rules *shmem; /* the shmem policy (SKIP_SHMEM's words), NULL unknown */
	int pmd_order;
	int fatal;   /* -errno that stopped the run (EPERM, ESRCH, ENOMEM), 0 if none */
	bool exited; /* the process exited before the reads after were confirmed its own */
};

/* EAGAIN backoff: the delay in ms before retry ATTEMPT (1-based), 0 = give up. */
unsigned collapse_backoff_ms(int attempt);

#endif
