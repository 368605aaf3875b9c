// SPDX-License-Identifier: MIT
/* `thpctl status`: the verdict block, the findings in detail, and `--brief`. */
#include <string.h>

#include "finding_text.h"
#include "json.h"
#include "status.h"
#include "status_int.h"
#include "table.h"
#include "../util/buf.h"
#include "../util/wrap.h"

static const char *sev_color(enum severity s, bool color)
{
	return s == SEV_CRIT ? col_red(color) : s == SEV_WARN ? col_yellow(color) : "";
}

/* The widest area name, for the verdict's second column. */
static int area_width(void)
{
	int w = 0;
	for (int a = 0; a < AREA_N; a++) {
		int n = (int)strlen(finding_area_name(a));
		w = n > w ? n : w;
	}
	return w;
}

/*
 * HEAD (a verdict row: severity, area, title), then "  ->  " and the command MORE, on F: one
 * line, which the stdout filter wraps; but when the wrapped HEAD's last line has no room
 * for the arrow and the whole command, they go on a line of their own under HEAD's
 * continuation indent (a command is not split over two lines, nor its arrow left alone).
 */
static void put_arrow_row(FILE *f, const char *head, const char *more)
{
	size_t w = f == stdout ? wrap_stdout_width() : 0, hl = strlen(head);
	struct buf b = {0};
	size_t need = 6 + wrap_display_width(more, strlen(more));
	if (w && wrap_display_width(head, hl) + need > w && wrap_line(&b, head, hl, w) == 0) {
		const char *last = b.len ? memrchr(b.p, '\n', b.len) : NULL;
		last = last ? last + 1 : b.p;
		if (wrap_display_width(last, b.len - (size_t)(last - b.p)) + need > w) {
			fprintf(f, "%s\n      ->  %s\n", head, more);
			buf_free(&b);
			return;
		}
	}
	buf_free(&b);
	fprintf(f, "%s  ->  %s\n", head, more);
}

void status_render_verdict(FILE *f, const struct findings *fs, bool partial, bool color)
{
	int worst[AREA_N], aw = area_width();
	findings_worst_per_area(fs, worst);
	fprintf(f, "\n%sVerdict%s  (worst finding per area; every finding under Findings)\n",
		col_bold(color), col_reset(color));
	for (int a = 0; a < AREA_N; a++) {
		if (worst[a] < 0)
			continue;
		const struct finding *x = &fs->f[worst[a]];
		struct finding_text w;
		finding_text(x, &w);
		const char *c = sev_color(x->sev, color);
		char head[sizeof(w.title) + 64];
		/* whole: a line wider than the terminal is wrapped (util/wrap.h), never cut */
		snprintf(head, sizeof(head), "  %s%-4s%s  %-*s  %s", c, severity_name(x->sev),
			 *c ? col_reset(color) : "", aw, finding_area_name(x->area),
			 strip_ctl(w.title));
		char more[sizeof(w.more_buf) + 64];
		snprintf(more, sizeof(more), "%s%s%s%s", w.more, w.more_as ? " (" : "",
			 w.more_as ? w.more_as : "", w.more_as ? ")" : "");
		put_arrow_row(f, head, more);
	}
	char clean[160] = "";
	size_t o = 0;
	for (int a = 0; a < AREA_N && o < sizeof(clean); a++)
		if (worst[a] < 0)
			o += (size_t)snprintf(clean + o, sizeof(clean) - o, "%s%s", o ? ", " : "",
					      finding_area_name(a));
	if (o)
		fprintf(f, "  %-4s  no finding in: %s%s\n", "-", clean,
			partial ? " (partial: rules over the unread files could not run)" : "");
}

/* The command that makes a setting fix permanent, "" when the fix is not a setting. */
static void persist_line(char *out, size_t n, const struct finding *x)
{
	if (!x->set_key[0])
		snprintf(out, n, "%s", "");
	else if (x->sysctl)
		snprintf(out, n, "thpctl persist --format sysctl --install %s=%s", x->set_key,
			 x->set_value);
	else
		snprintf(out, n, "thpctl persist %s--install %s=%s",
			 x->via_tuned ? "--format tuned " : "", x->set_key, x->set_value);
}

void status_render_findings(FILE *f, const struct findings *fs, bool color)
{
	fprintf(f, "\n%sFindings%s\n", col_bold(color), col_reset(color));
	if (!fs->n) {
		fprintf(f, "  none\n");
		return;
	}
	for (int i = 0; i < fs->n; i++) {
		const struct finding *x = &fs->f[i];
		struct finding_text w;
		finding_text(x, &w);
		const char *c = sev_color(x->sev, color);
		char p[192];
		fprintf(f, "  %s[%s]%s %s: ", c, severity_name(x->sev), *c ? col_reset(color) : "",
			finding_area_name(x->area));
		fputs_safe(w.title, f);
		fputs("\n         evidence: ", f);
		fputs_safe(w.evidence, f);
		fprintf(f, "\n         why:      %s\n         fix:      ", w.why);
		fputs_safe(w.fix, f);
		persist_line(p, sizeof(p), x);
		if (p[0])
			fprintf(f, "\n         persist:  %s", p);
		fprintf(f, "\n         more:     %s%s%s%s\n", w.more, w.more_as ? " (" : "",
			w.more_as ? w.more_as : "", w.more_as ? ")" : "");
	}
}

json_t *status_findings_json(const struct findings *fs)
{
	json_t *arr = json_array();
	for (int i = 0; i < fs->n; i++) {
		const struct finding *x = &fs->f[i];
		struct finding_text w;
		finding_text(x, &w);
		json_t *o = json_object();
		char p[192];
		json_put(o, "id", json_str(x->id));
		json_put(o, "severity", json_str(severity_name(x->sev)));
		json_put(o, "area", json_str(finding_area_name(x->area)));
		json_put(o, "title", json_str(w.title));
		json_put(o, "evidence", json_str(w.evidence));
		json_put(o, "why", json_str(w.why));
		json_put(o, "fix", json_str(w.fix));
		persist_line(p, sizeof(p), x);
		json_put(o, "persist", p[0] ? json_str(p) : NULL);
		json_t *set = NULL;
		if (x->set_key[0]) {
			set = json_object();
			json_put(set, "key", json_str(x->set_key));
			json_put(set, "value", json_str(x->set_value));
			json_put(set, "sysctl", json_boolean(x->sysctl));
		}
		json_put(o, "setting", set);
		json_put(o, "more", json_str(w.more));
		/* who sees the whole of it, as the text says in parentheses ("as root: ...") */
		json_put(o, "more_as", w.more_as ? json_str(w.more_as) : NULL);
		json_array_append_new(arr, o);
	}
	return arr;
}

json_t *status_verdict_json(const struct findings *fs)
{
	int worst[AREA_N];
	findings_worst_per_area(fs, worst);
	json_t *arr = json_array();
	for (int a = 0; a < AREA_N; a++) {
		json_t *o = json_object();
		json_put(o, "area", json_str(finding_area_name(a)));
		if (worst[a] < 0) {
			json_put(o, "severity",
				 NULL); /* no finding, which is not a proof of health */
			json_put(o, "finding", NULL);
			json_put(o, "title", NULL);
			json_put(o, "more", NULL);
			json_put(o, "more_as", NULL);
		} else {
			const struct finding *x = &fs->f[worst[a]];
			struct finding_text w;
			finding_text(x, &w);
			json_put(o, "severity", json_str(severity_name(x->sev)));
			json_put(o, "finding", json_str(x->id));
			json_put(o, "title", json_str(w.title));
			json_put(o, "more", json_str(w.more));
			json_put(o, "more_as", w.more_as ? json_str(w.more_as) : NULL);
		}
		json_array_append_new(arr, o);
	}
	return arr;
}

/* ---- --brief ---- */

static const char *choice_or_null(const struct choice *c)
{
	return c->present ? c->selected : NULL;
}

void status_render_brief(FILE *f, const struct host_snapshot *h, const struct host_derived *d,
			 const struct findings *fs, bool color)
{
	status_render_header(f, h, color);
	status_render_verdict(f, fs, host_snapshot_partial(h), color);
	fprintf(f, "\n%sKey settings%s\n", col_bold(color), col_reset(color));
	const struct thp_settings *s = &h->thp;
	struct table *t = table_new(2, NULL, "Ll");
	const char *names[] = {"enabled", "defrag", "shmem_enabled"};
	const struct choice *ch[] = {&s->enabled, &s->defrag, &s->shmem_enabled};
	unsigned seen = 0; /* the kinds of '-' printed, for the legend */
	for (int i = 0; i < 3; i++) {
		const char *v = s->present ? choice_or_null(ch[i]) : NULL;
		table_cell(t, "%s", names[i]);
		table_cell(t, "%s", v ? v : status_dash(&seen, SD_ABSENT));
	}
	uint64_t kb;
	char v[64];
	table_cell(t, "khugepaged/max_ptes_none");
	status_opt_str(v, sizeof(v), &s->khp[KHP_MAX_PTES_NONE], &seen, SD_ABSENT);
	table_cell(t, "%s", v);
	table_cell(t, "AnonHugePages (host-wide)");
	if (host_meminfo(h, "AnonHugePages", &kb)) {
		fmt_kb(v, sizeof(v), kb);
		table_cell(t, "%s", v);
	} else {
		table_cell(t, "%s", status_dash(&seen, SD_ABSENT));
	}
	table_cell(t, "PMD fault success since boot");
	status_ratio_str(v, sizeof(v), &d->fault_success, &seen, SD_ABSENT);
	table_cell(t, "%s", v);
	table_print(t, f, 2, color);
	table_free(t);
	status_dash_legend(f, h, seen);
	fprintf(f, "\nfull report: thpctl status\n");
}

json_t *status_brief_json(const struct host_snapshot *h, const struct host_derived *d,
			  const struct findings *fs)
{
	json_t *root = json_object(), *k = json_object();
	if (!json_made(&root, &k, NULL))
		return NULL;
	const struct thp_settings *s = &h->thp;
	json_put(root, "brief", json_true());
	status_partial_json(root, h);
	json_put(root, "verdict", status_verdict_json(fs));
	const char *en = s->present ? choice_or_null(&s->enabled) : NULL;
	const char *df = s->present ? choice_or_null(&s->defrag) : NULL;
	const char *sh = s->present ? choice_or_null(&s->shmem_enabled) : NULL;
	json_put(k, "enabled", en ? json_str(en) : NULL);
	json_put(k, "defrag", df ? json_str(df) : NULL);
	json_put(k, "shmem_enabled", sh ? json_str(sh) : NULL);
	json_put(k, "khugepaged_max_ptes_none", json_opt_u64(&s->khp[KHP_MAX_PTES_NONE]));
	json_put(root, "settings", k);
	uint64_t kb;
	json_put(root, "host_anon_huge_pages_kb",
		 host_meminfo(h, "AnonHugePages", &kb) ? json_u64(kb) : NULL);
	json_put(root, "pmd_fault_success_since_boot", status_ratio_json(&d->fault_success));
	return root;
}
