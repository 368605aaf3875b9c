// SPDX-License-Identifier: MIT
#include "advice.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../util/wrap.h"
#include "json.h"
#include "skips.h"
#include "remedy.h"
#include "table.h"
#include "hint.h"
#include "wb.h"
#include "advice_workloads.h"

static const char *sel(const struct choice *c)
{
	return c->present ? c->selected : "-";
}

static const char *const kct_config[] = {
	[KCT_ALWAYS] = "CONFIG_TRANSPARENT_HUGEPAGE_ALWAYS",
	[KCT_MADVISE] = "CONFIG_TRANSPARENT_HUGEPAGE_MADVISE",
	[KCT_NEVER] = "CONFIG_TRANSPARENT_HUGEPAGE_NEVER",
};
static const char *const kct_value[] = {
	[KCT_ALWAYS] = "always", [KCT_MADVISE] = "madvise", [KCT_NEVER] = "never"};

/* Where the config came from, as a host path. */
static void kconfig_src(char *out, size_t n, const struct adv_input *in)
{
	if (in->kconfig.src == KCS_BOOT)
		evidence_path(KP_BOOT_CONFIG, 0, in->h->feat.release, out, n);
	else
		evidence_path(KP_CONFIG_GZ, 0, NULL, out, n);
}

/* "  boot default enabled=madvise (CONFIG_TRANSPARENT_HUGEPAGE_MADVISE=y in /proc/config.gz)" */
static void kconfig_line(FILE *f, const struct adv_input *in, const struct host_snapshot *h)
{
	const struct kconfig_info *k = &in->kconfig;
	char src[200], boot[200], gz[64];
	kconfig_src(src, sizeof(src), in);
	fprintf(f, "  built      ");
	if (k->src != KCS_NONE && k->thp >= KCT_ALWAYS && k->thp <= KCT_NEVER)
		fprintf(f, "boot default enabled=%s (%s=y in %s)\n", kct_value[k->thp],
			kct_config[k->thp], src);
	else if (k->src != KCS_NONE && k->thp == KCT_NO_THP)
		fprintf(f, "without THP (CONFIG_TRANSPARENT_HUGEPAGE is not set in %s)\n", src);
	else if (k->src != KCS_NONE)
		fprintf(f, "boot default of enabled unknown (%s names none)\n", src);
	else
		fprintf(f,
			"boot default of enabled unknown (no %s or %s%s%s; upstream Kconfig defaults "
			"to always, distributions choose)\n",
			evidence_path(KP_BOOT_CONFIG, 0,
				      h->feat.release[0] ? h->feat.release : "RELEASE", boot,
				      sizeof(boot)),
			evidence_path(KP_CONFIG_GZ, 0, NULL, gz, sizeof(gz)),
			k->err && k->err != -ENOENT ? ": " : "",
			k->err && k->err != -ENOENT
				? (k->err == -ENOTSUP ? "config.gz not readable: built without zlib"
				   : k->err == -ELIBACC
					   ? "config.gz not readable: zlib could not be loaded"
					   : strerror(-k->err))
				: "");
}

static void header(FILE *f, const struct adv_input *in, bool color)
{
	const struct host_snapshot *h = in->h;
	fprintf(f, "%sHost%s\n", col_bold(color), col_reset(color));
	fputs("  kernel     ", f);
	fputs_safe(h->feat.release[0] ? h->feat.release : "unknown", f);
	if (h->feat.except_advised == TRI_YES)
		fprintf(f, " (PR_THP_DISABLE_EXCEPT_ADVISED: yes)");
	fputc('\n', f);
	if (h->thp.present) {
		const struct opt_u64 *m = &h->thp.khp[KHP_MAX_PTES_NONE];
		fprintf(f, "  THP now    enabled=%s defrag=%s", sel(&h->thp.enabled),
			sel(&h->thp.defrag));
		if (m->present)
			fprintf(f, " khugepaged/max_ptes_none=%llu", (unsigned long long)m->v);
		if (h->thp.shrink_underused.present)
			fprintf(f, " shrink_underused=%llu",
				(unsigned long long)h->thp.shrink_underused.v);
		fputc('\n', f);
	}
	kconfig_line(f, in, h);
	fprintf(f, "  processes  %d with memory scanned", in->scanned);
	if (in->limited_cgroups)
		fprintf(f, ", %d in %d memory-limited cgroup%s", in->limited_procs,
			in->limited_cgroups, in->limited_cgroups == 1 ? "" : "s");
	fputc('\n', f);
}

/* Why a setting is undecided (a->undecided): "khugepaged/max_ptes_none=64 (status's ...". */
static const char *undecided_words(const struct adv_input *in, const struct advice *a, char *out,
				   size_t n)
{
	const struct finding *x = a->undecided;
	struct wb b = wb_begin(out, n);
	wb_put(&b, "%s=%s (status's finding %s) rests on the THP ledger of each process, and ",
	       x->set_key, x->set_value, x->id);
	if (a->undecided_scan == 1) {
		if (a->undecided_read)
			wb_put(&b, "the ledger read only %d of %d processes (%d not read: %s)",
			       a->undecided_read, a->undecided_read + a->undecided_unread,
			       a->undecided_unread, hint_proc_denied(in->as_root));
		else if (a->undecided_unread)
			wb_put(&b, "no process's ledger could be read (%d not read: %s)",
			       a->undecided_unread, hint_proc_denied(in->as_root));
		else
			wb_put(&b, "no process's ledger could be read");
	} else if (a->undecided_scan == 0) {
		wb_put(&b, "the ledger needs the live system (pagemap, memory), not a recorded "
			   "tree");
	} else {
		wb_put(&b, "the ledger could not be scanned (%s)", strerror(-a->undecided_scan));
	}
	return out;
}

static void settings(FILE *f, const struct adv_input *in, const struct advice *a, bool color)
{
	char u[512];
	fprintf(f, "\n%sSettings%s (now -> recommended)\n", col_bold(color), col_reset(color));
	if (a->undecided) { /* its evidence not read: never "nothing asks for a change" */
		fprintf(f, "  %sundecided:%s ", col_yellow(color), col_reset(color));
		fputs_safe(undecided_words(in, a, u, sizeof(u)), f);
		fputc('\n', f);
	}
	if (!a->nsettings) {
		if (!a->undecided)
			fprintf(f, "  no recommendation: nothing here asks for a change\n");
		return;
	}
	int w = 0;
	for (int i = 0; i < a->nsettings; i++) {
		int l = (int)strlen(a->s[i].key);
		if (l > w)
			w = l;
	}
	for (int i = 0; i < a->nsettings; i++) {
		const struct adv_setting *s = &a->s[i];
		char v[64];
		if (s->change)
			snprintf(v, sizeof(v), "%s -> %s", s->now, s->want);
		else
			snprintf(v, sizeof(v), "%s (keep)", s->now);
		fprintf(f, "  %s%-*s  %s%s\n", s->change ? col_yellow(color) : "", w, s->key, v,
			s->change ? col_reset(color) : "");
		char reason[1024], by[256];
		fprintf(f, "  %*s  %sbecause%s ", w, "", col_dim(color), col_reset(color));
		fputs_safe(advice_setting_reason(s, reason, sizeof(reason)), f);
		fprintf(f, " %s[%s]%s\n", col_dim(color), advice_setting_by(s, by, sizeof(by)),
			col_reset(color));
	}
	if (a->nchanges) {
		char cmd[512];
		fprintf(f, "\nApply now (root; the old values are journalled):\n");
		wrap_put_command(f, 2, advice_command(a, "set", cmd, sizeof(cmd)));
		fprintf(f, "Keep across reboots (root; without --install it prints what it "
			   "writes):\n");
		wrap_put_command(f, 2, advice_command(a, "persist", cmd, sizeof(cmd)));
	} else {
		fprintf(f, "\nNo host-wide change%s.\n",
			a->undecided ? " (one undecided, above)" : "");
	}
}

static void levers(FILE *f, const struct advice *a, bool color)
{
	if (!a->nlevers)
		return;
	fprintf(f, "\n%sPer process%s\n", col_bold(color), col_reset(color));
	for (int i = 0; i < a->nlevers; i++) {
		const struct adv_lever *l = &a->l[i];
		fprintf(f, "  %s", l->needed ? col_yellow(color) : "");
		if (l->pid) {
			fprintf(f, "PID %ld (", l->pid);
			fputs_safe(l->comm, f);
			fprintf(f, ")");
		} else {
			fprintf(f, "%s (no process found)", workload_name(l->wl));
		}
		char t[RUN_CMD_MAX];
		fprintf(f, "%s: %s%s\n", l->needed ? " [needed]" : "",
			advice_lever_what(l, t, sizeof(t)), l->needed ? col_reset(color) : "");
		if (advice_lever_command(l, t, sizeof(t))[0]) {
			wrap_put_command(f, 6, t); /* broken only between its words */
			char note[512];
			if (advice_lever_command_note(l, note, sizeof(note))[0]) {
				fprintf(f, "      (");
				fputs_safe(note, f);
				fprintf(f, ")\n");
			}
		}
		const struct adv_proc *p = l->proc;
		if (p && p->prog_check == 1 && strcmp(p->prog, p->exe)) {
			fprintf(f, "      (");
			fputs_safe(p->prog, f);
			fprintf(f, ", its argv[0], leads to the running ");
			fputs_safe(p->exe, f);
			fprintf(f, ")\n");
		}
		bool first = !t[0]; /* no command above: the first way is not an "or" */
		for (int k = 0; k < l->nalt; k++) {
			fprintf(f, "      %s", first && k == 0 ? "" : "or ");
			fputs_safe(advice_lever_alt(l, k, t, sizeof(t)), f);
			fputc('\n', f);
		}
		if (advice_lever_reason(l, t, sizeof(t))[0]) {
			fprintf(f, "      %sbecause%s ", col_dim(color), col_reset(color));
			fputs_safe(t, f);
			fputc('\n', f);
		}
	}
}

/*
 * Where the ledger's count stands among the processes with memory (those of
 * "processes N scanned"), when it is not all of them: "the ledger read 9 of 11
 * processes with memory (partial): 1 smaps not readable (run as root or as the
 * process's owner), thpctl itself skipped".
 */
static void ledger_counts(FILE *f, const struct adv_input *in, bool color)
{
	if (in->ledger_scanned == in->ledger_procs) {
		/* all read, but a process started or exited between the two passes */
		if (in->scanned != in->ledger_procs)
			fprintf(f,
				"  the ledger read all %d processes with memory then (the Host line's %d "
				"are from the workload pass a moment earlier)\n",
				in->ledger_procs, in->scanned);
		return;
	}
	bool partial = advice_ledger_partial(in);
	fprintf(f, "  %sthe ledger read %d of %d processes with memory%s%s:",
		partial ? col_yellow(color) : "", in->ledger_scanned, in->ledger_procs,
		partial ? " (partial)" : "", partial ? col_reset(color) : "");
	const char *sep = " ";
	if (in->ledger_unreadable) {
		fprintf(f, "%s%d smaps not readable (%s)", sep, in->ledger_unreadable,
			hint_proc_denied(in->as_root));
		sep = ", ";
	}
	if (in->ledger_failed) {
		fprintf(f, "%s%d not read (a read failed)", sep, in->ledger_failed);
		sep = ", ";
	}
	if (in->ledger_gone) {
		fprintf(f, "%s%d exited meanwhile", sep, in->ledger_gone);
		sep = ", ";
	}
	if (in->ledger_self)
		fprintf(f, "%sthpctl itself skipped", sep);
	/* two passes over proc/: a process may start or exit between them */
	if (in->scanned != in->ledger_procs)
		fprintf(f, " (the Host line's %d are from the workload pass a moment earlier)",
			in->scanned);
	fputc('\n', f);
}

/* The flagged processes first: what to change for each, from its ledger. */
static void remedies(FILE *f, const struct adv_input *in, const struct advice *a, bool color)
{
	fprintf(f, "%sWhat to change%s", col_bold(color), col_reset(color));
	if (in->ledger_scan != 1) {
		if (in->ledger_scan == 0)
			fprintf(f,
				"\n  the THP ledger of each process needs the live system (pagemap, "
				"memory): not scanned in a recorded tree\n\n");
		else
			fprintf(f, "\n  the THP ledger could not be scanned (%s)\n\n",
				strerror(-in->ledger_scan));
		return;
	}
	if (!a->nrem && !in->ledger_scanned) {
		/* nothing read: "no process flagged" would claim what was not looked at */
		fprintf(f, "\n  no process could be checked: the THP ledger read none\n");
		ledger_counts(f, in, color);
		fputc('\n', f);
		return;
	}
	if (!a->nrem) {
		fprintf(f,
			"\n  no process flagged by its THP ledger (of %d processes whose ledger was read: no invented, held, "
			"creep or lazily freed memory over 16 MiB and 25%%, none mostly referenced "
			"and PTE-mapped over 64 MiB)\n",
			in->ledger_scanned);
		ledger_counts(f, in, color);
		fputc('\n', f);
		return;
	}
	/* flagged as ps --ledger flags them, apart from those that would gain */
	fprintf(f, " (of %d processes whose THP ledger was read: ", in->ledger_scanned);
	int cost = a->nrem_cost + in->flagged_dropped_cost;
	int gain_left = in->flagged_dropped - in->flagged_dropped_cost;
	if (cost)
		fprintf(f, "%d flagged by %s THP ledger", cost, cost == 1 ? "its" : "their");
	else
		fprintf(f, "none flagged by its THP ledger");
	if (in->flagged_dropped_cost)
		fprintf(f, " (%d not shown, the least costly: ps --ledger lists them)",
			in->flagged_dropped_cost);
	if (a->nrem_gain + gain_left)
		fprintf(f, ", %d that would gain from huge pages", a->nrem_gain + gain_left);
	if (gain_left)
		fprintf(f, " (%d not shown, those with the fewest fully written bytes)", gain_left);
	fprintf(f, "; listed by what acting saves, fixes ranked by what each saves)\n");
	ledger_counts(f, in, color);
	for (int i = 0; i < a->nrem; i++)
		remedy_render_text(f, &a->rem[i], color);
	fputc('\n', f);
}

void advice_render_text(FILE *f, const struct adv_input *in, const struct advice *a, bool color)
{
	remedies(f, in, a, color);
	header(f, in, color);
	struct bundle_skips sk; /* a replay of a bundle extracted in part */
	bundle_skips_of(&in->h->skips, &sk);
	skips_note(f, "  ", NULL, &sk);
	advice_workloads_text(f, in, a, color);
	settings(f, in, a, color);
	levers(f, a, color);
	if (a->nnotes) {
		fprintf(f, "\n%sNotes%s\n", col_bold(color), col_reset(color));
		for (int i = 0; i < a->nnotes; i++) {
			const struct adv_note *n = &a->notes[i];
			const char *c = n->kind == AN_CONFLICT ? col_yellow(color) : "";
			char t[1024];
			fprintf(f, "  %s%-10s%s ", c, adv_note_kind_name(n->kind),
				*c ? col_reset(color) : "");
			fputs_safe(advice_note_text(n, t, sizeof(t)), f);
			fputc('\n', f);
		}
	}
}

/* The "kernel" object of advise --json: release, capabilities, the boot default. */
static json_t *kernel_json(const struct adv_input *in)
{
	const struct host_snapshot *h = in->h;
	json_t *k = json_object();
	json_put(k, "release", h->feat.release[0] ? json_str(h->feat.release) : json_null());
	json_put(k, "except_advised",
		 h->feat.except_advised == TRI_UNKNOWN
			 ? json_null()
			 : json_boolean(h->feat.except_advised == TRI_YES));
	json_put(k, "shrink_underused", json_boolean(h->feat.shrink_underused));
	const struct kconfig_info *kc = &in->kconfig;
	bool kv = kc->src != KCS_NONE && kc->thp >= KCT_ALWAYS && kc->thp <= KCT_NEVER;
	json_put(k, "config_enabled_default", kv ? json_str(kct_value[kc->thp]) : json_null());
	json_put(k, "config_thp",
		 kc->src == KCS_NONE ? json_null() : json_boolean(kc->thp != KCT_NO_THP));
	char src[200];
	kconfig_src(src, sizeof(src), in);
	json_put(k, "config_source", kc->src == KCS_NONE ? json_null() : json_str(src));
	return k;
}

/* The per-process levers of A, with their sentences. */
static json_t *levers_json(const struct advice *a)
{
	char t[RUN_CMD_MAX];
	json_t *ls = json_array();
	for (int i = 0; i < a->nlevers; i++) {
		const struct adv_lever *l = &a->l[i];
		json_t *o = json_object();
		json_put(o, "pid", l->pid ? json_integer(l->pid) : json_null());
		json_put(o, "comm", l->pid ? json_str(l->comm) : json_null());
		json_put(o, "workload", json_str(workload_name(l->wl)));
		json_put(o, "needed", json_boolean(l->needed));
		json_put(o, "what", json_str(advice_lever_what(l, t, sizeof(t))));
		advice_lever_command(l, t, sizeof(t));
		json_put(o, "command", t[0] ? json_str(t) : json_null());
		advice_lever_command_note(l, t, sizeof(t));
		json_put(o, "command_note", t[0] ? json_str(t) : json_null());
		const struct adv_proc *p = l->proc;
		json_put(o, "program", p && p->prog[0] ? json_str(p->prog) : json_null());
		json_put(o, "program_checked",
			 p && p->prog[0] && p->prog_check >= 0 ? json_boolean(p->prog_check == 1)
							       : json_null());
		json_put(o, "arguments_known",
			 p && p->run.state != RUN_ARGS_UNKNOWN
				 ? json_boolean(p->run.state == RUN_ARGS_INTACT)
				 : json_null());
		json_put(o, "run_argv",
			 p && l->cmd == ACM_RUN ? run_argv_json(&p->run) : json_null());
		json_t *alts = json_array();
		for (int k2 = 0; k2 < l->nalt; k2++)
			json_array_append_new(alts,
					      json_str(advice_lever_alt(l, k2, t, sizeof(t))));
		json_put(o, "alternatives", alts);
		json_put(o, "reason", json_str(advice_lever_reason(l, t, sizeof(t))));
		json_array_append_new(ls, o);
	}
	return ls;
}

/* The reasons of S: each one's id and who asked, and the ledger's facts of the rule that has them. */
static json_t *reasons_json(const struct adv_setting *s)
{
	json_t *rs = json_array();
	for (int i = 0; i < s->nwhy; i++) {
		const struct adv_why *y = &s->why[i];
		json_t *o = json_object(), *l = NULL;
		json_put(o, "id", json_str(adv_why_name(y->id)));
		json_put(o, "by", json_str(y->who));
		if (y->id == AW_RULE_SHRINK_NOOP_LEDGER) {
			l = json_object();
			json_put(l, "processes", json_integer(y->sparse_procs));
			json_put(l, "invented_processes", json_integer(y->invented_procs));
			json_put(l, "invented_kb", json_integer(y->invented_kb));
			/* sampled subpages per THP (ps --ledger's ~), not every subpage read */
			json_put(l, "invented_estimate", json_boolean(y->invented_sampled));
			json_put(l, "creep_processes", json_integer(y->creep_procs));
			json_put(l, "creep_kb", json_integer(y->creep_kb));
		}
		json_put(o, "ledger", l);
		json_array_append_new(rs, o);
	}
	return rs;
}

/* The setting left undecided (a->undecided), null when none. */
static json_t *undecided_json(const struct adv_input *in, const struct advice *a)
{
	if (!a->undecided)
		return NULL;
	char t[512];
	return json_obj("key", json_str(a->undecided->set_key), "value",
			json_str(a->undecided->set_value), "finding", json_str(a->undecided->id),
			"ledger",
			json_str(a->undecided_scan == 1	  ? "not-read"
				 : a->undecided_scan == 0 ? "not-live"
							  : "failed"),
			"text", json_str(undecided_words(in, a, t, sizeof(t))), NULL);
}

json_t *advice_to_json(const struct adv_input *in, const struct advice *a)
{
	const struct host_snapshot *h = in->h;
	json_t *root = json_object();
	if (!root)
		return NULL;
	json_put(root, "kernel", kernel_json(in));
	/* a file of the host not read (missing, damaged) or a process not readable */
	json_put(root, "partial", json_boolean(advice_partial(in)));
	json_t *miss = json_array();
	for (int i = 0; i < h->nmissing; i++)
		json_array_append_new(miss, json_str(h->missing[i]));
	struct bundle_skips sk;
	bundle_skips_of(&h->skips, &sk);
	skips_json_missing(miss, &sk);
	json_put(root, "missing", miss);
	json_put(root, "processes_scanned", json_integer(in->scanned));
	json_put(root, "unreadable", json_integer(in->unreadable));
	json_put(root, "unreadable_of", json_integer(in->unreadable_of));
	json_put(root, "limited_cgroups", json_integer(in->limited_cgroups));
	json_put(root, "mixed", json_boolean(a->mixed));

	json_put(root, "workloads", advice_workloads_json(in, a));

	json_t *ss = json_array();
	char t[1024], by[256];
	for (int i = 0; i < a->nsettings; i++) {
		const struct adv_setting *s = &a->s[i];
		json_t *o = json_object();
		json_put(o, "key", json_str(s->key));
		json_put(o, "now", s->has_now ? json_str(s->now) : json_null());
		json_put(o, "recommended", json_str(s->want));
		json_put(o, "change", json_boolean(s->change));
		json_put(o, "reason", json_str(advice_setting_reason(s, t, sizeof(t))));
		json_put(o, "by", json_str(advice_setting_by(s, by, sizeof(by))));
		json_put(o, "reasons", reasons_json(s));
		json_array_append_new(ss, o);
	}
	json_put(root, "settings", ss);
	json_t *cmds = json_object();
	json_put(cmds, "set",
		 a->nchanges ? json_str(advice_command(a, "set", t, sizeof(t))) : json_null());
	json_put(cmds, "persist",
		 a->nchanges ? json_str(advice_command(a, "persist", t, sizeof(t))) : json_null());
	json_put(root, "commands", cmds);
	json_put(root, "undecided", undecided_json(in, a));

	json_put(root, "per_process", levers_json(a));

	json_t *ns = json_array();
	for (int i = 0; i < a->nnotes; i++) {
		json_t *o = json_object();
		json_put(o, "kind", json_str(adv_note_kind_name(a->notes[i].kind)));
		json_put(o, "text", json_str(advice_note_text(&a->notes[i], t, sizeof(t))));
		json_array_append_new(ns, o);
	}
	json_put(root, "notes", ns);
	json_put(root, "ledger_scanned",
		 in->ledger_scan == 1 ? json_integer(in->ledger_scanned) : json_null());
	/* ledger_processes = ledger_scanned + the four below */
	bool ls = in->ledger_scan == 1;
	json_put(root, "ledger_processes", ls ? json_integer(in->ledger_procs) : json_null());
	json_put(root, "ledger_unreadable", ls ? json_integer(in->ledger_unreadable) : json_null());
	json_put(root, "ledger_failed", ls ? json_integer(in->ledger_failed) : json_null());
	json_put(root, "ledger_gone", ls ? json_integer(in->ledger_gone) : json_null());
	json_put(root, "ledger_self_skipped", ls ? json_integer(in->ledger_self) : json_null());
	json_t *fl = json_array();
	for (int i = 0; i < a->nrem; i++)
		json_array_append_new(fl, remedy_to_json(&a->rem[i]));
	json_put(root, "flagged", in->ledger_scan == 1 ? fl : (json_decref(fl), json_null()));
	json_put(root, "flagged_not_listed",
		 in->ledger_scan == 1 ? json_integer(in->flagged_dropped) : json_null());
	json_put(root, "flagged_cost_not_listed",
		 ls ? json_integer(in->flagged_dropped_cost) : json_null());
	json_put(root, "flagged_cost",
		 ls ? json_integer(a->nrem_cost + in->flagged_dropped_cost) : json_null());
	json_put(root, "flagged_gain",
		 ls ? json_integer(a->nrem_gain + in->flagged_dropped - in->flagged_dropped_cost)
		    : json_null());
	json_put(root, "systemd_memory_thp",
		 in->systemd_thp < 0 ? json_null() : json_boolean(in->systemd_thp == 1));
	return root;
}
