// SPDX-License-Identifier: MIT
#include "ledger.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "../kernel/sysfs.h"
#include "../kernel/proc_read.h"
#include "../kernel/proc_thp.h"
#include "../kernel/thp_settings.h"
#include "folios.h"

void ledger_req_host(const struct sysroot *sr, struct ledger_req *q, char *policy, size_t n)
{
	q->policy = thp_pmd_policy(sr, policy, n) == 0 ? policy : NULL;
	uint64_t v;
	q->max_ptes_none = -1;
	if (thp_knob_u64(sr, "khugepaged/max_ptes_none", &v) == 0 && v < 1u << 16)
		q->max_ptes_none = (long)v;
	struct folio_geom g;
	folio_geom_host(sr, 0, &g);
	q->page_kb = (unsigned)g.page_kb;
	q->pmd_order = g.pmd_order;
	ledger_req_held_host(sr, q);
}

void ledger_req_held_host(const struct sysroot *sr, struct ledger_req *q)
{
	/* a recorded tree too: its counters were read at the capture, as a command reads them at
	 * its start */
	q->held_none = q->held && q->page_kb && q->pmd_order > 0 &&
		       ledger_host_no_held(sr, q->page_kb << q->pmd_order) == 1;
}

struct lv_ctx {
	struct ledger_vmas *lv;
	const char *policy;
};

static int add_vma(const struct smaps_vma *v, void *arg)
{
	struct lv_ctx *c = arg;
	ledger_vmas_add(c->lv, v, c->policy);
	return c->lv->err;
}

int ledger_for_pid(const struct sysroot *sr, pid_t pid, const struct ledger_req *q,
		   const struct ledger_vmas *lv, const struct smaps_totals *t, struct thp_ledger *l)
{
	struct ledger_vmas own = {0};
	struct smaps_totals own_t;
	ledger_unknown(-1, l);
	ledger_smaps(l, t);
	if (!sr->live) { /* a recorded tree has no pagemap: every part stays unknown */
		l->invented_gap = l->held_gap = l->creep_gap = LG_RECORDED;
		if (q->held_none) /* but its counters may say there is nothing held */
			ledger_held_none(l);
		return 0;
	}
	if (!lv) {
		struct proc_info pi = {0};
		struct lv_ctx c = {&own, q->policy};
		pi.vma_cb = add_vma;
		pi.vma_ctx = &c;
		int r = proc_read(sr, pid, PROC_SMAPS, &pi);
		int e = pi.smaps_err;
		if (!r && !e) {
			own_t = pi.t;
			t = &own_t;
		}
		proc_info_free(&pi);
		if (r == -ESRCH || e == -ESRCH || e == -ENOENT) {
			ledger_vmas_free(&own);
			return -ESRCH;
		}
		if (own.err || r == -ENOMEM) {
			ledger_vmas_free(&own);
			return -ENOMEM;
		}
		if (e) {
			ledger_vmas_free(&own);
			return 0; /* smaps unreadable: unknown */
		}
		lv = &own;
	}
	struct ledger_opts o = {
		.k = q->k,
		.held = q->held && !q->held_none, /* none on the host: no walk to make */
		.budget_ms = q->budget_ms,
		.max_ptes_none = q->max_ptes_none,
		.page = q->page_kb * 1024,
		.pmd_order = q->pmd_order,
	};
	struct ledger_raw raw;
	int r = ledger_scan(sr, pid, lv->v, lv->n, &o, &raw);
	ledger_vmas_free(&own);
	if (r == -ESRCH || r == -ENOMEM)
		return r;
	int64_t ahp = t && smaps_has(t, SM_ANON_HUGE) ? (int64_t)t->kb[SM_ANON_HUGE] : -1;
	ledger_build(ahp, &raw, r, q->k, q->held, q->max_ptes_none, q->page_kb, q->pmd_order, l);
	if (q->held_none)
		ledger_held_none(l);
	ledger_smaps(l, t);
	return 0;
}

int ledger_for_proc(const struct sysroot *sr, const struct ledger_req *q, const struct proc_thp *p,
		    const struct ledger_vmas *lv, struct thp_ledger *l)
{
	int64_t ahp = smaps_has(&p->t, SM_ANON_HUGE) ? (int64_t)p->t.kb[SM_ANON_HUGE] : -1;
	bool always = q->policy && !strcmp(q->policy, "always");
	if (ahp != 0 || p->hg_vmas || (always && p->eligible_vmas)) {
		int e = ledger_for_pid(sr, p->pid, q, lv, &p->t, l);
		if (e == -ESRCH) /* gone meanwhile: its row stays unknown */
			ledger_unknown(ahp, l);
		return e == -ESRCH ? 0 : e;
	}
	ledger_unknown(ahp, l);
	ledger_smaps(l, &p->t);
	if (q->held_none)
		ledger_held_none(l);
	l->invented_kb = 0; /* no PMD-mapped THP: nothing invented inside one */
	l->method = LM_EXACT;
	l->invented_gap = LG_OK;
	if (q->policy && q->max_ptes_none >= 0) {
		l->creep_kb = 0;
		l->creep_gap = LG_OK;
		l->max_ptes_none = q->max_ptes_none;
	}
	return 0;
}
