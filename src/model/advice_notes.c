// SPDX-License-Identifier: MIT
/* advise's notes: what the advice leaves to the operator, and why (model/advice.c calls it). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "advice_int.h"
#include "skips.h"

static bool finding_addressed(const char *id)
{
	static const char *const ids[] = {"defrag-always", "always-max-ptes-none", "cow-copy",
					  "shrink-underused-noop", "settings-read-only"};
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		if (strcmp(id, ids[i]) == 0)
			return true;
	return false;
}

/*
 * status's finding shrink-underused-noop suggests a lower max_ptes_none; when the settings
 * above do not lower it (no process with invented or creep memory over the ledger's flag, or
 * no ledger), say why, so that status and advise do not seem to disagree.
 */
static void note_shrink_undecided(struct adv_ctx *c)
{
	const struct adv_input *in = c->in;
	const struct advice *a = c->out;
	const struct finding *f = NULL;
	for (int i = 0; in->fs && i < in->fs->n; i++)
		if (in->fs->f[i].kind == FK_SHRINK_UNDERUSED_NOOP)
			f = &in->fs->f[i];
	if (!f)
		return;
	for (int i = 0; i < a->nsettings; i++)
		if (!strcmp(a->s[i].key, "khugepaged/max_ptes_none") && a->s[i].change)
			return; /* lowered for this rule or another: the settings cover it */
	struct adv_note *n = adv_note(c->out, AN_INFO, ANI_SHRINK_UNDECIDED);
	if (!n)
		return;
	n->finding = f;
	n->ledger_scan = in->ledger_scan;
	n->n = in->ledger_scanned;
	n->of = in->ledger_unreadable + in->ledger_failed;
	n->flagged = in->sparse_procs;
	n->thp_off = c->enabled_res == 2;
	/* no ledger read, or processes root could read were not: the setting is undecided,
	 * not "nothing asks for a change" (as root, what even root cannot read stays partial) */
	if (in->ledger_scan != 1 || !in->ledger_scanned ||
	    (in->ledger_unreadable && !in->as_root)) {
		c->out->undecided = f;
		c->out->undecided_scan = in->ledger_scan;
		c->out->undecided_read = in->ledger_scanned;
		c->out->undecided_unread = n->of;
	}
}

void advice_notes(struct adv_ctx *c)
{
	const struct adv_input *in = c->in;
	const struct host_snapshot *h = in->h;
	struct advice *a = c->out;
	struct adv_note *n;
	/* the conflict on a mixed host, named, with the way out: who needs the host value */
	const char *needs[ADV_MAX_NEEDS];
	int nneeds = 0;
	for (int i = 0; i < c->nw; i++) {
		const struct want *w = &c->w[i];
		if (w->key != AK_ENABLED || w->per_process || c->enabled_res < 0 ||
		    !(w->accept & (1u << c->enabled_res)))
			continue;
		const char *who = w->wl >= 0 ? workload_title((enum workload)w->wl) : w->why.who;
		bool seen = false;
		for (int k = 0; k < nneeds; k++)
			seen |= !strcmp(needs[k], who);
		if (!seen && nneeds < ADV_MAX_NEEDS)
			needs[nneeds++] = who;
	}
	for (int w = 0; w < WL_N; w++)
		if (c->pp_off[w] && (n = adv_note(a, AN_CONFLICT, ANI_PER_PROCESS))) {
			n->wl = w;
			n->nneeds = nneeds;
			memcpy(n->needs, needs, sizeof(needs));
			n->value = adv_enabled_vals[c->enabled_res];
		}
	if (a->wl[WL_MONGODB7].active && in->mongodb_assumed)
		adv_note(a, AN_ASSUMPTION, ANI_MONGODB_ASSUMED);
	for (int i = 0; i < in->nprocs; i++) {
		const struct adv_proc *p = &in->procs[i];
		if ((p->wl == WL_MONGODB7 || p->wl == WL_MONGODB8) && p->has_ver &&
		    (n = adv_note(a, AN_INFO, ANI_MONGODB_VERSION))) {
			n->pid = p->pid;
			n->ver[0] = p->ver[0];
			n->ver[1] = p->ver[1];
			n->ver_src = p->ver_src;
		}
	}
	/* -ENODATA: a recorded tree that cannot say (not recorded) */
	if (h->thp.write_err && h->thp.write_err != -ENOENT && h->thp.write_err != -ENODATA &&
	    (n = adv_note(a, AN_INFO, ANI_NOT_WRITABLE)))
		n->err = h->thp.write_err;
	/* findings of `thpctl status` that the settings above do not cover */
	for (int i = 0; in->fs && i < in->fs->n; i++) {
		const struct finding *f = &in->fs->f[i];
		if (f->sev < SEV_WARN || finding_addressed(f->id))
			continue;
		/* the watch note below covers it */
		if (strcmp(f->id, "compact-stall") == 0)
			continue;
		if ((n = adv_note(a, AN_FINDING, ANI_FINDING)))
			n->finding = f;
	}
	/* watch compact_stall */
	uint64_t cs;
	if (kv_get(&h->vmstat, "compact_stall", &cs) &&
	    (n = adv_note(a, AN_WATCH, ANI_WATCH_STALL))) {
		n->compact_stall = cs;
		n->uptime_s = h->uptime_s > 0 ? h->uptime_s : 0;
		n->defrag = c->defrag_res;
		n->cause = compact_stall_cause(
			defrag_word_stalls(c->defrag_res >= 0 ? adv_defrag_vals[c->defrag_res]
							      : NULL),
			&h->vmstat);
	}
	if (in->unreadable && (n = adv_note(a, AN_INFO, ANI_UNREADABLE))) {
		n->n = in->unreadable;
		n->of = in->unreadable_of;
		n->recorded = in->recorded;
		n->smaps = in->ledger_scan == 1 ? in->ledger_unreadable : -1;
		n->as_root = in->as_root;
	}
	if (in->small_go && (n = adv_note(a, AN_INFO, ANI_SMALL_GO)))
		n->n = in->small_go;
	note_shrink_undecided(c);
}

int advice_flagged_cmp(const struct remedy_proc *a, const struct remedy_proc *b)
{
	enum ledger_cost ca = ledger_top_cost(&a->led), cb = ledger_top_cost(&b->led);
	if ((ca == LC_NONE) != (cb == LC_NONE))
		return ca == LC_NONE ? 1 : -1;
	int64_t ka = ca == LC_NONE ? a->led.pte_full_kb : ledger_cost_kb(&a->led, ca);
	int64_t kb = cb == LC_NONE ? b->led.pte_full_kb : ledger_cost_kb(&b->led, cb);
	if (ka != kb)
		return ka > kb ? -1 : 1;
	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

/* The remedies listed in the order of advice_flagged_cmp (stable insertion sort). */
static void remedies_order(struct advice *a)
{
	for (int i = 1; i < a->nrem; i++)
		for (int j = i; j > 0 && advice_flagged_cmp(a->rem[j].p, a->rem[j - 1].p) < 0;
		     j--) {
			struct remedy t = a->rem[j];
			a->rem[j] = a->rem[j - 1];
			a->rem[j - 1] = t;
		}
}

/* The max_ptes_none the settings recommend (*V), when they change it: the report's one value. */
static bool mpn_plan(const struct advice *a, long *v)
{
	for (int i = 0; i < a->nsettings; i++) {
		const struct adv_setting *s = &a->s[i];
		char *end;
		if (strcmp(s->key, "khugepaged/max_ptes_none") || !s->change)
			continue;
		errno = 0;
		*v = strtol(s->want, &end, 10);
		return !errno && end != s->want && !*end && *v >= 0;
	}
	return false;
}

void advice_remedies(struct adv_ctx *c)
{
	const struct adv_input *in = c->in;
	const struct host_snapshot *h = in->h;
	struct advice *a = c->out;
	uint64_t pmd_kb = h->feat.pmd_size / 1024;
	const struct thp_size *sz = pmd_kb ? thp_size_find(&h->thp, pmd_kb) : NULL;
	const char *eff = sz && sz->enabled.present ? sz->eff_enabled
			  : h->thp.enabled.present  ? h->thp.enabled.selected
						    : NULL;
	const struct opt_u64 *mpn = &h->thp.khp[KHP_MAX_PTES_NONE];
	struct remedy_host host = {
		.always = eff && !strcmp(eff, "always"),
		.max_ptes_none = mpn->present ? (long)mpn->v : -1,
		.max_ptes_none_max = c->pmd_pages ? (long)c->pmd_pages - 1 : 0,
		.shrink_underused =
			h->thp.shrink_underused.present && h->thp.shrink_underused.v == 1,
		.systemd_thp = in->systemd_thp,
		.nothers = in->nothers,
		.others = in->ledger_scan == 1 ? in->others : NULL,
	};
	host.mpn_planned = mpn_plan(a, &host.mpn_plan); /* the settings come first */
	host.policy = eff;
	host.fault_alloc.present = kv_get(&h->vmstat, "thp_fault_alloc", &host.fault_alloc.v);
	host.collapse_alloc.present =
		kv_get(&h->vmstat, "thp_collapse_alloc", &host.collapse_alloc.v);
	a->nrem = a->nrem_cost = a->nrem_gain = 0;
	for (int i = 0; i < in->nflagged && a->nrem < ADV_MAX_FLAGGED; i++)
		if (remedy_build(&in->flagged[i], &host, &a->rem[a->nrem])) {
			if (a->rem[a->nrem].mech == RM_WOULD_GAIN)
				a->nrem_gain++;
			else
				a->nrem_cost++;
			a->nrem++;
		}
	remedies_order(a);
}

void advice_ledger_count(struct adv_input *in, const struct thp_ledger *l)
{
	bool inv = ledger_cost_flagged(l, LC_INVENTED), creep = ledger_cost_flagged(l, LC_CREEP);
	if (inv) {
		in->invented_procs++;
		in->invented_kb += l->invented_kb;
		in->invented_sampled |= l->method == LM_SAMPLED;
	}
	if (creep) {
		in->creep_procs++;
		in->creep_kb += l->creep_kb;
	}
	in->sparse_procs += inv || creep;
}

int advice_exe_denied(struct adv_input *in, long pid)
{
	in->unreadable++;
	if (in->nexe_denied == in->exe_denied_cap) {
		int nc = in->exe_denied_cap ? in->exe_denied_cap * 2 : 16;
		long *p = realloc(in->exe_denied, (size_t)nc * sizeof(*p));
		if (!p)
			return -ENOMEM;
		in->exe_denied = p;
		in->exe_denied_cap = nc;
	}
	in->exe_denied[in->nexe_denied++] = pid;
	return 0;
}

void advice_input_free(struct adv_input *in)
{
	free(in->exe_denied);
	in->exe_denied = NULL;
	in->nexe_denied = in->exe_denied_cap = 0;
}

void advice_count_unreadable(struct adv_input *in, long pid, bool smaps_denied)
{
	bool exe = false;
	for (int i = 0; i < in->nexe_denied && !exe; i++)
		exe = in->exe_denied[i] == pid;
	in->ledger_unreadable += smaps_denied;
	in->unreadable += smaps_denied || exe;
}

bool advice_ledger_partial(const struct adv_input *in)
{
	return in->ledger_scan == 1 && (in->ledger_unreadable > 0 || in->ledger_failed > 0);
}

bool advice_partial(const struct adv_input *in)
{
	const struct host_snapshot *h = in->h;
	return host_snapshot_partial(h) || h->thp.nbad > 0 || in->unreadable > 0 ||
	       advice_ledger_partial(in);
}
