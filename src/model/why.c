// SPDX-License-Identifier: MIT
#include "why.h"

#include <errno.h>
#include <string.h>

#include "../util/names.h"
#include "slot.h"

static const char *const effect_names[] = {
	[WE_HELPS] = "helps", [WE_HINDERS] = "hinders", [WE_UNKNOWN] = "unknown"};

const char *why_effect_name(enum why_effect e)
{
	return ENUM_NAME(effect_names, e, "neutral");
}

/* ---- explain ---- */

struct why_line *why_line_new(struct why_report *r, const char *topic, enum why_effect e,
			      enum why_id id, enum kpath file, long long arg, const char *name)
{
	struct why_line *l = SLOT_TAKE(r->lines, r->n);
	if (!l)
		return NULL;
	l->topic = topic;
	l->effect = e;
	l->id = id;
	l->src = (struct why_src){file, arg, name};
	return l;
}

const char *why_source(const struct why_line *l, char *out, size_t n)
{
	return evidence_path(l->src.file, l->src.arg, l->src.name, out, n);
}

/* A line with no evidence beyond its id, or whose caller fills the evidence (NULL when full). */
#define add(r, topic, e, id, file, arg, name) why_line_new(r, topic, e, id, file, arg, name)

static const char *sel(const struct choice *c)
{
	return c->present ? c->selected : NULL;
}

static bool is(const char *v, const char *w)
{
	return v && strcmp(v, w) == 0;
}

/* The effective PMD anon policy, how it was resolved and its file. */
struct policy {
	const char *eff; /* NULL unknown */
	const char *size_val;
	const char *top;
	uint64_t pmd_kb;
	enum kpath file;
};

static void pmd_policy(const struct host_snapshot *h, struct policy *p)
{
	memset(p, 0, sizeof(*p));
	p->pmd_kb = h->feat.pmd_size / 1024;
	const struct thp_size *sz = p->pmd_kb ? thp_size_find(&h->thp, p->pmd_kb) : NULL;
	p->top = sel(&h->thp.enabled);
	if (sz && sz->enabled.present) {
		p->eff = sz->eff_enabled;
		p->size_val = sz->enabled.selected;
		p->file = KP_THP_SIZE_ENABLED;
	} else {
		p->eff = p->top;
		p->file = KP_THP_ENABLED;
	}
}

static void explain_policy(const struct why_input *in, const struct policy *p, struct why_report *r)
{
	const struct why_vmas *v = &in->vmas;
	struct why_line *l;
	if (!in->h->thp.present) {
		add(r, "policy", WE_HINDERS, WI_POLICY_NO_THP, KP_THP_DIR, 0, NULL);
		return;
	}
	enum kpath f = p->file;
	long long sz = (long long)p->pmd_kb;
	if (!p->eff) {
		add(r, "policy", WE_UNKNOWN, WI_POLICY_UNREAD, f, sz, NULL);
		return;
	}
	bool known = in->smaps_err == 0;
	/* enabled rules anonymous memory: its hg shmem follows shmem_enabled instead */
	int hg_shm = 0;
	uint64_t hg_shm_kb = 0;
	for (int k = SHK_NONE + 1; k < SHK_N; k++) {
		hg_shm += v->hg_shm[k].vmas;
		hg_shm_kb += v->hg_shm[k].kb;
	}
	if (is(p->eff, "always"))
		l = add(r, "policy", WE_HELPS, WI_POLICY_ALWAYS, f, sz, NULL);
	else if (is(p->eff, "madvise"))
		l = add(r, "policy",
			known && v->hg > hg_shm ? WE_HELPS
			: known && v->hg	? WE_NEUTRAL
			: known			? WE_HINDERS
						: WE_UNKNOWN,
			WI_POLICY_MADVISE, f, sz, NULL);
	else if (is(p->eff, "never"))
		l = add(r, "policy", WE_HINDERS, WI_POLICY_NEVER, f, sz, NULL);
	else
		l = add(r, "policy", WE_UNKNOWN, WI_POLICY_OTHER, f, sz, NULL);
	if (l)
		l->ev.policy = (struct why_ev_policy){.pmd_kb = p->pmd_kb,
						      .eff = p->eff,
						      .size_val = p->size_val,
						      .top = p->top,
						      .vmas_known = known,
						      .hg = v->hg,
						      .hg_kb = v->hg_kb,
						      .hg_shm = hg_shm,
						      .hg_shm_kb = hg_shm_kb};
}

static void explain_mthp(const struct why_input *in, const struct policy *p, struct why_report *r)
{
	const struct host_snapshot *h = in->h;
	if (!h->thp.present)
		return;
	struct why_ev_mthp m = {0};
	for (int i = 0; i < h->thp.nsizes; i++) {
		const struct thp_size *sz = &h->thp.sizes[i];
		if (!sz->enabled.present || sz->size_kb == p->pmd_kb)
			continue;
		m.sizes++;
		if (!sz->eff_enabled || is(sz->eff_enabled, "never"))
			continue;
		if (m.on < WHY_MAX_MTHP) {
			m.s[m.on].kb = sz->size_kb;
			m.s[m.on].policy = sz->eff_enabled;
		}
		m.on++;
		m.any_madvise |= is(sz->eff_enabled, "madvise");
	}
	struct why_line *l;
	if (m.sizes == 0)
		l = add(r, "mthp", WE_NEUTRAL, WI_MTHP_NO_SIZES, KP_THP_DIR, 0, NULL);
	else if (m.on == 0)
		l = add(r, "mthp", WE_NEUTRAL, WI_MTHP_OFF, KP_THP_SIZES_ENABLED, 0, NULL);
	else
		l = add(r, "mthp", WE_HELPS, WI_MTHP_ON, KP_THP_SIZES_ENABLED, 0, NULL);
	if (l)
		l->ev.mthp = m;
}

static void explain_defrag(const struct why_input *in, const struct policy *p, struct why_report *r)
{
	const struct host_snapshot *h = in->h;
	const char *d = sel(&h->thp.defrag);
	if (!h->thp.present)
		return;
	if (!d) {
		add(r, "defrag", WE_UNKNOWN, WI_DEFRAG_UNREAD, KP_THP_DEFRAG, 0, NULL);
		return;
	}
	struct why_ev_defrag e = {
		.defrag = d,
		.prctl_off = in->st.thp_enabled == 0,
		.always = is(p->eff, "always"),
		.vmas_known = in->smaps_err == 0,
	};
	/* hg shmem its policy keeps from huge pages never stalls: not counted */
	why_hg_shmem_off(in, &e.shm);
	e.hg = in->vmas.hg - e.shm.vmas;
	e.has_stall = kv_get(&h->vmstat, "compact_stall", &e.compact_stall);
	bool off = in->st.thp_enabled == 0 || is(p->eff, "never");
	static const char *const known[] = {"always", "madvise", "defer+madvise", "defer", "never"};
	bool k = false;
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		k |= is(d, known[i]);
	struct why_line *l = add(r, "defrag", off || k ? WE_NEUTRAL : WE_UNKNOWN,
				 off ? WI_DEFRAG_NO_FAULTS : WI_DEFRAG, KP_THP_DEFRAG, 0, NULL);
	if (l)
		l->ev.defrag = e;
}

static void explain_khugepaged(const struct why_input *in, const struct policy *p,
			       struct why_report *r)
{
	const struct host_snapshot *h = in->h;
	if (!h->thp.present || !p->eff || is(p->eff, "never") || in->st.thp_enabled == 0)
		return;
	const struct opt_u64 *mpn = &h->thp.khp[KHP_MAX_PTES_NONE];
	struct why_ev_khp e = {
		.always = is(p->eff, "always"), .has_mpn = mpn->present, .mpn = mpn->v};
	e.per = h->feat.pmd_size && h->feat.page_size > 0
			? h->feat.pmd_size / (uint64_t)h->feat.page_size
			: 512;
	const struct why_vmas *v = &in->vmas;
	/* khugepaged does not collapse what the shmem policy forbids */
	why_hg_shmem_off(in, &e.shm);
	e.nothing = in->smaps_err == 0 &&
		    (e.always ? v->has_eligible && v->eligible == 0 && !v->t.kb[SM_ANON_HUGE]
			      : v->has_vmflags && e.shm.live == 0);
	/* fully huge already: nothing left to collapse (it may help later, after frees) */
	uint64_t anon = v->t.kb[SM_ANONYMOUS], huge = v->t.kb[SM_ANON_HUGE];
	e.full = in->smaps_err == 0 && !e.nothing &&
		 (e.always ? anon && huge >= anon
			   : v->hg_rss_kb && v->hg_pmd_huge_kb >= v->hg_rss_kb && !e.shm.vmas);
	/* VMAs unknown: it may have no region khugepaged would touch, so it does not help */
	e.smaps_err = in->smaps_err;
	e.recorded = in->recorded;
	/* a collapse there needs a PMD of charge the cgroup does not have: it cannot help now */
	why_cg_room_of(in, &e.cg);
	enum why_effect eff = e.smaps_err					       ? WE_UNKNOWN
			      : mpn->present && !e.nothing && !e.full && !e.cg.starved ? WE_HELPS
										       : WE_NEUTRAL;
	struct why_line *l = add(r, "khugepaged", eff, WI_KHP, KP_THP_MAX_PTES_NONE, 0, NULL);
	if (l)
		l->ev.khp = e;
}

static void explain_prctl(const struct why_input *in, struct why_report *r)
{
	int te = in->st.thp_enabled;
	const struct thp_chain *c = &in->chain;
	/* unknown (a tree that did not record the probe) is not no: the caveat stays, unless
	 * the recorded kernel is older than the flag (6.18) */
	const struct features *ft = &in->h->feat;
	struct why_ev_prctl e = {.except_advised =
					 ft->except_advised == TRI_YES ||
					 (ft->except_advised == TRI_UNKNOWN &&
					  !(ft->kver[0] && !kver_at_least(ft->kver, 6, 18)))};
	enum why_id id;
	if (te < 0) {
		id = WI_PRCTL_NO_LINE;
	} else if (te == 1) {
		id = WI_PRCTL_ON;
	} else if (!in->chain_walked) {
		id = WI_PRCTL_OFF;
	} else if (c->n) {
		id = WI_PRCTL_INHERITED;
		e.pid = c->a[c->n - 1].pid;
		e.comm = c->a[c->n - 1].comm;
		e.generations = c->n;
		e.cut = c->cut;
	} else if (c->stop_thp_enabled == 1 && why_chain_broken(c->stop_pid, c->stop_comm)) {
		id = WI_PRCTL_ORPHANED;
		e.pid = c->stop_pid;
		e.comm = c->stop_comm;
	} else if (c->stop_thp_enabled == 1) {
		id = WI_PRCTL_SELF;
		e.pid = in->st.ppid;
	} else {
		id = WI_PRCTL_PARENT_UNKNOWN;
	}
	enum why_effect ef = te < 0 ? WE_UNKNOWN : te == 1 ? WE_NEUTRAL : WE_HINDERS;
	struct why_line *l = add(r, "prctl", ef, id, KP_PROC_FILE, in->pid, "status");
	if (l)
		l->ev.prctl = e;
}

/* A line about the VMAs of IN, from its smaps. */
static struct why_line *vl(const struct why_input *in, struct why_report *r, const char *topic,
			   enum why_effect e, enum why_id id, struct why_ev_vmas ev)
{
	struct why_line *l = add(r, topic, e, id, KP_PROC_FILE, in->pid, "smaps");
	if (l)
		l->ev.vmas = ev;
	return l;
}

static void explain_vma_flags(const struct why_input *in, const struct policy *p,
			      struct why_report *r)
{
	const struct why_vmas *v = &in->vmas;
	struct why_shm_off off;
	why_hg_shmem_off(in, &off);
	if (v->hg)
		vl(in, r, "hg", off.live ? WE_HELPS : WE_NEUTRAL, WI_HG,
		   (struct why_ev_vmas){.count = v->hg,
					.total = v->nvmas,
					.kb = v->hg_kb,
					.huge_kb = v->hg_huge_kb,
					.largest = &v->largest_hg,
					.shm = off});
	else
		vl(in, r, "hg", is(p->eff, "madvise") ? WE_HINDERS : WE_NEUTRAL, WI_HG_NONE,
		   (struct why_ev_vmas){.total = v->nvmas, .madvise = is(p->eff, "madvise")});
	why_explain_nh(v, in->pid, r);
}

static void explain_vmas(const struct why_input *in, const struct policy *p, struct why_report *r)
{
	if (in->smaps_err) {
		vl(in, r, "vmas", WE_UNKNOWN, WI_VMAS_UNREAD,
		   (struct why_ev_vmas){.err = in->smaps_err, .recorded = in->recorded});
		return;
	}
	const struct why_vmas *v = &in->vmas;
	if (!v->has_vmflags)
		vl(in, r, "vmas", WE_UNKNOWN, WI_VMAS_NO_VMFLAGS,
		   (struct why_ev_vmas){.total = v->nvmas});
	if (v->has_vmflags)
		explain_vma_flags(in, p, r);
	if (v->has_eligible)
		vl(in, r, "eligible", v->eligible ? WE_HELPS : WE_NEUTRAL, WI_ELIGIBLE,
		   (struct why_ev_vmas){.count = v->eligible, .total = v->nvmas});
	if (v->huge_not_hg)
		vl(in, r, "collapsed", WE_HELPS, WI_COLLAPSED,
		   (struct why_ev_vmas){.count = v->huge_not_hg, .huge_kb = v->huge_not_hg_kb});
	if (v->hugetlb_vmas)
		vl(in, r, "hugetlb", WE_NEUTRAL, WI_HUGETLB,
		   (struct why_ev_vmas){.count = v->hugetlb_vmas, .kb = v->hugetlb_kb});
	if (v->has_vmflags) {
		if (!v->stack_found)
			vl(in, r, "stack", WE_NEUTRAL, WI_STACK_NONE, (struct why_ev_vmas){0});
		else
			vl(in, r, "stack", WE_NEUTRAL, WI_STACK,
			   (struct why_ev_vmas){
				   .count = 1, .kb = v->stack_kb, .flags = v->stack_flags});
		why_explain_thread_stacks(v, in->pid, r);
	}
	if (in->smaps_truncated)
		vl(in, r, "vmas", WE_UNKNOWN, WI_SMAPS_TRUNCATED, (struct why_ev_vmas){0});
}

static void explain_hints(const struct why_input *in, struct why_report *r)
{
	struct why_line *l = NULL;
	if (in->environ_err)
		l = add(r, "environ", WE_UNKNOWN, WI_ENV_UNREAD, KP_PROC_FILE, in->pid, "environ");
	else if (in->environ_overwritten)
		add(r, "environ", WE_UNKNOWN, WI_ENV_OVERWRITTEN, KP_PROC_FILE, in->pid, "environ");
	else if (in->nenv == 0)
		add(r, "environ", WE_NEUTRAL, WI_ENV_NONE, KP_PROC_FILE, in->pid, "environ");
	if (l)
		l->ev.env = (struct why_ev_env){.err = in->environ_err, .recorded = in->recorded};
	for (int i = 0; i < in->nenv; i++)
		if ((l = add(r, "environ", in->env[i].effect, WI_ENV_HINT, KP_PROC_FILE, in->pid,
			     "environ")))
			l->ev.env.hint = &in->env[i];
	for (int i = 0; in->cmdline_err == 0 && i < in->ncmd; i++)
		if ((l = add(r, "cmdline", in->cmd[i].effect, WI_CMD_HINT, KP_PROC_FILE, in->pid,
			     "cmdline")))
			l->ev.env.hint = &in->cmd[i];
}

static void verdict(const struct why_input *in, const struct policy *p, struct why_report *r)
{
	const struct host_snapshot *h = in->h;
	const struct why_vmas *v = &in->vmas;
	struct why_summary *s = &r->sum;
	s->led = &in->led;
	if (in->st.thp_enabled == 0) {
		/* PR_SET_THP_DISABLE stops new huge pages; it splits none it had, and a child
		 * forked with it shares its parent's: those are still huge pages */
		bool held = !in->smaps_err && v->t.kb[SM_ANON_HUGE] > 0;
		r->verdict = held ? WV_HUGE : WV_NONE;
		s->id = held ? WS_PRCTL_HELD : WS_PRCTL;
		s->huge_kb = held ? v->t.kb[SM_ANON_HUGE] : 0;
		if (in->chain_walked && in->chain.n) {
			s->id = held ? WS_PRCTL_HELD : WS_PRCTL_INHERITED;
			s->pid = in->chain.a[in->chain.n - 1].pid;
			s->comm = in->chain.a[in->chain.n - 1].comm;
		}
		return;
	}
	if (in->smaps_err) {
		r->verdict = WV_UNKNOWN;
		s->id = WS_UNKNOWN;
		return;
	}
	s->huge_kb = v->t.kb[SM_ANON_HUGE];
	s->anon_kb = v->t.kb[SM_ANONYMOUS];
	s->cost = ledger_top_cost(&in->led);
	s->always = is(p->eff, "always");
	s->hg_small_kb = v->hg_rss_kb > v->hg_pmd_huge_kb ? v->hg_rss_kb - v->hg_pmd_huge_kb : 0;
	/* small pages in hg shmem its policy keeps from huge pages were not faulted too early */
	why_hg_shmem_off(in, &s->shm);
	s->hg_small_kb = s->hg_small_kb > s->shm.small_kb ? s->hg_small_kb - s->shm.small_kb : 0;
	/* that shmem is all or most of its hg memory: the shmem policy is the reason */
	bool shm_main = s->shm.vmas &&
			(!s->shm.live || (s->shm.small_kb && s->shm.small_kb >= s->hg_small_kb));
	/* most of its anonymous memory opted out (nh, thread stacks aside): its own choice */
	uint64_t nh_anon =
		v->nh_anon_kb > v->stack_nh_anon_kb ? v->nh_anon_kb - v->stack_nh_anon_kb : 0;
	bool nh_main = nh_anon && nh_anon * 2 >= s->anon_kb;
	s->has_fallback = kv_get(&h->vmstat, "thp_fault_fallback", &s->fallback);
	s->shmem_pmd_kb = smaps_has(&v->t, SM_SHMEM_PMD) ? v->t.kb[SM_SHMEM_PMD] : 0;
	s->file_pmd_kb = smaps_has(&v->t, SM_FILE_PMD) ? v->t.kb[SM_FILE_PMD] : 0;
	if (s->huge_kb) {
		r->verdict = WV_HUGE;
		s->how = v->hg_huge_kb ? WH_HG : s->always ? WH_ALWAYS : WH_COLLAPSED;
		s->id = s->cost == LC_INVENTED ? WS_HUGE_BLOATED : WS_HUGE;
		return;
	}
	if (s->shmem_pmd_kb || s->file_pmd_kb) { /* PMD-mapped, but not anonymous memory */
		r->verdict = WV_HUGE;
		s->id = WS_HUGE_SHARED;
		return;
	}
	r->verdict = WV_NONE;
	s->id = WS_NONE;
	s->prctl_unseen = in->st.thp_enabled < 0;
	if (!h->thp.present)
		s->none = WN_NO_THP;
	else if (shm_main && is(p->eff, "never")) /* shmem_enabled rules it, not enabled */
		s->none = WN_SHMEM_OFF, s->pmd_never = true;
	else if (is(p->eff, "never"))
		s->none = WN_NEVER;
	else if (nh_main && s->cost == LC_NONE) {
		s->none = WN_NH_OPTED;
		s->nh_anon_kb = nh_anon;
		s->madvise_no_hg = is(p->eff, "madvise") && v->hg == 0;
	} else if (is(p->eff, "madvise") && v->hg == 0)
		s->none = WN_MADVISE_NO_HG;
	else if (s->cost == LC_NONE && in->led.held_kb > 0 && in->led.partial_folios)
		s->id = WS_NONE_HELD;
	else if (shm_main)
		s->none = WN_SHMEM_OFF;
	else if (v->hg && s->hg_small_kb)
		s->none = WN_HG_SMALL;
	else if (v->hg)
		s->none = WN_HG_NONE;
	else if (s->always)
		s->none = WN_ALWAYS_NONE;
	else
		s->none = WN_OTHER;
}

void why_explain(const struct why_input *in, struct why_report *out)
{
	memset(out, 0, sizeof(*out));
	struct policy p;
	pmd_policy(in->h, &p);
	verdict(in, &p, out);
	explain_prctl(in, out);
	explain_policy(in, &p, out);
	explain_mthp(in, &p, out);
	explain_defrag(in, &p, out);
	explain_khugepaged(in, &p, out);
	explain_vmas(in, &p, out);
	why_explain_stall(in, out);
	why_explain_shmem(in, out);
	explain_hints(in, out);
	why_explain_cgroup(in, out);
	/* collapses need a PMD of charge each: creep cannot pass the cgroup's headroom */
	why_cg_room_of(in, &out->room);
	out->creep_cg_bound = in->led.creep_cg_bounded; /* why_creep_cg */
	/* with THP off by prctl nothing else can help */
	if (in->st.thp_enabled == 0)
		for (int i = 0; i < out->n; i++)
			if (out->lines[i].effect == WE_HELPS)
				out->lines[i].effect = WE_NEUTRAL;
}
