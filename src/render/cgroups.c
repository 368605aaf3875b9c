// SPDX-License-Identifier: MIT
#include "cgroups.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "json.h"
#include "skips.h"
#include "table.h"

/* memory.stat names of the optional columns (v2 only) */
static const char *const ms_name[] = {"file_thp", "shmem_thp", "thp_fault_alloc",
				      "thp_collapse_alloc"};
/* their fields: a column only when some row has the value */
static const int opt_f[] = {MS_FILE_THP, MS_SHMEM_THP, MS_THP_FAULT_ALLOC, MS_THP_COLLAPSE_ALLOC};

/* A '-' cell for the reason W, remembered in *SEEN (a bit per enum cg_why) for the legend. */
/* A cell without a value: "-" only when unknown; "none" (no limit) and "n/a" (no value to have). */
static void cell_dash(struct table *t, unsigned *seen, enum cg_why w)
{
	*seen |= 1u << w;
	table_cell(t, "%s", w == CGW_NO_LIMIT ? "none" : w == CGW_UNKNOWN ? "-" : "n/a");
}

/* A size cell: "2.0 MiB", or "-" when unknown. */
static void cell_bytes(struct table *t, const struct opt_u64 *o, unsigned *seen)
{
	char s[32];
	if (!o->present) {
		cell_dash(t, seen, CGW_UNKNOWN);
		return;
	}
	fmt_bytes(s, sizeof(s), o->v);
	table_cell(t, "%s", s);
}

static void cell_count(struct table *t, const struct opt_u64 *o, unsigned *seen)
{
	if (o->present)
		table_cell(t, "%" PRIu64, o->v);
	else
		cell_dash(t, seen, CGW_UNKNOWN);
}

static void cell_max(struct table *t, const struct cg_node *n, unsigned *seen)
{
	char s[32];
	if (!n->limit_known)
		cell_dash(t, seen, CGW_UNKNOWN);
	else if (!n->limited)
		table_cell(t, "max");
	else {
		fmt_bytes(s, sizeof(s), n->limit);
		table_cell(t, "%s", s);
	}
}

/* The files the limit and the usage were read from (v1: memory.limit_in_bytes). */
static const char *max_file(int version)
{
	return version == 1 ? "memory.limit_in_bytes" : "memory.max";
}

static const char *current_file(int version)
{
	return version == 1 ? "memory.usage_in_bytes" : "memory.current";
}

/* Why the near-limit flag of N cannot be decided: the values it lacks. */
static void print_unknown(FILE *f, const struct cg_node *n, int version)
{
	fputs("  [?] ", f);
	fputs_safe(n->path, f);
	fputs(": inconclusive, unknown:", f);
	if (!n->limit_known)
		fprintf(f, " %s (%s)", max_file(version),
			n->limit_err == -ENOENT ? "absent" : "unreadable");
	if (n->limited && !n->current.present)
		fprintf(f, " %s", current_file(version));
	if (!n->ms.f[MS_ANON_THP].present)
		fputs(" anon_thp", f);
	fputc('\n', f);
}

static void print_flags(FILE *f, const struct cg_report *r, bool color)
{
	size_t unknown = 0;
	for (size_t i = 0; i < r->n; i++)
		unknown += r->rows[i].near_limit_thp == CG_UNKNOWN;
	if (!r->nflagged)
		fprintf(f, "\nNo cgroup at >= %.0f%% of %s with anon THP%s\n", CG_NEAR_LIMIT * 100,
			max_file(r->tree->version), unknown ? "; inconclusive for:" : ".");
	else
		fputs("\nFlags:\n", f);
	for (size_t i = 0; i < r->n; i++) {
		const struct cg_row *w = &r->rows[i];
		if (w->near_limit_thp != CG_YES)
			continue;
		char cur[32], max[32], thp[32];
		fmt_bytes(cur, sizeof(cur), w->node->current.v);
		fmt_bytes(max, sizeof(max), w->node->limit);
		fmt_bytes(thp, sizeof(thp), w->node->ms.f[MS_ANON_THP].v);
		fprintf(f, "  %s[warn]%s near-limit-thp: ", col_yellow(color), col_reset(color));
		fputs_safe(w->node->path, f);
		fprintf(f, " uses %s of %s %s (%.1f%%) and holds %s of anon THP\n", cur,
			max_file(r->tree->version), max, w->use * 100, thp);
		fputs("         why: near its limit a THP fault's huge-page charge can fail (the "
		      "fault falls back to small pages) or push the cgroup into reclaim and the OOM "
		      "killer\n",
		      f);
	}
	for (size_t i = 0; unknown && i < r->n; i++)
		if (r->rows[i].near_limit_thp == CG_UNKNOWN)
			print_unknown(f, r->rows[i].node, r->tree->version);
}

/* The cells of row W (COL: which optional columns are there); each '-' noted in *SEEN. */
static void row_cells(struct table *tb, const struct cg_row *w, const bool col[4], unsigned *seen)
{
	const struct cg_node *n = w->node;
	table_cell(tb, "%s", n->path); /* escaped by the table, as everywhere (\x1b, \x09) */
	cell_bytes(tb, &n->ms.f[MS_ANON_THP], seen);
	if (w->has_share)
		table_cell(tb, "%.1f%%", w->share * 100);
	else
		cell_dash(tb, seen, w->share_why);
	for (int k = 0; k < 4; k++) {
		if (!col[k])
			continue;
		if (k < 2)
			cell_bytes(tb, &n->ms.f[opt_f[k]], seen);
		else
			cell_count(tb, &n->ms.f[opt_f[k]], seen);
	}
	if (n->current.present)
		cell_bytes(tb, &n->current, seen);
	else
		cell_dash(tb, seen, w->current_why);
	if (w->current_why == CGW_V1_ROOT_EST)
		*seen |= 1u << CGW_V1_ROOT_EST;
	cell_max(tb, n, seen);
	if (w->has_use)
		table_cell(tb, "%.1f%%", w->use * 100);
	else
		cell_dash(tb, seen, w->use_why);
	if (w->procs_known) {
		table_cell(tb, "%d", w->nprocs);
		if (w->procs_unknown)
			table_cell(tb, "%d+%d?", w->thp_off, w->procs_unknown);
		else
			table_cell(tb, "%d", w->thp_off);
	} else {
		cell_dash(tb, seen, CGW_UNKNOWN);
		cell_dash(tb, seen, CGW_UNKNOWN);
	}
}

/*
 * Under the table: the v1 root's CURRENT, and what each kind of '-' in it means (SEEN: a bit
 * per enum cg_why); nothing when the table has neither.
 */
static void print_notes(FILE *f, unsigned seen)
{
	if (seen & 1u << CGW_V1_ROOT_EST)
		fputs("  CURRENT of / (v1 memory.usage_in_bytes) is the kernel's estimate for the "
		      "whole host: page cache + anon, no kernel memory; a child's CURRENT counts its "
		      "kernel memory too, so it can be larger than the root's\n",
		      f);
	static const struct {
		enum cg_why w;
		const char *what;
	} legend[] = {
		{CGW_NO_LIMIT, "USE none: no limit (MAX max)"},
		{CGW_V2_ROOT, "CURRENT n/a at /: v2 has no memory.current at the root"},
		{CGW_NO_ANON, "THP/ANON n/a: no anon memory"},
		{CGW_UNKNOWN, "'-': unknown (not readable, or absent)"},
	};
	const char *sep = "  ";
	for (size_t i = 0; i < sizeof(legend) / sizeof(legend[0]); i++) {
		if (!(seen & 1u << legend[i].w))
			continue;
		fprintf(f, "%s%s", sep, legend[i].what);
		sep = "; ";
	}
	if (sep[0] == ';')
		fputc('\n', f);
}

/* Under the table, when a THP_OFF cell reads N+M?: what M is (not recorded, not readable). */
static void print_procs_unknown(FILE *f, const struct cg_report *r)
{
	bool unrecorded = false, unread = false;
	for (size_t i = 0; i < r->shown; i++) {
		const struct cg_row *w = &r->rows[i];
		if (!w->procs_known)
			continue;
		unrecorded |= w->procs_unrecorded > 0;
		unread |= w->procs_unknown > w->procs_unrecorded;
	}
	if (!unrecorded && !unread)
		return;
	fputs("  N+M? in THP_OFF: N processes with THP_enabled 0, and M more whose THP_enabled "
	      "is unknown (counted in PROCS): ",
	      f);
	if (unread)
		fputs("proc/PID/status not readable or without THP_enabled (kernel < 5.0)", f);
	if (unrecorded)
		fprintf(f,
			"%snot in this recorded tree (thpctl capture records a process only when "
			"given --pid or --all-processes)",
			unread ? "; " : "");
	fputc('\n', f);
}

/* Cgroups of T that lost a file or a line to damage (cg_node_damaged). */
static size_t damaged_nodes(const struct cg_tree *t)
{
	size_t n = 0;
	for (size_t i = 0; i < t->n; i++)
		n += cg_node_damaged(&t->nodes[i]);
	return n;
}

/* A replay whose bundle was extracted in part: cgroups may be missing, said. */
static void print_partial(FILE *f, const struct cg_tree *t)
{
	struct bundle_skips sk;
	bundle_skips_of(&t->skips, &sk);
	if (!bundle_skips_any(&sk))
		return;
	char w[SKIPS_WORDS_MAX];
	skips_words(w, sizeof(w), &sk);
	fputs("\n  partial: not in this replay, so cgroups may be missing: ", f);
	fputs_safe(w, f);
}

void cg_render_text(FILE *f, const struct cg_report *r, bool color)
{
	const struct cg_tree *t = r->tree;
	if (!t->version) {
		fputs("No memory cgroup hierarchy under /sys/fs/cgroup (no v2 memory controller, no\n"
		      "v1 memory/): not mounted, or not recorded in a --sysroot tree.\n",
		      f);
		return;
	}
	/* t->root is relative to the sysroot: "sys/fs/cgroup/memory" */
	fprintf(f, "Memory cgroups: cgroup v%d at /%s, %zu cgroup%s", t->version, t->root, r->n,
		r->n == 1 ? "" : "s");
	if (r->shown < r->n)
		fprintf(f, ", top %zu by anon THP", r->shown);
	if (t->skipped)
		fprintf(f, " (%zu more not read: too many or too deep)", t->skipped);
	print_partial(f, t);
	size_t dmg = damaged_nodes(t);
	if (dmg)
		fprintf(f,
			"\n  partial: %zu cgroup%s with a file unreadable or damaged (its values "
			"'-', a PID line that is no PID not counted)",
			dmg, dmg == 1 ? "" : "s");
	fprintf(f,
		"\n  sizes from memory.stat%s include the cgroups below; PROCS and THP_OFF too\n",
		t->version == 1 ? " (v1: total_rss_huge, total_rss)" : "");
	static const char *const opt_h[] = {"FILE_THP", "SHMEM_THP", "THP_FAULTS", "COLLAPSES"};
	bool col[4] = {false};
	const char *h[12] = {"CGROUP", "ANON_THP", "THP/ANON"};
	int nc = 3;
	for (int k = 0; k < 4; k++) {
		for (size_t i = 0; i < r->shown; i++)
			col[k] = col[k] || r->rows[i].node->ms.f[opt_f[k]].present;
		if (col[k])
			h[nc++] = opt_h[k];
	}
	if (nc < 7) {
		fputs("  not in any memory.stat shown (unknown):", f);
		for (int k = 0; k < 4; k++)
			if (!col[k])
				fprintf(f, " %s", ms_name[k]);
		fputc('\n', f);
	}
	static const char *const tail[] = {"CURRENT", "MAX", "USE", "PROCS", "THP_OFF"};
	for (int k = 0; k < 5; k++)
		h[nc++] = tail[k];
	char align[16] = "L";
	memset(align + 1, 'r', (size_t)nc - 1);
	align[nc] = '\0';
	struct table *tb = table_new(nc, h, align);
	if (!tb)
		return;
	unsigned seen = 0; /* why each '-' of the table is there: a bit per enum cg_why */
	for (size_t i = 0; i < r->shown; i++)
		row_cells(tb, &r->rows[i], col, &seen);
	table_flush(tb, f, 2, color);
	print_notes(f, seen);
	print_procs_unknown(f, r);
	if (r->fallback_charge.present)
		fprintf(f,
			"\nHost-wide, all cgroups since boot: thp_fault_fallback_charge %" PRIu64
			" (vmstat: THP faults that fell back to small pages because the memory "
			"cgroup charge failed)\n",
			r->fallback_charge.v);
	else
		fputs("\nHost-wide: thp_fault_fallback_charge -  (not in vmstat: kernel < 5.7, or "
		      "unreadable)\n",
		      f);
	print_flags(f, r, color);
}

static json_t *opt_json(const struct opt_u64 *o)
{
	return o->present ? json_u64(o->v) : json_null();
}

static json_t *tri_json(enum cg_tri v)
{
	return v == CG_UNKNOWN ? json_null() : json_boolean(v == CG_YES);
}

static json_t *row_json(const struct cg_row *w)
{
	const struct cg_node *n = w->node;
	json_t *o = json_object();
	json_put(o, "path", json_str(n->path));
	json_put(o, "anon_thp_bytes", opt_json(&n->ms.f[MS_ANON_THP]));
	json_put(o, "anon_bytes", opt_json(&n->ms.f[MS_ANON]));
	json_put(o, "anon_thp_ratio", w->has_share ? json_real(w->share) : json_null());
	json_put(o, "file_thp_bytes", opt_json(&n->ms.f[MS_FILE_THP]));
	json_put(o, "shmem_thp_bytes", opt_json(&n->ms.f[MS_SHMEM_THP]));
	json_put(o, "thp_fault_alloc", opt_json(&n->ms.f[MS_THP_FAULT_ALLOC]));
	json_put(o, "thp_collapse_alloc", opt_json(&n->ms.f[MS_THP_COLLAPSE_ALLOC]));
	json_put(o, "memory_current_bytes", opt_json(&n->current));
	json_put(o, "memory_max_limited", n->limit_known ? json_boolean(n->limited) : json_null());
	json_put(o, "memory_max_bytes",
		 n->limit_known && n->limited ? json_u64(n->limit) : json_null());
	json_put(o, "memory_use_ratio", w->has_use ? json_real(w->use) : json_null());
	json_put(o, "procs", w->procs_known ? json_integer(w->nprocs) : json_null());
	json_put(o, "procs_thp_disabled", w->procs_known ? json_integer(w->thp_off) : json_null());
	json_put(o, "procs_status_unreadable",
		 w->procs_known ? json_integer(w->procs_unknown) : json_null());
	json_put(o, "near_limit_with_thp", tri_json(w->near_limit_thp));
	return o;
}

json_t *cg_to_json(const struct cg_report *r)
{
	const struct cg_tree *t = r->tree;
	json_t *o = json_object();
	if (!o)
		return NULL;
	json_put(o, "cgroup_version", t->version ? json_integer(t->version) : json_null());
	char root[sizeof(t->root) + 1];
	snprintf(root, sizeof(root), "/%s", t->root); /* the host path, with its leading slash */
	json_put(o, "hierarchy", t->version ? json_str(root) : json_null());
	json_put(o, "count", json_integer((json_int_t)r->n));
	json_put(o, "shown", json_integer((json_int_t)r->shown));
	json_put(o, "not_read", json_integer((json_int_t)t->skipped));
	struct bundle_skips sk;
	bundle_skips_of(&t->skips, &sk);
	size_t dmg = damaged_nodes(t);
	json_put(o, "partial", json_boolean(bundle_skips_any(&sk) || dmg > 0));
	json_put(o, "damaged_cgroups", json_integer((json_int_t)dmg));
	json_t *miss = json_array();
	skips_json_missing(miss, &sk);
	json_put(o, "missing", miss);
	json_put(o, "near_limit_ratio", json_real(CG_NEAR_LIMIT));
	json_t *hw = json_object();
	json_put(hw, "thp_fault_fallback_charge", opt_json(&r->fallback_charge));
	json_put(o, "host_wide", hw);
	json_t *a = json_array();
	for (size_t i = 0; i < r->shown; i++)
		json_array_append_new(a, row_json(&r->rows[i]));
	json_put(o, "cgroups", a);
	json_t *fl = json_array();
	for (size_t i = 0; i < r->n; i++) {
		const struct cg_row *w = &r->rows[i];
		if (w->near_limit_thp != CG_YES)
			continue;
		json_t *x = json_object();
		json_put(x, "id", json_str("near-limit-thp"));
		json_put(x, "severity", json_str("warn"));
		json_put(x, "cgroup", json_str(w->node->path));
		json_put(x, "memory_current_bytes", json_u64(w->node->current.v));
		json_put(x, "memory_max_bytes", json_u64(w->node->limit));
		json_put(x, "anon_thp_bytes", json_u64(w->node->ms.f[MS_ANON_THP].v));
		json_array_append_new(fl, x);
	}
	json_put(o, "flags", fl);
	return o;
}
