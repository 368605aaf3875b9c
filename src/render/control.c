// SPDX-License-Identifier: MIT
#include "control.h"

#include <errno.h>
#include <string.h>

#include "json.h"
#include "table.h"
#include "../util/names.h"

static const char *const errnames[] = {
	[EPERM] = "EPERM",   [EACCES] = "EACCES", [EINVAL] = "EINVAL", [ENOMEM] = "ENOMEM",
	[EAGAIN] = "EAGAIN", [EBUSY] = "EBUSY",	  [ESRCH] = "ESRCH",   [ENOSYS] = "ENOSYS",
	[EIO] = "EIO",	     [EROFS] = "EROFS"};

static const char *errname(int err)
{
	return ENUM_NAME(errnames, -err, "error");
}

/* ---- set / snapshot restore ---------------------------------------------- */

void plan_render_text(FILE *f, const struct settings_plan *p, bool color)
{
	for (int i = 0; i < p->n; i++) {
		/* keys and values from a tree or a snapshot file: escaped copies */
		struct plan_entry esc = p->e[i];
		const struct plan_entry *e = &esc;
		esc_buf(esc.key, sizeof(esc.key), p->e[i].key);
		esc_buf(esc.old, sizeof(esc.old), p->e[i].old);
		esc_buf(esc.new, sizeof(esc.new), p->e[i].new);
		if (e->state == PS_UNCHANGED) {
			fprintf(f, "%s: %s %s(unchanged)%s\n", e->key, e->old, col_dim(color),
				col_reset(color));
			continue;
		}
		fprintf(f, "%s: %s -> %s", e->key, e->old, e->new);
		switch (e->state) {
		case PS_FAILED:
			fprintf(f, " %sFAILED: %s%s", col_red(color), strerror(-e->err),
				col_reset(color));
			break;
		case PS_ROLLED_BACK:
			fprintf(f, " %s(rolled back to %s)%s", col_yellow(color), e->old,
				col_reset(color));
			break;
		case PS_NOT_WRITTEN:
			fprintf(f, " (not written)");
			break;
		default:
			break;
		}
		fputc('\n', f);
	}
}

void plan_render_shell(FILE *f, const struct settings_plan *p, const char *thp_dir)
{
	for (int i = 0; i < p->n; i++) {
		struct plan_entry esc =
			p->e[i]; /* never a raw control byte, not even in a command */
		const struct plan_entry *e = &esc;
		esc_buf(esc.key, sizeof(esc.key), p->e[i].key);
		esc_buf(esc.new, sizeof(esc.new), p->e[i].new);
		if (e->state == PS_UNCHANGED)
			fprintf(f, "# %s is already %s\n", e->key, e->new);
		else
			fprintf(f, "echo %s > %s/%s\n", e->new, thp_dir, e->key);
	}
}

static json_t *notes_json(const struct plan_note *n, int cnt)
{
	json_t *a = json_array();
	for (int i = 0; a && i < cnt; i++) {
		json_t *o = json_object();
		json_put(o, "key", json_str(n[i].key));
		json_put(o, "reason", json_str(n[i].text));
		json_array_append_new(a, o);
	}
	return a;
}

json_t *plan_to_json(const struct settings_plan *p, const char *thp_dir, bool dry_run, bool ok)
{
	json_t *root = json_object(), *ch = json_array(), *sh = dry_run ? json_array() : NULL;
	if (!root || !ch) {
		json_decref(root);
		json_decref(ch);
		json_decref(sh);
		return NULL;
	}
	json_put(root, "dry_run", json_boolean(dry_run));
	json_put(root, "ok", json_boolean(ok));
	for (int i = 0; i < p->n; i++) {
		const struct plan_entry *e = &p->e[i];
		json_t *o = json_object();
		char path[PATH_MAX];
		snprintf(path, sizeof(path), "%s/%s", thp_dir, e->key);
		json_put(o, "key", json_str(e->key));
		json_put(o, "path", json_str(path));
		json_put(o, "old", json_str(e->old));
		json_put(o, "new", json_str(e->new));
		json_put(o, "state", json_str(plan_state_name(e->state)));
		json_put(o, "error", e->err ? json_str(strerror(-e->err)) : NULL);
		json_array_append_new(ch, o);
		if (sh && e->state != PS_UNCHANGED) {
			char line[PATH_MAX + 96];
			snprintf(line, sizeof(line), "echo %s > %s", e->new, path);
			json_array_append_new(sh, json_str(line));
		}
	}
	json_put(root, "changes", ch);
	json_put(root, "invalid", notes_json(p->bad, p->nbad));
	json_put(root, "skipped", notes_json(p->skip, p->nskip));
	if (sh)
		json_put(root, "shell", sh);
	return root;
}

/* ---- snapshot diff --------------------------------------------------------- */

void snap_diff_render_text(FILE *f, const struct snap_diff *d, int n, const char *file, bool color)
{
	if (!n) {
		fprintf(f, "no differences between %s and the running kernel\n", file);
		return;
	}
	struct table *t = table_new(3, (const char *const[]){"KNOB", "FILE", "NOW"}, "lll");
	for (int i = 0; i < n; i++) {
		table_cell(t, "%s", d[i].key);
		table_cell(t, "%s", d[i].file[0] ? d[i].file : "(not in file)");
		table_cell(t, "%s", d[i].cur[0] ? d[i].cur : "(not on this kernel)");
	}
	table_flush(t, f, 0, color);
}

json_t *snap_diff_to_json(const struct snap_diff *d, int n, const char *file,
			  const struct snapshot *saved)
{
	json_t *root = json_object(), *a = json_array();
	if (!root || !a) {
		json_decref(root);
		json_decref(a);
		return NULL;
	}
	json_put(root, "file", json_str(file));
	json_put(root, "file_kernel", json_str(saved->kernel));
	json_put(root, "file_date", json_str(saved->date));
	json_put(root, "differences", json_integer(n));
	for (int i = 0; i < n; i++) {
		json_t *o = json_object();
		json_put(o, "key", json_str(d[i].key));
		json_put(o, "file", d[i].file[0] ? json_str(d[i].file) : NULL);
		json_put(o, "current", d[i].cur[0] ? json_str(d[i].cur) : NULL);
		json_array_append_new(a, o);
	}
	json_put(root, "diff", a);
	return root;
}

/* ---- collapse -------------------------------------------------------------- */

static void result_text(char *out, size_t n, const struct crange *r)
{
	if (r->skip != CR_GO) {
		snprintf(out, n, "skipped");
		return;
	}
	if (!r->attempted) {
		snprintf(out, n, "not tried");
		return;
	}
	if (r->nfail)
		snprintf(out, n, "%s: %llu of %llu failed", errname(r->err),
			 (unsigned long long)r->nfail, (unsigned long long)r->npmd);
	else if (r->nempty)
		snprintf(out, n, "ok (%llu empty)", (unsigned long long)r->nempty);
	else
		snprintf(out, n, "ok");
}

static void buddy_line(FILE *f, const struct collapse_report *r)
{
	if (!r->buddy || r->pmd_order <= 0)
		return;
	fprintf(f, "  free blocks of order >= %d (one huge page each or more):", r->pmd_order);
	for (int i = 0; i < r->buddy->nzones; i++) {
		char nb[40];
		fmt_u128(nb, sizeof(nb), buddy_blocks_at_least(&r->buddy->zones[i], r->pmd_order));
		fprintf(f, "%s node %d %s %s", i ? "," : "", r->buddy->zones[i].node,
			r->buddy->zones[i].zone, nb);
	}
	fputc('\n', f);
}

static void collapse_render_reasons(FILE *f, const struct collapse_report *r, const char *pmd,
				    bool color);

/* The estimate: with PRESENT (dry run) the pages present, then "x32.0" (RSS after / before). */
static void estimate_cells(struct table *t, const struct crange *c, bool present)
{
	if (present) {
		if (c->have_estimate) {
			table_cell(t, "%llu pages", (unsigned long long)c->present_pages);
		} else {
			table_cell(t, "-");
		}
	}
	if (c->have_estimate && c->present_pages)
		table_cell(t, "x%.1f", c->est_inflate);
	else
		table_cell(t, "-");
}

/* RSS of the range's VMAs before -> after, and what the collapse invented (its growth). */
static void rss_cells(struct table *t, const struct crange *c)
{
	char a[32], b[32];
	fmt_kb(a, sizeof(a), c->rss_before_kb);
	if (!c->have_after) {
		table_cell(t, "%s", a);
		table_cell(t, "-");
		return;
	}
	fmt_kb(b, sizeof(b), c->rss_after_kb);
	table_cell(t, "%s -> %s", a, b);
	if (c->rss_after_kb >= c->rss_before_kb) {
		fmt_kb(a, sizeof(a), c->rss_after_kb - c->rss_before_kb);
		table_cell(t, "+%s", a);
	} else {
		fmt_kb(a, sizeof(a), c->rss_before_kb - c->rss_after_kb);
		table_cell(t, "-%s", a);
	}
}

/* The whole process's VmRSS before and after, when something was collapsed. */
static void vmrss_line(FILE *f, const struct collapse_report *r)
{
	char a[32], b[32], d[32];
	if (r->dry_run || r->vmrss_before_kb < 0 || r->vmrss_after_kb < 0)
		return;
	long delta = r->vmrss_after_kb - r->vmrss_before_kb;
	fmt_kb(a, sizeof(a), (uint64_t)r->vmrss_before_kb);
	fmt_kb(b, sizeof(b), (uint64_t)r->vmrss_after_kb);
	fmt_kb(d, sizeof(d), (uint64_t)(delta < 0 ? -delta : delta));
	fprintf(f, "VmRSS of PID %ld: %s -> %s (%s%s%s)\n", r->pid, a, b, delta < 0 ? "-" : "+", d,
		delta > 0 ? ": what the collapse invented, subpages never written and now resident "
			    "zeroes, plus whatever the process itself did meanwhile"
			  : "");
}

void collapse_render_text(FILE *f, const struct collapse_report *r, bool color)
{
	char pmd[32], total[32];
	uint64_t bytes = 0, go = 0;
	for (int i = 0; i < r->nranges; i++)
		if (r->ranges[i].skip == CR_GO) {
			bytes += r->ranges[i].end - r->ranges[i].start;
			go++;
		}
	if (r->pmd_size && r->pmd_size % (1 << 20) == 0) /* "2 MiB", not "2048 kB" */
		snprintf(pmd, sizeof(pmd), "%llu MiB", (unsigned long long)(r->pmd_size >> 20));
	else
		fmt_bytes(pmd, sizeof(pmd), r->pmd_size);
	fmt_bytes(total, sizeof(total), bytes);
	fprintf(f, "%sPID %ld (", col_bold(color), r->pid);
	fputs_safe(r->comm, f);
	fprintf(f, ")%s: %llu range(s), %s in %s huge pages", col_reset(color),
		(unsigned long long)go, total, pmd);
	if ((uint64_t)r->nranges > go)
		fprintf(f, ", %llu skipped", (unsigned long long)((uint64_t)r->nranges - go));
	fprintf(f, "%s\n", r->dry_run ? " (dry run: nothing done)" : "");
	if (r->thp_enabled == 0)
		fprintf(f, "%sTHP_enabled: 0: THP disabled for this process by prctl%s%s\n",
			col_yellow(color), r->force ? " (--force: trying anyway)" : "",
			col_reset(color));
	if (r->nranges) {
		struct table *t;
		if (r->dry_run)
			t = table_new(6,
				      (const char *const[]){"RANGE", "VMA", "SIZE", "HUGE PAGES",
							    "PRESENT", "RSS GROWTH (EST)"},
				      "lLrrrr");
		else
			t = table_new(10,
				      (const char *const[]){"RANGE", "VMA", "SIZE", "EST",
							    "COLLAPSED", "AnonHugePages", "RSS",
							    "INVENTED", "TIME", "RESULT"},
				      "lLrrrrrrrl");
		for (int i = 0; i < r->nranges; i++) {
			const struct crange *c = &r->ranges[i];
			char sz[32], col[32], a[32], b[32], res[64];
			uint64_t s = c->skip == CR_GO || c->skip == CR_SKIP_NH ||
						     c->skip == CR_SKIP_PRCTL ||
						     c->skip == CR_SKIP_INFLATE
					     ? c->start
					     : c->req_start;
			uint64_t e = s == c->start ? c->end : c->req_end;
			table_cell(t, "%012llx-%012llx", (unsigned long long)s,
				   (unsigned long long)e);
			table_cell(t, "%s", c->vma[0] ? c->vma : "-");
			fmt_bytes(sz, sizeof(sz), e - s);
			table_cell(t, "%s", sz);
			if (r->dry_run) {
				if (c->skip == CR_GO)
					table_cell(t, "%llu", (unsigned long long)c->npmd);
				else
					table_cell(t, "skipped");
				estimate_cells(t, c, true);
				continue;
			}
			estimate_cells(t, c, false);
			fmt_bytes(col, sizeof(col), c->collapsed_bytes);
			fmt_kb(a, sizeof(a), c->ahp_before_kb);
			fmt_kb(b, sizeof(b), c->ahp_after_kb);
			table_cell(t, "%s", c->attempted ? col : "-");
			if (c->have_after)
				table_cell(t, "%s -> %s", a, b);
			else
				table_cell(t, "%s", a);
			rss_cells(t, c);
			if (c->attempted)
				table_cell(t, "%.1f ms", c->ms);
			else
				table_cell(t, "-");
			result_text(res, sizeof(res), c);
			table_cell(t, "%s", res);
		}
		table_flush(t, f, 0, color);
		vmrss_line(f, r);
	} else {
		fprintf(f, "nothing to collapse: no anonymous VMA holds a whole aligned %s\n", pmd);
	}
	collapse_render_reasons(f, r, pmd, color);
}

/* Why: each skip reason and each error once, then what was left out. */
static void collapse_render_reasons(FILE *f, const struct collapse_report *r, const char *pmd,
				    bool color)
{
	bool said_skip[8] = {false};
	int said_err[16], nsaid = 0;
	for (int i = 0; i < r->nranges; i++) {
		const struct crange *c = &r->ranges[i];
		if (c->skip != CR_GO && (unsigned)c->skip < 8 && !said_skip[c->skip]) {
			said_skip[c->skip] = true;
			fprintf(f, "skipped: %s\n", crange_skip_text(c->skip));
		}
		if (c->err) {
			bool seen = false;
			for (int j = 0; j < nsaid; j++)
				seen |= said_err[j] == c->err;
			if (!seen && nsaid < 16) {
				said_err[nsaid++] = c->err;
				fprintf(f, "%s%s%s: %s\n", col_red(color), errname(c->err),
					col_reset(color), collapse_explain(c->err));
				if (c->err == -ENOMEM)
					buddy_line(f, r);
			}
		}
	}
	if (r->fatal && r->fatal != -ENOMEM) {
		bool seen = false;
		for (int j = 0; j < nsaid; j++)
			seen |= said_err[j] == r->fatal;
		if (!seen)
			fprintf(f, "%s%s%s: %s\n", col_red(color), errname(r->fatal),
				col_reset(color), collapse_explain(r->fatal));
	}
	if (r->nsmall)
		fprintf(f, "%s%d smaller anonymous VMA(s) hold no whole aligned %s: left out%s\n",
			col_dim(color), r->nsmall, pmd, col_reset(color));
	uint64_t empty = 0;
	for (int i = 0; i < r->nranges; i++)
		empty += r->ranges[i].nempty;
	if (!r->dry_run && empty)
		fprintf(f,
			"%s%llu empty huge-page range(s) (no page present or swapped, per pagemap) not tried: MADV_COLLAPSE refuses them%s\n",
			col_dim(color), (unsigned long long)empty, col_reset(color));
}

json_t *collapse_to_json(const struct collapse_report *r)
{
	json_t *root = json_object(), *a = json_array();
	if (!root || !a) {
		json_decref(root);
		json_decref(a);
		return NULL;
	}
	json_put(root, "pid", json_integer(r->pid));
	json_put(root, "comm", json_str(r->comm));
	json_put(root, "thp_enabled", r->thp_enabled >= 0 ? json_integer(r->thp_enabled) : NULL);
	json_put(root, "pmd_size_bytes", json_u64(r->pmd_size));
	json_put(root, "dry_run", json_boolean(r->dry_run));
	json_put(root, "force", json_boolean(r->force));
	json_put(root, "max_inflate", json_real(r->max_inflate));
	json_put(root, "vmrss_before_kb",
		 r->vmrss_before_kb >= 0 ? json_integer(r->vmrss_before_kb) : NULL);
	json_put(root, "vmrss_after_kb",
		 !r->dry_run && r->vmrss_after_kb >= 0 ? json_integer(r->vmrss_after_kb) : NULL);
	uint64_t total = 0;
	for (int i = 0; i < r->nranges; i++) {
		const struct crange *c = &r->ranges[i];
		json_t *o = json_object();
		char buf[40];
		json_put_hex_range(o, c->start, c->end);
		json_put(o, "bytes", json_u64(c->end - c->start));
		snprintf(buf, sizeof(buf), "%llx-%llx", (unsigned long long)c->req_start,
			 (unsigned long long)c->req_end);
		json_put(o, "requested", json_str(buf));
		json_put(o, "vma", json_str(c->vma));
		json_put(o, "pmds", json_u64(c->npmd));
		json_put(o, "skipped",
			 c->skip != CR_GO ? json_str(crange_skip_text(c->skip)) : NULL);
		json_put(o, "attempted", json_boolean(c->attempted));
		json_put(o, "present_pages", c->have_estimate ? json_u64(c->present_pages) : NULL);
		json_put(o, "rss_growth_estimate",
			 c->have_estimate ? json_real(c->est_inflate) : NULL);
		json_put(o, "rss_before_kb", json_u64(c->rss_before_kb));
		if (!r->dry_run) {
			json_put(o, "empty_pmds", json_u64(c->nempty));
			json_put(o, "collapsed_pmds", json_u64(c->nok));
			json_put(o, "failed_pmds", json_u64(c->nfail));
			json_put(o, "collapsed_bytes", json_u64(c->collapsed_bytes));
			json_put(o, "anon_huge_before_kb", json_u64(c->ahp_before_kb));
			json_put(o, "anon_huge_after_kb",
				 c->have_after ? json_u64(c->ahp_after_kb) : NULL);
			json_put(o, "rss_after_kb",
				 c->have_after ? json_u64(c->rss_after_kb) : NULL);
			json_put(o, "invented_kb",
				 c->have_after && c->rss_after_kb >= c->rss_before_kb
					 ? json_u64(c->rss_after_kb - c->rss_before_kb)
				 : c->have_after ? json_u64(0)
						 : NULL);
			json_put(o, "ms", json_real(c->ms));
			json_put(o, "eagain_retries", json_integer(c->retries));
			json_put(o, "error", c->err ? json_str(errname(c->err)) : NULL);
			json_put(o, "explain", c->err ? json_str(collapse_explain(c->err)) : NULL);
		}
		total += c->collapsed_bytes;
		json_array_append_new(a, o);
	}
	json_put(root, "ranges", a);
	json_put(root, "collapsed_bytes", json_u64(total));
	json_put(root, "small_vmas_left_out", json_integer(r->nsmall));
	json_put(root, "error", r->fatal ? json_str(errname(r->fatal)) : NULL);
	json_put(root, "explain", r->fatal ? json_str(collapse_explain(r->fatal)) : NULL);
	if (r->buddy && r->pmd_order > 0) {
		json_t *b = json_array();
		for (int i = 0; i < r->buddy->nzones; i++) {
			json_t *z = json_object();
			json_put(z, "node", json_integer(r->buddy->zones[i].node));
			json_put(z, "zone", json_str(r->buddy->zones[i].zone));
			json_put(z, "free_blocks_pmd_order",
				 json_u128(
					 buddy_blocks_at_least(&r->buddy->zones[i], r->pmd_order)));
			json_array_append_new(b, z);
		}
		json_put(root, "buddy", b);
	}
	return root;
}
