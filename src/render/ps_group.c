// SPDX-License-Identifier: MIT
#include "ps_group.h"

#include <inttypes.h>

#include "json.h"
#include "skips.h"
#include "table.h"

/* NUM of DEN (V = their ratio, -1 unknown) as fmt_pct writes it: never 100.0% with a part
 * left out, never 0.0% with some in (the plain ratio only past 64-bit sums) */
static void cell_pct(struct table *t, double v, u128 num, u128 den)
{
	char s[32];
	if (v < 0)
		table_cell(t, "-");
	else if (den > UINT64_MAX) {
		table_cell(t, "%.1f%%", v * 100);
	} else {
		fmt_pct(s, sizeof(s), (uint64_t)(num < den ? num : den), (uint64_t)den, 1);
		table_cell(t, "%s", s);
	}
}

static void cell_kb(struct table *t, u128 kb)
{
	char s[64];
	fmt_kb_wide(s, sizeof(s), kb);
	table_cell(t, "%s", s);
}

/* The UNREADABLE column, summed. */
static int unreadable(const struct psg_report *r)
{
	int n = 0;
	for (size_t i = 0; i < r->n; i++)
		n += r->rows[i].unknown;
	return n;
}

void psg_render_text(FILE *f, const struct psg_report *r, bool color)
{
	int unread = unreadable(r);
	const char *pl = r->nprocs == 1 ? "" : "es";
	if (r->version)
		fprintf(f,
			"Processes by memory cgroup (cgroup v%d, from cgroup.procs): %zu process%s",
			r->version, r->nprocs, pl);
	else
		fprintf(f,
			"Processes by memory cgroup: no memory cgroup hierarchy found, %zu process%s "
			"in group '-'",
			r->nprocs, pl);
	if (unread)
		fprintf(f, ", %d of them unreadable", unread);
	fputc('\n', f);
	if (r->relevant_only)
		fputs("  only processes that use, request (hg) or refuse huge pages (--all: every "
		      "one)\n",
		      f);
	fputs("  each process counts in its own cgroup only (not in the cgroups above it)\n", f);
	static const char *const hdr[] = {"CGROUP",   "PROCS",	    "ANON_HUGE", "RSS",
					  "THP/ANON", "OF_ALL_AHP", "UNREADABLE"};
	struct table *t = table_new(7, hdr, "Lrrrrrr");
	if (!t)
		return;
	for (size_t i = 0; i < r->n; i++) {
		const struct psg_row *g = &r->rows[i];
		table_cell(t, "%s", g->key ? g->key : "-");
		table_cell(t, "%d", g->n);
		if (g->unknown == g->n) {
			table_cell(t, "-");
			table_cell(t, "-");
		} else {
			cell_kb(t, g->ahp_kb);
			cell_kb(t, g->rss_kb);
		}
		cell_pct(t, g->share, g->ahp_kb, g->anon_kb);
		cell_pct(t, g->of_total, g->ahp_kb, g->total_ahp_kb);
		table_cell(t, "%d", g->unknown);
	}
	table_flush(t, f, 2, color);
	if (unread)
		fprintf(f,
			"\n%d process%s unreadable (smaps): in UNREADABLE of its cgroup, left out of "
			"the sums (partial)\n",
			unread, unread == 1 ? "" : "es");
	if (r->denied)
		fprintf(f, "%s%d more process%s unreadable, in no row (left out by the filter)\n",
			unread ? "" : "\n", r->denied, r->denied == 1 ? "" : "es");
	if (r->has_host_ahp) {
		char s[32];
		fmt_kb(s, sizeof(s), r->host_ahp_kb);
		fprintf(f,
			"\nHost-wide AnonHugePages (meminfo): %s; the sums above are per process "
			"(a THP shared after fork counts in each)\n",
			s);
	}
	if (r->n && !r->rows[r->n - 1].key)
		fputs("'-': processes not listed in any cgroup.procs of the memory hierarchy\n", f);
	if (r->skips)
		skips_note(f, "", NULL, r->skips);
}

static json_t *num_or_null(double v)
{
	return v < 0 ? json_null() : json_real(v);
}

json_t *psg_to_json(const struct psg_report *r)
{
	json_t *o = json_object(), *a = json_array();
	if (!json_made(&o, &a, NULL))
		return NULL;
	json_put(o, "by", json_string("cgroup"));
	json_put(o, "cgroup_version", r->version ? json_integer(r->version) : json_null());
	json_put(o, "processes", json_integer((json_int_t)r->nprocs));
	json_put(o, "relevant_only", json_boolean(r->relevant_only));
	json_put(o, "unreadable", json_integer(unreadable(r) + r->denied));
	json_put(o, "partial",
		 json_boolean(r->partial || (r->skips && bundle_skips_any(r->skips))));
	json_put(o, "host_anon_huge_pages_bytes",
		 r->has_host_ahp ? json_u128((u128)r->host_ahp_kb * 1024) : json_null());
	for (size_t i = 0; i < r->n; i++) {
		const struct psg_row *g = &r->rows[i];
		json_t *e = json_object();
		if (!e)
			break;
		bool none = g->unknown == g->n;
		json_put(e, "cgroup",
			 g->key ? json_str(g->key) : json_null()); /* from the tree: any bytes */
		json_put(e, "processes", json_integer(g->n));
		json_put(e, "unreadable", json_integer(g->unknown));
		json_put(e, "anon_huge_pages_bytes",
			 none ? json_null() : json_u128(g->ahp_kb * 1024));
		/* below 2^64 * 2^32 processes * 1024: exact in a u128 */
		json_put(e, "rss_bytes", none ? json_null() : json_u128(g->rss_kb * 1024));
		json_put(e, "anonymous_bytes", none ? json_null() : json_u128(g->anon_kb * 1024));
		json_put(e, "thp_share_of_anon", num_or_null(g->share));
		json_put(e, "share_of_all_anon_huge_pages", num_or_null(g->of_total));
		json_array_append_new(a, e);
	}
	json_put(o, "groups", a);
	return o;
}
