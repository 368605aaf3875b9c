// SPDX-License-Identifier: MIT
/* `thpctl ps --folios`: memory by folio size per process (kernel/folio_scan.h), ps's rows. */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../kernel/folio_scan.h"
#include "../kernel/proc_read.h"
#include "../kernel/procs.h"
#include "../kernel/users.h"
#include "../render/folios.h"
#include "../util/clock.h"
#include "common.h"
#include "folios.h"
#include "ps_by.h"
#include "ps_int.h"

static int folio_sort; /* enum ps_sort, for cmp_folio_rows */

static int sum_vma(const struct folio_vma *v, void *arg)
{
	folio_acct_add(arg, &v->c);
	return 0;
}

static uint64_t row_thp(const struct folio_ps_row *r)
{
	return folio_acct_thp(&r->c, FT_ANON) + folio_acct_thp(&r->c, FT_FILE);
}

static int cmp_folio_rows(const void *a, const void *b)
{
	const struct folio_ps_row *x = a, *y = b;
	int c = 0;
	if (folio_sort == SORT_PID)
		return x->pid < y->pid ? -1 : x->pid > y->pid;
	if (folio_sort == SORT_COMM)
		c = strcmp(x->comm, y->comm);
	else if (folio_sort == SORT_RSS)
		c = cmp_u64_desc(x->vmrss_kb.v, y->vmrss_kb.v);
	else if (folio_sort == SORT_SHARE) {
		uint64_t rx = x->c.rss[FT_ANON] + x->c.rss[FT_FILE];
		uint64_t ry = y->c.rss[FT_ANON] + y->c.rss[FT_FILE];
		double sx = rx ? (double)row_thp(x) / (double)rx : 0;
		double sy = ry ? (double)row_thp(y) / (double)ry : 0;
		c = sx < sy ? 1 : sx > sy ? -1 : 0;
	} else
		c = cmp_u64_desc(row_thp(x), row_thp(y));
	if (!c)
		c = x->pid < y->pid ? -1 : x->pid > y->pid;
	return c;
}

/* proc_info.more of ps --folios: the allowed CPUs of a process with an mm, once. */
static unsigned folios_next(struct proc_info *pi, void *ctx)
{
	bool *asked = ctx;
	if (*asked || pi->status_err || pi->st.kthread == 1 || proc_status_no_mm(&pi->st))
		return 0;
	*asked = true;
	return PROC_ALLOWED;
}

/* `ps --folios`: the folio view of every selected process. */
int ps_folios(struct globals *g, const struct ps_opts *o)
{
	struct folio_opts fo = {0};
	struct folio_ps_report r = {.as_root = geteuid() == 0, .cgroup = o->cgroup};
	folio_opts_from_env(&fo);
	folio_geom_host(&g->sr, o->cont_kb, &r.g);
	fo.cont_pages = o->cont_kb / r.g.page_kb;
	struct numa_nodes numa = {0};
	if (numa_nodes_read(&g->sr, &numa) == 0)
		fo.numa = r.numa = &numa;
	double t0 = mono_ms();
	struct folio_ctx *ctx;
	int e = folio_ctx_new(&g->sr, &fo, &ctx);
	if (e) {
		numa_nodes_free(&numa);
		return folio_fail("ps", 0, e);
	}
	r.method = folio_ctx_method(ctx);
	pid_t *pids;
	int n = procs_list(&g->sr, &pids);
	if (n < 0) {
		warnx("ps: cannot list %s/proc: %s", g->sr.path, strerror(-n));
		folio_ctx_free(ctx);
		numa_nodes_free(&numa);
		return EXIT_FAIL;
	}
	bool asked;
	struct proc_info pi = {.more = folios_next, .more_ctx = &asked};
	struct users users = {0};
	size_t cap = 0;
	int ret = EXIT_OK;
	struct progress pr;
	progress_start(&pr, "reading pagemap");
	for (int i = 0; i < n && ret == EXIT_OK; i++) {
		if (!ps_wanted_pid(o, pids[i]))
			continue;
		progress_update(&pr, (size_t)i, (size_t)n);
		asked = false;
		if (proc_read(&g->sr, pids[i], PROC_STATUS, &pi) || pi.status_err ||
		    pi.st.kthread == 1 || proc_status_no_mm(&pi.st))
			continue; /* gone, a kernel thread or a zombie */
		const struct proc_status st = pi.st;
		if (o->uid >= 0 && st.uid != o->uid)
			continue;
		const char *nm = users_name(&g->sr, &users, st.uid);
		if (o->user && o->uid < 0 && strcmp(nm, o->user) != 0)
			continue;
		struct folio_ps_row row = {
			.pid = pids[i], .ppid = st.ppid, .uid = st.uid, .vmrss_kb = st.vmrss_kb};
		snprintf(row.user, sizeof(row.user), "%s", nm);
		snprintf(row.comm, sizeof(row.comm), "%s", st.name);
		row.has_allowed = pi.got & PROC_ALLOWED;
		row.allowed = pi.allowed;
		e = folio_scan_pid(ctx, pids[i], sum_vma, NULL, &row.c);
		if (e == -ESRCH)
			continue;
		if (e == -EACCES || e == -EPERM) {
			row.denied = true;
			r.denied++;
			memset(&row.c, 0, sizeof(row.c));
			if (!o->all && !o->npids && !o->cgroup)
				continue;
		} else if (e) {
			r.errors++;
			continue;
		} else if (!o->all && !o->npids && !o->cgroup && !folio_acct_any(&row.c)) {
			continue;
		}
		if (array_reserve(&r.rows, &cap, r.n + 1, sizeof(*r.rows), 64)) {
			warnx("out of memory");
			ret = EXIT_FAIL;
			break;
		}
		r.rows[r.n++] = row;
	}
	progress_end(&pr);
	folio_ctx_free(ctx);
	r.elapsed_ms = mono_ms() - t0;
	if (ret == EXIT_OK && o->npids &&
	    cmd_pids_no_mm(g, "ps", o->pids, o->npids, ps_folio_row_shown, &r) == o->npids &&
	    !r.n && !r.errors)
		ret = EXIT_FAIL;
	if (ret == EXIT_OK) {
		folio_sort = o->sort;
		if (r.n)
			qsort(r.rows, r.n, sizeof(r.rows[0]), cmp_folio_rows);
		if (g->json)
			ret = cmd_emit_json_as(folio_ps_to_json(&r), "folios");
		else
			folio_ps_render_text(stdout, &r, g->color);
	}
	free(r.rows);
	free(pids);
	proc_info_free(&pi);
	users_free(&users);
	numa_nodes_free(&numa);
	return ret;
}
