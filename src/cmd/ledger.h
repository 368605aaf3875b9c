/* SPDX-License-Identifier: MIT */
/* The per-process THP ledger (model/ledger.h) for ps, why and maps. */
#ifndef THPCTL_CMD_LEDGER_H
#define THPCTL_CMD_LEDGER_H

#include "../kernel/ledger.h"
#include "../model/ledger.h"
#include "common.h"

#define LEDGER_K 8 /* subpages sampled per PMD THP */

/* What a view asks of the ledger, and the host facts it needs. */
struct ledger_req {
	int k;		/* subpages sampled per THP; 0: no invented estimate */
	bool held;	/* look for partially mapped folios (root) */
	bool held_none; /* the host's counters say there are none: no walk (ledger_req_held_host) */
	double budget_ms;   /* per process */
	const char *policy; /* the PMD size's anon policy, NULL unknown */
	long max_ptes_none; /* -1 unknown */
	unsigned page_kb;
	int pmd_order;
};

/* Fill Q's host facts (policy into POLICY[n], max_ptes_none, page geometry) for SR. */
void ledger_req_host(const struct sysroot *sr, struct ledger_req *q, char *policy, size_t n);

/*
 * Q->held_none for SR now: whether the host's counters show no partially
 * mapped anonymous large folio and no anonymous mTHP (6.12+; a live system
 * only), so that held is 0 for every process without a walk. A long-running
 * caller calls it before each round (ledger_req_host calls it once).
 */
void ledger_req_held_host(const struct sysroot *sr, struct ledger_req *q);

/*
 * The ledger of PID into L. LV and T: its VMAs (ledger_vmas_add) and smaps
 * sums when the caller already read smaps, else NULL to read them here (T
 * gives AnonHugePages, Rss, LazyFree, Referenced; NULL with LV: unknown).
 * Returns 0 (parts unknown say why in L), -ESRCH when the process is gone,
 * or -ENOMEM.
 */
int ledger_for_pid(const struct sysroot *sr, pid_t pid, const struct ledger_req *q,
		   const struct ledger_vmas *lv, const struct smaps_totals *t,
		   struct thp_ledger *l);

struct proc_thp;
/*
 * `ps --ledger`: the ledger of P (a proc_thp from full smaps) into L, LV its
 * VMAs gathered in the same smaps walk (proc_thp_collect_lv()). Scans
 * it when it has PMD THPs, hg VMAs, or eligible VMAs under enabled=always;
 * otherwise fills what is known without a scan (nothing invented without a
 * PMD THP, no creep where khugepaged has nothing to collapse; held unknown).
 * Returns 0 or -ENOMEM.
 */
int ledger_for_proc(const struct sysroot *sr, const struct ledger_req *q, const struct proc_thp *p,
		    const struct ledger_vmas *lv, struct thp_ledger *l);

#endif
