/* SPDX-License-Identifier: MIT */
/*
 * What THP buys and costs one process, in kB, from its smaps sums and the
 * raw facts of kernel/ledger.h. Pure. Unknown is -1 (rendered "-", JSON
 * null), never a plausible 0.
 *  - huge_kb: AnonHugePages (PMD-mapped anonymous THP), smaps;
 *  - invented_kb: bytes inside those THPs never written (all-zero subpages),
 *    estimated by sampling K subpages per THP (method LM_SAMPLED) or exact
 *    (LM_EXACT, every subpage: `maps --underused`);
 *  - held_kb: pages of partially mapped large folios that this process no
 *    longer maps: still allocated and charged to its memory cgroup until the
 *    deferred-split shrinker splits them (memory pressure) or the process
 *    exits;
 *  - creep_kb: upper bound of what khugepaged may still add by collapsing
 *    PMD ranges at the current max_ptes_none.
 */
#ifndef THPCTL_MODEL_LEDGER_H
#define THPCTL_MODEL_LEDGER_H

#include <stdbool.h>
#include <stdint.h>

#include "../kernel/ledger.h"

enum ledger_method { LM_NONE, LM_SAMPLED, LM_EXACT };

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
	enum ledger_gap invented_gap;
	int64_t held_kb;
	uint64_t partial_folios;
	uint64_t mthp_kb
		[LEDGER_ORDERS]; /* PTE-mapped whole mTHP folios by order (held_gap says if known) */
	enum ledger_gap held_gap;
	int64_t creep_kb;
	uint64_t creep_ranges;
	long max_ptes_none;
	enum ledger_gap creep_gap;
	bool bloated; /* invented > 25% of huge and > 16 MiB */
};

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

/* A ledger with nothing known (every part LG_NOT_ASKED) but huge_kb. */
void ledger_unknown(int64_t ahp_kb, struct thp_ledger *l);

const char *ledger_method_name(enum ledger_method m);
const char *ledger_gap_name(enum ledger_gap g);

#endif
