// SPDX-License-Identifier: MIT
#include "why.h"

#include <string.h>

#include "json.h"
#include "ledger.h"
#include "remedy.h"
#include "skips.h"
#include "table.h"
#include "why_int.h"

/*
 * Every fact has a mark, the legend's: none starts with a blank, so a wrapped fact's
 * lines go on 4 columns in (util/wrap.h), as the first line's do.
 */
static char mark(enum why_effect e)
{
	switch (e) {
	case WE_HELPS:
		return '+';
	case WE_HINDERS:
		return '-';
	case WE_UNKNOWN:
		return '?';
	default:
		return '=';
	}
}

/* Under the ledger: its creep cannot pass the cgroup's headroom (r->creep_cg_bound). */
static void creep_bound(FILE *f, const struct why_report *r)
{
	char text[512], h[32];
	struct wb b = wb_begin(text, sizeof(text));
	fmt_bytes(h, sizeof(h), r->room.headroom);
	why_w_cg_room(&b, &r->room);
	if (r->room.starved)
		wb_put(&b, ": none of it comes now, only if the cgroup gets headroom");
	else
		wb_put(&b, ": at most %s of it comes before the cgroup is full", h);
	fprintf(f, "  %-12s ", "creep bound");
	fputs_safe(text, f);
	fputc('\n', f);
}

void why_render_text(FILE *f, const struct why_input *in, const struct why_report *r, bool color)
{
	fprintf(f, "%sPID %ld (", col_bold(color), in->pid);
	fputs_safe(in->st.name, f);
	fprintf(f, ")%s ", col_reset(color));
	char text[1024], src[256];
	fputs_safe(why_summary_words(r, text, sizeof(text)), f);
	fputc('\n', f);
	struct bundle_skips sk; /* a replay of a bundle extracted in part */
	bundle_skips_of(&in->h->skips, &sk);
	skips_note(f, "  ", NULL, &sk);
	int w = 0;
	for (int i = 0; i < r->n; i++) {
		int l = (int)strlen(r->lines[i].topic);
		if (l > w)
			w = l;
	}
	for (int i = 0; i < r->n; i++) {
		const struct why_line *l = &r->lines[i];
		const char *c = l->effect == WE_HINDERS	  ? col_yellow(color)
				: l->effect == WE_UNKNOWN ? col_dim(color)
							  : "";
		fprintf(f, "%s%c %-*s  ", c, mark(l->effect), w, l->topic);
		fputs_safe(why_line_words(l, text, sizeof(text)), f);
		fprintf(f, "%s  %s[", *c ? col_reset(color) : "", col_dim(color));
		fputs_safe(why_source(l, src, sizeof(src)), f);
		fprintf(f, "]%s\n", col_reset(color));
	}
	fprintf(f, "(+ helps, - stands in the way, = neither, ? unknown)\n");
	if (!in->smaps_err && (in->st.thp_enabled != 0 || r->sum.id == WS_PRCTL_HELD)) {
		ledger_render_lines(f, &in->led, color);
		if (r->creep_cg_bound)
			creep_bound(f, r);
	}
	if (r->rem) {
		fprintf(f,
			"%swhat to change%s (fixes ranked by what each saves; thpctl advise: the "
			"host's view):\n",
			col_bold(color), col_reset(color));
		remedy_render_text(f, r->rem, color);
	}
}

static json_t *top_json(const struct why_vma_top *t)
{
	if (!t->present)
		return json_null();
	json_t *o = json_object();
	json_put(o, "name", json_str(t->name));
	json_put(o, "start", json_hex(t->start));
	json_put(o, "size_kb", json_u64(t->size_kb));
	json_put(o, "anon_huge_kb", json_u64(t->anon_huge_kb));
	return o;
}

static json_t *err_json(int err)
{
	return err ? json_str(strerror(-err)) : json_null();
}

static json_t *hints_json(const struct why_hint *h, int n)
{
	json_t *a = json_array();
	for (int i = 0; i < n; i++) {
		json_t *o = json_object();
		json_put(o, "var", json_str(h[i].var));
		json_put(o, "value", json_str(h[i].value));
		json_put(o, "effect", json_str(why_effect_name(h[i].effect)));
		json_put(o, "meaning", json_str(why_hint_words(h[i].meaning)));
		json_array_append_new(a, o);
	}
	return a;
}

static const char *verdict_name(enum why_verdict v)
{
	return v == WV_HUGE ? "huge" : v == WV_NONE ? "none" : "unknown";
}

/* why --json's "vmas": its VMA counts and sizes; null when its smaps could not be read */
static json_t *vmas_json(const struct why_input *in)
{
	json_t *v = json_null();
	if (in->smaps_err == 0) {
		const struct why_vmas *w = &in->vmas;
		v = json_object();
		json_put(v, "count", json_integer(w->nvmas));
		json_put(v, "hg", w->has_vmflags ? json_integer(w->hg) : json_null());
		json_put(v, "hg_kb", w->has_vmflags ? json_u64(w->hg_kb) : json_null());
		json_put(v, "hg_anon_huge_kb",
			 w->has_vmflags ? json_u64(w->hg_huge_kb) : json_null());
		json_put(v, "nh", w->has_vmflags ? json_integer(w->nh) : json_null());
		json_put(v, "nh_kb", w->has_vmflags ? json_u64(w->nh_kb) : json_null());
		json_put(v, "thpeligible",
			 w->has_eligible ? json_integer(w->eligible) : json_null());
		json_put(v, "largest_hg", top_json(&w->largest_hg));
		json_put(v, "largest_nh", top_json(&w->largest_nh));
		json_put(v, "stack_nh",
			 w->has_vmflags && w->stack_found ? json_boolean(w->stack_flags & VMF_NH)
							  : json_null());
		/* of nh: thread stacks and their guards (the kernel's nh for MAP_STACK) */
		json_put(v, "thread_stacks",
			 w->has_vmflags ? json_integer(w->thread_stacks) : json_null());
		json_put(v, "nh_thread_stack_vmas",
			 w->has_vmflags ? json_integer(w->stack_nh) : json_null());
		json_put(v, "nh_thread_stack_kb",
			 w->has_vmflags ? json_u64(w->stack_nh_kb) : json_null());
		json_put(v, "anon_huge_kb", json_u64(w->t.kb[SM_ANON_HUGE]));
		json_put(v, "shmem_pmd_mapped_kb",
			 smaps_has(&w->t, SM_SHMEM_PMD) ? json_u64(w->t.kb[SM_SHMEM_PMD])
							: json_null());
		json_put(v, "file_pmd_mapped_kb",
			 smaps_has(&w->t, SM_FILE_PMD) ? json_u64(w->t.kb[SM_FILE_PMD])
						       : json_null());
		json_put(v, "anon_kb",
			 smaps_has(&w->t, SM_ANONYMOUS) ? json_u64(w->t.kb[SM_ANONYMOUS])
							: json_null());
		json_put(v, "rss_kb", json_u64(w->t.kb[SM_RSS]));
	}
	return v;
}

/* A sysroot-relative file REL as the text shows it (an absolute path), or null. */
static json_t *abs_json(bool show, const char *rel)
{
	char p[512];
	return show && rel[0] ? json_str(evidence_path(KP_TREE, 0, rel, p, sizeof(p)))
			      : json_null();
}

static json_t *cgroup_json(const struct why_input *in, const struct why_report *r)
{
	json_t *cg = json_object();
	const struct cg_limit *l = &in->lim;
	bool ok = in->cgroup_err == 0 && in->limit_err == 0;
	bool known = ok && !l->limit_unknown;
	json_put(cg, "readable", json_boolean(ok));
	json_put(cg, "error", err_json(in->cgroup_err ? in->cgroup_err : in->limit_err));
	json_put(cg, "version", ok && l->version ? json_integer(l->version) : json_null());
	json_put(cg, "path", ok && l->version ? json_str(l->path) : json_null());
	json_put(cg, "limit_bytes", known && l->limited ? json_u64(l->limit_bytes) : json_null());
	json_put(cg, "limit_file", abs_json(known && l->limited, l->limit_file));
	json_put(cg, "limit_known", ok && l->version ? json_boolean(known) : json_null());
	json_put(cg, "unreadable_limit_file", abs_json(ok && l->limit_unknown, l->unknown_file));
	const struct why_cg_room *c = &r->room;
	json_put(cg, "usage_bytes", c->known ? json_u64(c->usage) : json_null());
	json_put(cg, "headroom_bytes", c->known ? json_u64(c->headroom) : json_null());
	json_put(cg, "usage_file", abs_json(c->known, l->usage_file));
	json_put(cg, "tight", c->known ? json_boolean(c->tight) : json_null());
	return cg;
}

json_t *why_to_json(const struct why_input *in, const struct why_report *r)
{
	json_t *root = json_object();
	if (!root)
		return NULL;
	json_put(root, "pid", json_integer(in->pid));
	json_put(root, "comm", json_str(in->st.name));
	json_put(root, "ppid", in->st.ppid >= 0 ? json_integer(in->st.ppid) : json_null());
	json_put(root, "thp_enabled",
		 in->st.thp_enabled < 0 ? json_null() : json_boolean(in->st.thp_enabled));
	json_put(root, "verdict", json_str(verdict_name(r->verdict)));
	char text[1024], src[256];
	json_put(root, "summary", json_str(why_summary_words(r, text, sizeof(text))));
	json_put(root, "ledger", in->smaps_err ? NULL : ledger_to_json(&in->led));
	struct bundle_skips sk; /* only on a replay of a bundle extracted in part */
	bundle_skips_of(&in->h->skips, &sk);
	if (bundle_skips_any(&sk)) {
		json_t *miss = json_array();
		skips_json_missing(miss, &sk);
		json_put(root, "partial", json_true());
		json_put(root, "missing", miss);
	}

	json_t *who = json_null();
	if (in->st.thp_enabled == 0 && in->chain_walked &&
	    (in->chain.n || (in->chain.stop_thp_enabled == 1 &&
			     !why_chain_broken(in->chain.stop_pid, in->chain.stop_comm)))) {
		who = json_object();
		json_put(who, "pid",
			 json_integer(in->chain.n ? in->chain.a[in->chain.n - 1].pid : in->pid));
		json_put(who, "comm",
			 json_str(in->chain.n ? in->chain.a[in->chain.n - 1].comm : in->st.name));
	}
	json_put(root, "prctl_set_by", who);

	json_put(root, "vmas", vmas_json(in));
	json_put(root, "smaps_error", err_json(in->smaps_err));

	json_t *env = json_object();
	json_put(env, "readable", json_boolean(in->environ_err == 0));
	json_put(env, "error", err_json(in->environ_err));
	json_put(env, "intact",
		 in->environ_err ? json_null() : json_boolean(!in->environ_overwritten));
	/* unknown (null) when not read or overwritten by the program, never an empty list */
	json_put(env, "hints",
		 in->environ_overwritten || in->environ_err ? json_null()
							    : hints_json(in->env, in->nenv));
	json_put(root, "environ", env);
	json_put(root, "cmdline_hints", hints_json(in->cmd, in->cmdline_err ? 0 : in->ncmd));

	json_put(root, "cgroup", cgroup_json(in, r));

	json_t *facts = json_array();
	for (int i = 0; i < r->n; i++) {
		const struct why_line *l = &r->lines[i];
		json_t *o = json_object();
		json_put(o, "topic", json_str(l->topic));
		json_put(o, "effect", json_str(why_effect_name(l->effect)));
		json_put(o, "text", json_str(why_line_words(l, text, sizeof(text))));
		json_put(o, "source", json_str(why_source(l, src, sizeof(src))));
		json_array_append_new(facts, o);
	}
	json_put(root, "facts", facts);
	json_put(root, "what_to_change", r->rem ? remedy_to_json(r->rem) : json_null());
	return root;
}
