// SPDX-License-Identifier: MIT
#include "folios.h"

#include <string.h>

#include "json.h"
#include "table.h"
#include "../util/names.h"
#include "hint.h"

static const char *const partial_reasons[] = {
	[FM_SMAPS_SCAN] = "PFNs are hidden without CAP_SYS_ADMIN: only PMD-mapped THP is visible "
			  "(smaps AnonHugePages/ShmemPmdMapped/FilePmdMapped, PAGEMAP_SCAN); "
			  "PTE-mapped mTHP (16 kB-1 MiB folios) is not: run as root",
	[FM_SMAPS] =
		"PFNs are hidden without CAP_SYS_ADMIN: only PMD-mapped THP is visible "
		"(smaps; no PAGEMAP_SCAN on this kernel); PTE-mapped mTHP is not: run as root"};

const char *folio_partial_reason(enum folio_method m)
{
	return ENUM_NAME(partial_reasons, m, NULL);
}

static const char *type_name(int t)
{
	return t == FT_ANON ? "anon" : "file";
}

static void size_name(char *out, size_t n, const struct folio_geom *g, int order)
{
	snprintf(out, n, "%llukB", (unsigned long long)(g->page_kb << order));
}

/* PAGES of C's type TY RSS as a share (fmt_pct: never 100% with a page left out); TY < 0 or no
 * RSS: '-' */
static void pct_cell(struct table *t, const struct folio_acct *c, int ty, uint64_t pages)
{
	char s[32];
	if (ty < 0 || !c->rss[ty])
		snprintf(s, sizeof(s), "-");
	else
		fmt_pct(s, sizeof(s), pages, c->rss[ty], 0);
	table_cell(t, "%s", s);
}

/* The rows of one counts block (a VMA or the total); the first row carries LEAD's three cells. */
static void count_rows(struct table *t, const char *const lead[3], const struct folio_acct *c,
		       const struct folio_geom *g, bool partial)
{
	bool first = true;
	char kb[32], sz[32];
#define ROW(type, folio, mapped, pages, ty)                                                        \
	do {                                                                                       \
		for (int l_ = 0; l_ < 3; l_++)                                                     \
			table_cell(t, "%s", first ? lead[l_] : "");                                \
		first = false;                                                                     \
		table_cell(t, "%s", type);                                                         \
		table_cell(t, "%s", folio);                                                        \
		table_cell(t, "%s", mapped);                                                       \
		fmt_kb(kb, sizeof(kb), folio_kb(g, pages));                                        \
		table_cell(t, "%s", kb);                                                           \
		pct_cell(t, c, ty, pages);                                                         \
	} while (0)
	for (int ty = 0; ty < FT_N; ty++) {
		const char *tn = type_name(ty);
		if (c->pmd[ty]) {
			size_name(sz, sizeof(sz), g, g->pmd_order);
			ROW(tn, sz, "PMD", c->pmd[ty], ty);
		}
		for (int o = FOLIO_ORDERS - 1; o >= 0; o--) {
			size_name(sz, sizeof(sz), g, o);
			if (c->aligned[ty][o])
				ROW(tn, sz, "PTE aligned", c->aligned[ty][o], ty);
			if (c->unaligned[ty][o])
				ROW(tn, sz, "PTE unaligned", c->unaligned[ty][o], ty);
		}
		if (c->partial[ty])
			ROW(tn, "-", "partial", c->partial[ty], ty);
		if (g->cont_kb && !partial && (c->pmd[ty] || c->cont_pte[ty])) {
			snprintf(sz, sizeof(sz), "%llukB blk", (unsigned long long)g->cont_kb);
			if (c->pmd[ty])
				ROW(tn, sz, "cont PMD", c->pmd[ty], ty);
			if (c->cont_pte[ty])
				ROW(tn, sz, "cont PTE", c->cont_pte[ty], ty);
		}
	}
	if (c->zero_pmd) {
		size_name(sz, sizeof(sz), g, g->pmd_order);
		ROW("zero", sz, "PMD", c->zero_pmd, -1);
	}
#undef ROW
}

static void thp_summary(FILE *f, const char *what, const struct folio_acct *c,
			const struct folio_geom *g, bool partial)
{
	char a[32], b[32];
	fmt_kb(a, sizeof(a), folio_kb(g, c->rss[FT_ANON]));
	fmt_kb(b, sizeof(b), folio_kb(g, c->rss[FT_FILE]));
	char p[32];
	fprintf(f, "%s RSS: anon %s", what, a);
	if (c->rss[FT_ANON]) {
		fmt_pct(p, sizeof(p), folio_thp_pages(c, FT_ANON), c->rss[FT_ANON], 0);
		fprintf(f, " (%s in THP%s)", p, partial ? ", PMD-mapped only" : "");
	}
	fprintf(f, ", file/shmem %s", b);
	if (c->rss[FT_FILE]) {
		fmt_pct(p, sizeof(p), folio_thp_pages(c, FT_FILE), c->rss[FT_FILE], 0);
		fprintf(f, " (%s in THP%s)", p, partial ? ", PMD-mapped only" : "");
	}
	fprintf(f, "\n");
}

void folio_maps_render_text(FILE *f, const struct folio_report *r, bool color)
{
	bool partial = folio_method_is_partial(r->method);
	fprintf(f, "%sPID %ld%s (", col_bold(color), r->pid, col_reset(color));
	fputs_safe(r->st.name, f);
	fprintf(f, ")  folios by %s: %zu of %zu VMAs hold THP, read in %.1f ms\n",
		folio_method_label(r->method), r->n, r->nvmas, r->elapsed_ms);
	if (partial)
		fprintf(f, "%spartial: %s%s\n", col_yellow(color), folio_partial_reason(r->method),
			col_reset(color));
	static const char *const hdr[] = {"START-END", "PERM",	 "NAME",   "TYPE",
					  "FOLIO",     "MAPPED", "MEMORY", "% OF RSS"};
	struct table *t = table_new(8, hdr, "llllllrr");
	char range[64];
	for (size_t i = 0; i < r->n; i++) {
		const struct folio_vma_row *v = &r->vmas[i];
		snprintf(range, sizeof(range), "%012llx-%012llx", (unsigned long long)v->start,
			 (unsigned long long)v->end);
		const char *lead[3] = {range, v->perms, v->name};
		count_rows(t, lead, &v->c, &r->g, partial);
	}
	const char *lead[3] = {"total", "", ""};
	count_rows(t, lead, &r->total, &r->g, partial);
	table_flush(t, f, 0, color);
	if (r->total.partial[FT_ANON] || r->total.partial[FT_FILE]) /* the '-' of those rows */
		fprintf(f,
			"FOLIO - (MAPPED partial): pages of folios mapped only in part (cut by a "
			"VMA's edge, munmap or MADV_DONTNEED); the scan reads the pages mapped, "
			"not their folio's size\n");
	thp_summary(f, "process", &r->total, &r->g, partial);
	folio_numa_render_text(f, r->numa, &r->total, r->has_allowed ? &r->allowed : NULL, &r->g,
			       partial, color);
	if (!r->n)
		fprintf(f, "no THP in this process%s\n",
			partial ? " that smaps or PAGEMAP_SCAN can see" : "");
}

/* ---- JSON ---- */

static json_t *share_json(double s)
{
	return s >= 0 ? json_real(s) : json_null();
}

static json_t *type_json(const struct folio_acct *c, int ty, const struct folio_geom *g,
			 bool partial)
{
	json_t *o = json_object(), *sizes = json_array();
	const struct folio_geom *gg = g;
	uint64_t thp = folio_thp_pages(c, ty);
	json_put(o, "rss_kb", json_u64(folio_kb(gg, c->rss[ty])));
	json_put(o, "thp_kb", json_u64(folio_kb(gg, thp)));
	json_put(o, "thp_share", share_json(folio_share(c, ty, thp)));
	json_put(o, "pmd_kb", json_u64(folio_kb(gg, c->pmd[ty])));
	json_put(o, "pmd_share", share_json(folio_share(c, ty, c->pmd[ty])));
	json_put(o, "partial_kb", partial ? NULL : json_u64(folio_kb(gg, c->partial[ty])));
	json_put(o, "partial_share",
		 partial ? NULL : share_json(folio_share(c, ty, c->partial[ty])));
	uint32_t orders = g->host_orders | folio_orders_used(c, g->pmd_order);
	for (int ord = 1; ord < FOLIO_ORDERS; ord++) {
		if (!(orders & (1u << ord)))
			continue;
		json_t *s = json_object();
		uint64_t al = c->aligned[ty][ord], un = c->unaligned[ty][ord];
		uint64_t pmd = ord == g->pmd_order ? c->pmd[ty] : 0;
		json_put(s, "size_kb", json_u64(g->page_kb << ord));
		json_put(s, "kb",
			 partial && ord != g->pmd_order ? NULL
							: json_u64(folio_kb(gg, al + un + pmd)));
		json_put(s, "pmd_kb", ord == g->pmd_order ? json_u64(folio_kb(gg, pmd)) : NULL);
		json_put(s, "pte_aligned_kb", partial ? NULL : json_u64(folio_kb(gg, al)));
		json_put(s, "pte_aligned_share",
			 partial ? NULL : share_json(folio_share(c, ty, al)));
		json_put(s, "pte_unaligned_kb", partial ? NULL : json_u64(folio_kb(gg, un)));
		json_put(s, "pte_unaligned_share",
			 partial ? NULL : share_json(folio_share(c, ty, un)));
		json_array_append_new(sizes, s);
	}
	json_put(o, "sizes", sizes);
	json_t *b = NULL; /* null without --cont */
	if (g->cont_kb) {
		b = json_object();
		json_put(b, "size_kb", json_u64(g->cont_kb));
		json_put(b, "pmd_kb", json_u64(folio_kb(gg, c->pmd[ty])));
		json_put(b, "pte_kb", partial ? NULL : json_u64(folio_kb(gg, c->cont_pte[ty])));
		json_put(b, "pte_share",
			 partial ? NULL : share_json(folio_share(c, ty, c->cont_pte[ty])));
	}
	json_put(o, "cont", b);
	return o;
}

/* The counts of C into O; C NULL (a process that could not be read): each one null. */
static void counts_json(json_t *o, const struct folio_acct *c, const struct folio_geom *g,
			bool partial)
{
	json_put(o, "anon", c ? type_json(c, FT_ANON, g, partial) : NULL);
	json_put(o, "file", c ? type_json(c, FT_FILE, g, partial) : NULL);
	json_put(o, "zero_page_pte_kb", c && !partial ? json_u64(folio_kb(g, c->zero_pte)) : NULL);
	json_put(o, "zero_page_pmd_kb", c ? json_u64(folio_kb(g, c->zero_pmd)) : NULL);
	json_put(o, "swap_kb", c ? json_u64(folio_kb(g, c->swap)) : NULL);
	json_put(o, "hugetlb_kb", c ? json_u64(folio_kb(g, c->hugetlb)) : NULL);
}

static void method_json(json_t *root, enum folio_method m, const struct folio_geom *g)
{
	json_put(root, "method", json_str(folio_method_label(m)));
	json_put(root, "partial", json_boolean(folio_method_is_partial(m)));
	json_put(root, "partial_reason", json_str(folio_partial_reason(m)));
	json_put(root, "page_kb", json_u64(g->page_kb));
	json_put(root, "pmd_kb", json_u64(g->page_kb << g->pmd_order));
	json_put(root, "cont_kb", g->cont_kb ? json_u64(g->cont_kb) : NULL);
}

json_t *folio_maps_to_json(const struct folio_report *r)
{
	bool partial = folio_method_is_partial(r->method);
	json_t *root = json_object(), *arr = json_array();
	json_put(root, "pid", json_integer(r->pid));
	json_put(root, "comm", json_str(r->st.name));
	method_json(root, r->method, &r->g);
	json_put(root, "elapsed_ms", json_real(r->elapsed_ms));
	json_put(root, "vmas_read", json_integer((json_int_t)r->nvmas));
	for (size_t i = 0; i < r->n; i++) {
		const struct folio_vma_row *v = &r->vmas[i];
		json_t *o = json_object();
		json_put_hex_range(o, v->start, v->end);
		json_put(o, "perms", json_str(v->perms));
		json_put(o, "name", json_str(v->name));
		counts_json(o, &v->c, &r->g, partial);
		json_array_append_new(arr, o);
	}
	json_put(root, "vmas", arr);
	json_t *t = json_object();
	counts_json(t, &r->total, &r->g, partial);
	json_put(root, "totals", t);
	json_put(root, "numa",
		 folio_numa_to_json(r->numa, &r->total, r->has_allowed ? &r->allowed : NULL, &r->g,
				    partial));
	return root;
}

/* ---- ps --folios ---- */

/* The folio orders to show as columns (at most 10, the largest if more), smallest first. */
static int ps_size_columns(const struct folio_ps_report *r, struct folio_acct *tot,
			   int sizes[FOLIO_ORDERS])
{
	int ns = 0;
	for (size_t i = 0; i < r->n; i++)
		if (!r->rows[i].denied)
			folio_sum(tot, &r->rows[i].c);
	uint32_t orders = r->g.host_orders | folio_orders_used(tot, r->g.pmd_order);
	/* a table holds 16 columns: 6 fixed, the largest sizes first if there are too many */
	for (int o = FOLIO_ORDERS - 1; o >= 1 && ns < 10; o--)
		if (orders & (1u << o))
			sizes[ns++] = o;
	for (int i = 0; i < ns / 2; i++) { /* smallest first */
		int x = sizes[i];
		sizes[i] = sizes[ns - 1 - i];
		sizes[ns - 1 - i] = x;
	}
	return ns;
}

/* What the columns of ps --folios are, under its table. */
static void ps_legend(FILE *f, const struct folio_ps_report *r)
{
	fprintf(f,
		"RSS from pagemap (anon + file/shmem); sizes are whole folios, PMD- and PTE-mapped, "
		"anon + file; PARTIAL: pages of folios mapped in part; THP%%rss: RSS in THP "
		"folios of every size, partial ones too\n");
	if (r->g.cont_kb)
		fprintf(f,
			"%llukB_blk: memory in aligned %llu kB blocks inside one folio, PMD-mapped or "
			"by contiguous PTEs (per VMA: thpctl maps PID --folios --cont)\n",
			(unsigned long long)r->g.cont_kb, (unsigned long long)r->g.cont_kb);
}

void folio_ps_render_text(FILE *f, const struct folio_ps_report *r, bool color)
{
	bool partial = folio_method_is_partial(r->method);
	int sizes[FOLIO_ORDERS] = {0};
	struct folio_acct tot = {0};
	int ns = ps_size_columns(r, &tot, sizes);
	const char *hdr[7 + FOLIO_ORDERS];
	char names[FOLIO_ORDERS][24], align[7 + FOLIO_ORDERS + 1], blk[32];
	int nc = 0;
	hdr[nc++] = "PID";
	hdr[nc++] = "USER";
	hdr[nc++] = "COMM";
	hdr[nc++] = "RSS";
	for (int i = 0; i < ns; i++) {
		size_name(names[i], sizeof(names[i]), &r->g, sizes[i]);
		hdr[nc++] = names[i];
	}
	if (r->g.cont_kb) { /* --cont SIZE: memory in aligned SIZE blocks inside one folio */
		snprintf(blk, sizeof(blk), "%llukB_blk", (unsigned long long)r->g.cont_kb);
		hdr[nc++] = blk;
	}
	hdr[nc++] = "PARTIAL";
	hdr[nc++] = "THP%rss";
	for (int i = 0; i < nc; i++)
		align[i] = i == 1 || i == 2 ? 'l' : 'r';
	align[nc] = '\0';
	struct table *t = table_new(nc, hdr, align);
	char kb[32];
#define KBC(pages)                                                                                 \
	do {                                                                                       \
		fmt_kb(kb, sizeof(kb), folio_kb(&r->g, pages));                                    \
		table_cell(t, "%s", kb);                                                           \
	} while (0)
	for (size_t i = 0; i <= r->n; i++) {
		bool total = i == r->n;
		const struct folio_ps_row *row = total ? NULL : &r->rows[i];
		const struct folio_acct *c = total ? &tot : &row->c;
		if (total) {
			table_cell(t, "total");
			table_cell(t, "%zu proc%s", r->n, r->n == 1 ? "" : "s");
			table_cell(t, "%s", "");
			KBC(c->rss[FT_ANON] + c->rss[FT_FILE]);
		} else {
			table_cell(t, "%ld", row->pid);
			table_cell(t, "%s", row->user);
			table_cell(t, "%s", row->comm);
			if (row->denied) {
				for (int k = 3; k < nc; k++)
					table_cell(t, "-");
				continue;
			}
			KBC(c->rss[FT_ANON] + c->rss[FT_FILE]);
		}
		for (int k = 0; k < ns; k++) {
			if (partial && sizes[k] != r->g.pmd_order) {
				table_cell(t, "-");
				continue;
			}
			KBC(folio_order_pages(c, FT_ANON, sizes[k], r->g.pmd_order) +
			    folio_order_pages(c, FT_FILE, sizes[k], r->g.pmd_order));
		}
		if (r->g.cont_kb && partial)
			table_cell(t, "-");
		else if (r->g.cont_kb)
			KBC(c->pmd[FT_ANON] + c->pmd[FT_FILE] + c->cont_pte[FT_ANON] +
			    c->cont_pte[FT_FILE]);
		if (partial)
			table_cell(t, "-");
		else
			KBC(c->partial[FT_ANON] + c->partial[FT_FILE]);
		uint64_t rss = c->rss[FT_ANON] + c->rss[FT_FILE];
		uint64_t thp = folio_thp_pages(c, FT_ANON) + folio_thp_pages(c, FT_FILE);
		if (rss)
			table_cell(t, "%.0f%%", 100.0 * (double)thp / (double)rss);
		else
			table_cell(t, "-");
	}
#undef KBC
	table_flush(t, f, 0, color);
	ps_legend(f, r);
	fprintf(f, "folios by %s, %.1f ms\n", folio_method_label(r->method), r->elapsed_ms);
	if (r->cgroup) {
		fprintf(f, "cgroup ");
		fputs_safe(r->cgroup, f);
		fprintf(f, " and its descendants\n");
	}
	if (partial)
		fprintf(f, "%spartial: %s%s\n", col_yellow(color), folio_partial_reason(r->method),
			col_reset(color));
	if (r->denied)
		fprintf(f, "%s%d not readable: %s (partial)%s\n", col_yellow(color), r->denied,
			hint_proc_denied(r->as_root), col_reset(color));
	if (r->errors)
		fprintf(f, "%d process%s could not be read (partial)\n", r->errors,
			r->errors == 1 ? "" : "es");
	folio_ps_numa_render_text(f, r, color);
}

json_t *folio_ps_to_json(const struct folio_ps_report *r)
{
	bool partial = folio_method_is_partial(r->method);
	json_t *root = json_object(), *arr = json_array();
	struct folio_acct tot = {0};
	json_put(root, "mode", json_str("folios"));
	method_json(root, r->method, &r->g);
	json_put(root, "partial", json_boolean(partial || r->denied || r->errors));
	json_put(root, "unreadable", json_integer(r->denied));
	json_put(root, "errors", json_integer(r->errors));
	json_put(root, "cgroup", json_str(r->cgroup));
	json_put(root, "elapsed_ms", json_real(r->elapsed_ms));
	for (size_t i = 0; i < r->n; i++) {
		const struct folio_ps_row *row = &r->rows[i];
		json_t *o = json_object();
		json_put(o, "pid", json_integer(row->pid));
		json_put(o, "ppid", row->ppid >= 0 ? json_integer(row->ppid) : NULL);
		json_put(o, "uid", row->uid >= 0 ? json_integer(row->uid) : NULL);
		json_put(o, "user", json_str(row->user));
		json_put(o, "comm", json_str(row->comm));
		json_put(o, "readable", json_boolean(!row->denied));
		json_put(o, "vmrss_kb", row->vmrss_kb.present ? json_u64(row->vmrss_kb.v) : NULL);
		counts_json(o, row->denied ? NULL : &row->c, &r->g, partial);
		json_put(o, "numa",
			 row->denied ? NULL
				     : folio_numa_to_json(r->numa, &row->c,
							  row->has_allowed ? &row->allowed : NULL,
							  &r->g, partial));
		if (!row->denied)
			folio_sum(&tot, &row->c);
		json_array_append_new(arr, o);
	}
	json_put(root, "processes", arr);
	json_t *t = json_object();
	json_put(t, "processes", json_integer((json_int_t)r->n));
	counts_json(t, &tot, &r->g, partial);
	json_put(root, "totals", t);
	return root;
}
