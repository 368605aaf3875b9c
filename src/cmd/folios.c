// SPDX-License-Identifier: MIT
/* `maps PID --folios` and `maps PID --underused`. */
#include "folios.h"

#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../kernel/parse.h"
#include "../kernel/sysfs.h"
#include "../kernel/thp_settings.h"
#include "../kernel/underused.h"
#include "../render/hint.h"
#include "../render/folios.h"
#include "../util/buf.h"
#include "../util/clock.h"
#include "common.h"

void folio_opts_from_env(struct folio_opts *o)
{
	const char *s = getenv("THPCTL_NO_PAGEMAP_SCAN");
	o->no_scan = s && *s && strcmp(s, "0");
	s = getenv("THPCTL_NO_PROBE");
	o->no_probe = s && *s && strcmp(s, "0");
	s = getenv("THPCTL_PROBE");
	o->probe_all = s && *s && strcmp(s, "0");
	s = getenv("THPCTL_THREADS");
	if (s && *s)
		o->threads = atoi(s);
}

void folio_geom_host(const struct sysroot *sr, uint64_t cont_kb, struct folio_geom *g)
{
	folio_geom_init(g, sysconf(_SC_PAGESIZE), cont_kb);
	uint64_t sizes[THP_MAX_SIZES];
	int n = thp_sizes_list(sr, sizes, THP_MAX_SIZES);
	for (int i = 0; i < n; i++) {
		uint64_t kb = sizes[i];
		if (!kb || kb % g->page_kb || !g->page_kb)
			continue;
		uint64_t pages = kb / g->page_kb;
		if (pages & (pages - 1))
			continue;
		int o = __builtin_ctzll(pages);
		if (o < FOLIO_ORDERS)
			g->host_orders |= 1u << o;
	}
}

/*
 * Whether PID has exited or is exiting (a zombie not yet reaped counts): a
 * pidfd polls readable once it has (Linux 5.3+). Its memory is torn down
 * before that, so a read that failed because of it waits up to 5 s: freeing
 * 2 GiB took 186-413 ms at a load of 8 on 2 vCPUs (200 ms said "Input/output
 * error" for 3 of 12 kills), and the time grows with the memory. Without
 * pidfd_open, only a reaped PID is seen.
 */
static bool process_gone(pid_t pid)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (fd < 0)
		return errno == ESRCH || (kill(pid, 0) && errno == ESRCH);
	struct pollfd p = {.fd = fd, .events = POLLIN};
	bool gone = poll(&p, 1, 5000) == 1 && (p.revents & POLLIN);
	close(fd);
	return gone;
}

int folio_fail(const char *cmd, long pid, int err)
{
	if (err == -EOPNOTSUPP)
		warnx("%s: the folio view reads the running kernel's pagemap; a recorded tree "
		      "has none",
		      cmd);
	else if (err == -ESRCH || err == -ENOENT)
		warnx("%s: process %ld exited", cmd, pid);
	else if ((err == -EIO || err == -EFAULT) && process_gone((pid_t)pid))
		/* its memory went away under the reader: the process exited during the scan */
		warnx("%s: process %ld exited during the scan", cmd, pid);
	else if (err == -EACCES || err == -EPERM)
		warnx("%s: cannot read the memory map of process %ld: %s (%s)", cmd, pid,
		      strerror(-err), hint_proc_denied(geteuid() == 0));
	else
		warnx("%s: process %ld: %s", cmd, pid, strerror(-err));
	return EXIT_FAIL;
}

static int add_vma(const struct folio_vma *v, void *arg)
{
	return folio_report_add(arg, v);
}

int maps_folios(struct globals *g, long pid, const struct proc_status *st, uint64_t cont_kb)
{
	struct folio_opts fo = {0};
	struct folio_report r = {.pid = pid, .st = *st};
	folio_opts_from_env(&fo);
	folio_geom_host(&g->sr, cont_kb, &r.g);
	fo.cont_pages = cont_kb / r.g.page_kb;
	struct numa_nodes numa = {0};
	if (numa_nodes_read(&g->sr, &numa) == 0)
		fo.numa = r.numa = &numa;
	r.has_allowed = numa_proc_allowed(&g->sr, (pid_t)pid, &r.allowed) == 0;
	double t0 = mono_ms();
	struct folio_ctx *c;
	int e = folio_ctx_new(&g->sr, &fo, &c);
	if (e) {
		numa_nodes_free(&numa);
		return folio_fail("maps", pid, e);
	}
	r.method = folio_ctx_method(c);
	e = folio_scan_pid(c, (pid_t)pid, add_vma, NULL, &r);
	folio_ctx_free(c);
	r.elapsed_ms = mono_ms() - t0;
	int ret;
	if (e)
		ret = folio_fail("maps", pid, e);
	else if (g->json)
		ret = cmd_emit_json_as(folio_maps_to_json(&r), "folios");
	else {
		folio_maps_render_text(stdout, &r, g->color);
		ret = EXIT_OK;
	}
	folio_report_free(&r);
	numa_nodes_free(&numa);
	return ret;
}

/* ---- --underused ---- */

struct uu_ctx {
	struct underused_report *r;
	struct underused_hist cur; /* THPs of the VMA being walked */
	int mem_fd;
	void *buf;
	size_t thp_bytes, page;
	int err;
};

static int uu_pmd(uint64_t addr, void *arg)
{
	struct uu_ctx *u = arg;
	long z = memfile_zero_subpages(u->mem_fd, addr, u->thp_bytes, u->page, u->buf);
	if (z == -EIO || z == -EFAULT) { /* unmapped meanwhile */
		u->r->unreadable++;
		return 0;
	}
	if (z < 0) {
		u->err = (int)z;
		return 1;
	}
	u->r->bytes_read += u->thp_bytes;
	underused_hist_add(&u->cur, (int)z);
	return 0;
}

static int uu_vma(const struct folio_vma *v, void *arg)
{
	struct uu_ctx *u = arg;
	struct underused_report *r = u->r;
	if (!u->cur.nthp)
		return 0;
	if (array_reserve(&r->vmas, &r->cap, r->n + 1, sizeof(*r->vmas), 8))
		return -ENOMEM;
	struct underused_vma *o = &r->vmas[r->n];
	o->start = v->start;
	o->end = v->end;
	size_t n = v->name_len < sizeof(o->name) - 1 ? v->name_len : sizeof(o->name) - 1;
	if (n)
		memcpy(o->name, v->name, n);
	o->name[n] = '\0';
	if (!n)
		snprintf(o->name, sizeof(o->name), "[anon]");
	underused_hist_merge(&r->total, &u->cur);
	o->h = u->cur; /* moves the buckets */
	r->n++;
	return underused_hist_init(&u->cur, r->total.nsub);
}

/* A THP knob KEY as a number: -1 when absent, -2 when there but unreadable or damaged. */
static long read_knob(const struct sysroot *sr, const char *key)
{
	uint64_t v;
	int e = thp_knob_u64(sr, key, &v);
	if (e == -ENOENT)
		return -1;
	return e == 0 && v <= LONG_MAX ? (long)v : -2;
}

int maps_underused(struct globals *g, long pid, const struct proc_status *st)
{
	struct folio_opts fo = {.pmd_only = true, .threads = 1};
	struct underused_report r = {.pid = pid, .st = *st};
	folio_opts_from_env(&fo);
	fo.threads = 1;
	folio_geom_host(&g->sr, 0, &r.g);
	int nsub = 1 << r.g.pmd_order;
	r.max_ptes_none = read_knob(&g->sr, "khugepaged/max_ptes_none");
	r.shrink_underused = read_knob(&g->sr, "shrink_underused");
	struct uu_ctx u = {.r = &r, .mem_fd = -1};
	u.page = r.g.page_kb * 1024;
	u.thp_bytes = u.page << r.g.pmd_order;
	int ret = EXIT_FAIL, e;
	struct folio_ctx *c = NULL;
	double t0 = mono_ms();
	if ((e = underused_hist_init(&r.total, nsub)) || (e = underused_hist_init(&u.cur, nsub)) ||
	    !(u.buf = malloc(MEMFILE_READ))) {
		warnx("maps: out of memory");
		goto out;
	}
	if ((e = folio_ctx_new(&g->sr, &fo, &c))) {
		ret = folio_fail("maps", pid, e);
		goto out;
	}
	enum folio_method m = folio_ctx_method(c);
	if (m != FM_PAGEFLAGS_SCAN && m != FM_SMAPS_SCAN) {
		warnx("maps: --underused finds PMD-mapped THPs with PAGEMAP_SCAN (Linux 6.7+), "
		      "which this kernel lacks");
		goto out;
	}
	r.partial = m == FM_SMAPS_SCAN;
	if ((u.mem_fd = memfile_open(&g->sr, (pid_t)pid)) < 0) {
		ret = folio_fail("maps", pid, u.mem_fd);
		goto out;
	}
	e = folio_scan_pid(c, (pid_t)pid, uu_vma, uu_pmd, &u);
	if (e == 1 && u.err)
		e = u.err;
	r.elapsed_ms = mono_ms() - t0;
	if (e) {
		ret = folio_fail("maps", pid, e);
		goto out;
	}
	if (g->json)
		ret = cmd_emit_json_as(underused_to_json(&r), "underused");
	else {
		underused_render_text(stdout, &r, g->color);
		ret = EXIT_OK;
	}
out:
	if (u.mem_fd >= 0)
		close(u.mem_fd);
	folio_ctx_free(c);
	free(u.buf);
	underused_hist_free(&u.cur);
	underused_report_free(&r);
	return ret;
}
