/* SPDX-License-Identifier: MIT */
/*
 * What THP buys and costs one process, in kB, from its smaps sums and the
 * raw facts of kernel/ledger.h. Pure. Unknown is -1 (rendered "-", JSON
 * null), never a plausible 0.
 *  - huge_kb: AnonHugePages (PMD-mapped anonymous THP), smaps;
 *  - invented_kb: bytes inside those THPs never written (all-zero subpages),
 *    estimated by sampling K subpages per THP (method LM_SAMPLED: the share of
 *    the subpages read that are all-zero, times huge_kb; a THP whose only
 *    written subpage no read fell on counts as wholly invented) or exact
 *    (LM_EXACT, every subpage: `maps --underused`);
 *  - held_kb: pages of partially mapped large folios that this process no
 *    longer maps: still allocated and charged to its memory cgroup until the
 *    deferred-split shrinker splits them (memory pressure) or the process
 *    exits;
 *  - creep_kb: upper bound of what khugepaged may still add by collapsing
 *    PMD ranges at the current max_ptes_none;
 *  - lazyfree_kb: smaps LazyFree (4.12+): pages freed with MADV_FREE that
 *    stay mapped, counted in RSS and in the memory cgroup, until reclaim
 *    takes them under memory pressure (MADV_FREE over part of a THP splits
 *    it: AnonHugePages drops, RSS does not).
 * mTHP folios (below the PMD size) are listed apart: the underused shrinker
 * never counts them (it looks at PMD THPs only).
 */
#ifndef THPCTL_MODEL_LEDGER_H
#define THPCTL_MODEL_LEDGER_H

#include <stdbool.h>
#include <stdint.h>

#include "../kernel/ledger.h"
#include "../kernel/smaps.h"

enum ledger_method { LM_NONE, LM_SAMPLED, LM_EXACT };

/* What its memory cgroup says of the creep (ledger_creep_cg): a collapse is charged there. */
enum ledger_cg {
	LCG_NOT_ASKED, /* not looked at in this view (ps, maps) */
	LCG_UNKNOWN,   /* a limit or the usage on its path unreadable: never "no limit" */
	LCG_NO_LIMIT,  /* no memory cgroup, or no limit on its path */
	LCG_LIMITED,   /* limit and usage known: cg_headroom_kb */
};

/* Why a part of the ledger is unknown. */
enum ledger_gap {
	LG_OK,
	LG_DENIED,    /* no permission (mem or pagemap: ptrace read; held: CAP_SYS_ADMIN) */
	LG_NO_SCAN,   /* the kernel lacks PAGEMAP_SCAN (< 6.7) */
	LG_BUDGET,    /* the time budget ran out: a lower bound / a partial sample */
	LG_ERROR,     /* another read error */
	LG_NOT_ASKED, /* not computed in this view */
	LG_RECORDED,  /* a recorded tree: pagemap and mem need the live process */
};

struct thp_ledger {
	int64_t huge_kb;
	int64_t invented_kb;
	enum ledger_method method;
	int k;
	uint64_t thps, thps_sampled;
	/* LM_SAMPLED: the subpages read (k of each sampled THP's subpages, one at a random
	 * offset in each of k equal strata) and the all-zero ones: invented_kb is their ratio
	 * times huge-backed, so a written subpage no read fell on counts as never written */
	uint64_t samples, zero_samples;
	unsigned subpages; /* base pages per PMD THP (512 on x86-64) */
	unsigned page_kb;  /* the base page (4 on x86-64, 64 on arm64 with 64K pages): mthp_kb's
			    * order o is a folio of page_kb << o kB */
	enum ledger_gap invented_gap;
	int64_t held_kb;
	uint64_t partial_folios;
	uint64_t mthp_kb
		[LEDGER_ORDERS]; /* PTE-mapped whole mTHP folios by order (held_gap says if known) */
	enum ledger_gap held_gap;
	bool held_by_counters; /* held and mthp_kb 0 from the host's counters, no walk */
	int64_t creep_kb;
	int64_t creep_eighth_kb; /* of creep_kb, what khugepaged may still add at max_ptes_none =
				  * PMD/8 (64 on x86-64; or now, when lower): -1 unknown */
	uint64_t creep_ranges;
	long max_ptes_none;
	enum ledger_gap creep_gap;
	/* the creep under its memory cgroup's charge headroom (ledger_creep_cg) */
	enum ledger_cg creep_cg;
	int64_t cg_headroom_kb; /* LCG_LIMITED: the smallest limit - usage on its path; -1 */
	bool cg_starved;	/* LCG_LIMITED: the headroom is under one PMD: no collapse now */
	bool creep_cg_bounded;	/* LCG_LIMITED, creep known and the headroom below it */
	int64_t creep_bound_kb; /* LCG_LIMITED, creep known: min(creep, headroom); else -1 */
	bool bloated;		/* invented > 25% of huge and > 16 MiB */
	/* from the same smaps walk (ledger_smaps), -1 unknown */
	int64_t rss_kb;	       /* Rss, all VMAs */
	int64_t lazyfree_kb;   /* LazyFree (MADV_FREE, not yet reclaimed) */
	int64_t referenced_kb; /* Referenced: pages accessed since the last reclaim scan */
	/* PMD ranges of anonymous VMAs fully resident in small pages (they would gain
	 * from a huge page), nh VMAs left out (never huge there): known with creep (creep_gap) */
	uint64_t pte_full_ranges;
	int64_t pte_full_kb;
};

/* The costs of THP the ledger counts, and lazy free beside them. */
enum ledger_cost { LC_NONE, LC_INVENTED, LC_HELD, LC_CREEP, LC_LAZYFREE, LC_N };

const char *ledger_cost_name(enum ledger_cost c);

/* The size of cost C of L in kB, -1 unknown. */
int64_t ledger_cost_kb(const struct thp_ledger *l, enum ledger_cost c);

/*
 * Whether cost C of L passes its threshold: over 16 MiB and over 25% of what
 * it is measured against: invented of huge-backed (the flag of ps --ledger);
 * held of RSS plus held (held pages are charged but not in RSS); creep of RSS
 * plus creep (what RSS would become); lazy free of RSS.
 */
bool ledger_cost_flagged(const struct thp_ledger *l, enum ledger_cost c);

/* The largest cost of L that passes its threshold, LC_NONE when none does. */
enum ledger_cost ledger_top_cost(const struct thp_ledger *l);

/*
 * Held and the whole mTHP folios of L are 0, known from the host's counters
 * (no partially mapped anonymous large folio, no anonymous one below PMD size):
 * no folio walk could find any (kernel/ledger.h: ledger_host_no_held).
 */
void ledger_held_none(struct thp_ledger *l);

/* Copy what L takes from the smaps sums T (NULL: unknown): huge_kb, rss, LazyFree, Referenced. */
void ledger_smaps(struct thp_ledger *l, const struct smaps_totals *t);

/*
 * What its memory cgroup makes of L's creep: CG (never LCG_NOT_ASKED) and, for LCG_LIMITED,
 * its HEADROOM_BYTES and whether that is under one PMD (STARVED). Memory the limit refuses
 * cannot be added: creep_bound_kb is the creep capped at the headroom, and creep_cg_bounded
 * says the headroom is below the creep. Call it after the creep is known. Pure.
 */
void ledger_creep_cg(struct thp_ledger *l, enum ledger_cg cg, uint64_t headroom_bytes,
		     bool starved);

#define LEDGER_BLOAT_MIN_KB (16 * 1024)

/* Whether INVENTED_KB of HUGE_KB is flagged: > 25% of it and > 16 MiB. */
bool ledger_is_bloated(int64_t invented_kb, int64_t huge_kb);

/*
 * Build L from AHP_KB (smaps AnonHugePages, -1 unknown), the scan's RAW and
 * its return SCAN_RET (0, -errno), with PAGE_KB and PMD_ORDER of the host.
 * K is the number of subpages sampled per THP (opts.k); HELD_ASKED says
 * whether the held walk was asked for.
 */
void ledger_build(int64_t ahp_kb, const struct ledger_raw *raw, int scan_ret, int k,
		  bool held_asked, long max_ptes_none, unsigned page_kb, int pmd_order,
		  struct thp_ledger *l);

/* A ledger with nothing known (every part LG_NOT_ASKED, smaps parts -1) but huge_kb. */
void ledger_unknown(int64_t ahp_kb, struct thp_ledger *l);

/* Whether every part of L asked for is known (no gap but LG_OK and LG_NOT_ASKED). Pure. */
bool ledger_whole(const struct thp_ledger *l);

const char *ledger_method_name(enum ledger_method m);
const char *ledger_gap_name(enum ledger_gap g);

#endif
