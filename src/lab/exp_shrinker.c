// SPDX-License-Identifier: MIT
/*
 * lab shrinker: does shrink_underused (6.12+) split underused THPs on this
 * kernel? A child in a memory cgroup of its own maps a MADV_HUGEPAGE region
 * and writes one byte per PMD: every THP has 511 zero-filled subpages. Then
 * memory pressure on that cgroup only (cgroup v2: memory.reclaim; v1: a
 * memory.limit_in_bytes below its usage), at max_ptes_none 511, 64 and 0
 * (journalled). Before and after: the child's AnonHugePages and Rss (its own
 * smaps) and thp_underused_split_page (host-wide). A claim stands only when
 * both measures agree. The cgroup is journalled as a guard undo before it is
 * made, removed after each phase, and by the next root run after a SIGKILL.
 * The result is kept in /var/lib/thpctl/lab-shrinker, which `status` cites.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../kernel/kv.h"
#include "../kernel/memcg_lab.h"
#include "../kernel/parse.h"
#include "../kernel/shrinker_record.h"
#include "../util/fileio.h"
#include "common.h"
#include "guard.h"
#include "shrinker_calls.h"

#define NPH 3
_Static_assert(NPH <= LAB_MAX_PHASES, "shrinker_calls.c sizes its texts for LAB_MAX_PHASES");
#define RECORD_PATH "/var/lib/thpctl/lab-shrinker"

enum { C_MPN, C_THPS, C_AHP0, C_AHP1, C_RSS0, C_RSS1, C_SPLIT, C_USE0, C_USE1, NC };

static const struct lab_coldef cols[NC] = {
	{"max_ptes_none", ""},
	{"THPs", ""},
	{"AnonHugePages before", "kB"},
	{"AnonHugePages after", "kB"},
	{"Rss before", "kB"},
	{"Rss after", "kB"},
	{"thp_underused_split_page (host)", ""},
	{"cgroup usage before", "kB"},
	{"cgroup usage after", "kB"},
};

/* One proc/vmstat counter (0 when absent; *HAS says whether it was read). */
static uint64_t vm_counter(const struct sysroot *sr, const char *name, bool *has)
{
	uint64_t v = 0;
	bool h = vmstat_get(sr, name, &v) == 0;
	if (has)
		*has = h;
	return h ? v : 0;
}

/* The child and the cgroup of the phase in progress, for the fatal-signal hook. */
static volatile pid_t sig_child;
static char sig_cgroup[136];

/* On a fatal signal: the child killed and reaped, its cgroup removed (async-signal-safe). */
static void on_fatal(void)
{
	if (sig_child > 0) {
		kill(sig_child, SIGKILL);
		waitpid(sig_child, NULL, 0);
	}
	if (sig_cgroup[0] && rmdir(sig_cgroup) == 0)
		guard_undo_drop_signal();
}

/* The child: wait for "go" (it is in the cgroup by then), map, write, say where, wait for EOF. */
static void child(int go, int ready, size_t size, size_t pmd)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	char c;
	if (read(go, &c, 1) != 1)
		_exit(1);
	struct region reg;
	uintptr_t at = 0;
	if (!region_map(&reg, size, pmd) && !madvise(reg.p, reg.len, MADV_HUGEPAGE)) {
		region_touch(&reg, 0, pmd); /* one non-zero byte per PMD: 511 zero subpages */
		at = (uintptr_t)reg.p;
	}
	if (write(ready, &at, sizeof(at)) != sizeof(at))
		_exit(1);
	while (read(go, &c, 1) > 0)
		;
	_exit(0);
}

struct phase_out {
	long mpn;
	bool ok;
	double v[NC];
	char how[200];
	int pressure_err;
};

/* Fork the child into M; its region's start in *AT. 0 or -errno. */
static int start_child(const struct lab_ctx *ctx, const struct memcg_lab *m, size_t size,
		       pid_t *pid, int *go, uintptr_t *at)
{
	int pg[2], pr[2];
	if (pipe2(pg, O_CLOEXEC) || pipe2(pr, O_CLOEXEC))
		return -errno;
	fflush(NULL);
	*pid = fork();
	if (*pid == 0) {
		close(pg[1]);
		close(pr[0]);
		child(pg[0], pr[1], size, ctx->pmd_size);
	}
	close(pg[0]);
	close(pr[1]);
	*go = pg[1];
	int e = *pid < 0 ? -errno : memcg_lab_join(ctx->sr, m, *pid);
	if (!e && write(*go, "g", 1) != 1)
		e = -EPIPE;
	if (!e && (read(pr[0], at, sizeof(*at)) != sizeof(*at) || !*at))
		e = -ENOMEM;
	close(pr[0]);
	return e;
}

static void stop_child(pid_t pid, int go)
{
	if (go >= 0)
		close(go);
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

/* Region smaps and cgroup usage into the columns FROM.. (before: C_AHP0, after: C_AHP1). */
static void sample(const struct lab_ctx *ctx, const struct memcg_lab *m, pid_t pid, uintptr_t at,
		   size_t size, struct phase_out *o, bool after)
{
	struct region_smaps rs;
	if (!region_smaps_read(ctx->sr, pid, at, size, &rs)) {
		o->v[after ? C_AHP1 : C_AHP0] = (double)rs.t.kb[SM_ANON_HUGE];
		o->v[after ? C_RSS1 : C_RSS0] = (double)rs.t.kb[SM_RSS];
	}
	uint64_t use;
	if (!memcg_lab_usage(ctx->sr, m, &use))
		o->v[after ? C_USE1 : C_USE0] = (double)(use >> 10);
}

/* One max_ptes_none: cgroup (journalled), child, pressure, measures, cleanup. 0 or -errno, WHY. */
static int run_phase(const struct lab_ctx *ctx, size_t size, struct phase_out *o, char *why,
		     size_t n)
{
	for (int k = 0; k < NC; k++)
		o->v[k] = -1;
	o->v[C_MPN] = (double)o->mpn;
	char v[24];
	snprintf(v, sizeof(v), "%ld", o->mpn);
	int e = lab_thp_write("khugepaged/max_ptes_none", v);
	struct memcg_lab m;
	if (!e && (e = memcg_lab_plan(ctx->sr, "shrinker", &m)))
		lab_fmt(why, n, "no memory cgroup controller mounted");
	if (!e && (e = guard_undo_add("lab shrinker", GUARD_UNDO_MEMCG, m.path)))
		lab_fmt(why, n, "cannot journal %s: %s", m.path, strerror(-e));
	if (!e && (e = memcg_lab_create(ctx->sr, &m))) {
		lab_fmt(why, n, "mkdir %s: %s", m.path, strerror(-e));
		guard_undo_done(GUARD_UNDO_MEMCG, m.path);
	}
	if (e)
		return e;
	memcpy(sig_cgroup, m.path, sizeof(sig_cgroup));
	guard_at_signal(on_fatal);
	pid_t pid = -1;
	int go = -1;
	uintptr_t at = 0;
	bool has;
	e = start_child(ctx, &m, size, &pid, &go, &at);
	sig_child = pid;
	if (!e) {
		sample(ctx, &m, pid, at, size, o, false);
		o->v[C_THPS] =
			o->v[C_AHP0] >= 0 ? o->v[C_AHP0] / (double)(ctx->pmd_size >> 10) : -1;
		uint64_t s0 = vm_counter(ctx->sr, "thp_underused_split_page", &has);
		o->pressure_err = memcg_lab_pressure(ctx->sr, &m, size / 2, o->how, sizeof(o->how));
		sample(ctx, &m, pid, at, size, o, true);
		if (has)
			o->v[C_SPLIT] =
				(double)(vm_counter(ctx->sr, "thp_underused_split_page", NULL) -
					 s0);
		o->ok = o->v[C_AHP0] >= 0 && o->v[C_AHP1] >= 0 && has;
	} else {
		lab_fmt(why, n, "the child: %s", strerror(-e));
	}
	stop_child(pid, go);
	sig_child = 0;
	int rm = memcg_lab_remove(m.path);
	sig_cgroup[0] = '\0';
	if (!rm)
		guard_undo_done(GUARD_UNDO_MEMCG, m.path);
	else if (!e)
		lab_fmt(why, n, "rmdir %s: %s (left journalled)", m.path, strerror(-rm));
	return e ? e : rm;
}

/* The record `status` cites, written as root to RECORD_PATH. */
static void record(const struct lab_ctx *ctx, const struct phase_out *ph, int nph,
		   struct lab_result *r)
{
	struct shrinker_record rec = {0};
	snprintf(rec.kernel, sizeof(rec.kernel), "%s", ctx->feat->release);
	time_t now = time(NULL);
	strftime(rec.time, sizeof(rec.time), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	for (int i = 0; i < nph; i++) {
		if (!ph[i].ok)
			return; /* only a whole measurement is kept */
		rec.p[rec.n++] = (struct shrinker_phase){
			ph[i].mpn, (uint64_t)ph[i].v[C_THPS], (uint64_t)ph[i].v[C_SPLIT],
			(uint64_t)ph[i].v[C_AHP0], (uint64_t)ph[i].v[C_AHP1]};
	}
	struct buf b = {0};
	int e = shrinker_record_format(&rec, &b);
	if (!e && mkdir("/var/lib/thpctl", 0755) && errno != EEXIST)
		e = -errno;
	if (!e)
		e = write_file_atomic(RECORD_PATH, b.p, b.len, 0644);
	buf_free(&b);
	lab_proof(r, "record", "%s%s%s", RECORD_PATH, e ? ": not written: " : " (status cites it)",
		  e ? strerror(-e) : "");
}

static void results(struct lab_result *r, const struct phase_out *ph, int nph)
{
	struct sh_phase s[NPH];
	for (int i = 0; i < nph; i++) {
		char label[40];
		snprintf(label, sizeof(label), "max_ptes_none=%ld", ph[i].mpn);
		int row = lab_row_add(r, label);
		for (int k = 0; k < NC && row >= 0; k++)
			if (ph[i].v[k] >= 0)
				lab_cell_set1(r, row, k, ph[i].v[k]);
		lab_proof(r, label, "pressure: %s", ph[i].how[0] ? ph[i].how : "not applied");
		s[i] = (struct sh_phase){ph[i].mpn,
					 ph[i].ok,
					 ph[i].v[C_THPS],
					 ph[i].v[C_AHP0],
					 ph[i].v[C_AHP1],
					 ph[i].v[C_SPLIT],
					 sh_pressed(ph[i].pressure_err)};
	}
	sh_claims_and_verdict(r, s, nph);
}

static int lab_shrinker(const struct lab_ctx *ctx, const struct lab_opts *o, struct lab_result *r)
{
	bool has;
	if (!ctx->thp->shrink_underused.present) {
		lab_skip(r, "no transparent_hugepage/shrink_underused: kernel before 6.12");
		return 0;
	}
	vm_counter(ctx->sr, "thp_underused_split_page", &has);
	if (!has) {
		lab_skip(r, "no thp_underused_split_page in /proc/vmstat");
		return 0;
	}
	r->runs = 1; /* one child per max_ptes_none, whatever --runs says */
	uint64_t size;
	if (lab_begin_write(ctx, o, "make a memory cgroup and set max_ptes_none", 256ull << 20, r,
			    &size,
			    "shrink_underused: mostly-zero THPs in a memory cgroup under pressure"))
		return 0;
	long nsub = (long)(ctx->pmd_size / (uint64_t)ctx->page_size);
	if (ctx->thp->shrink_underused.v != 1 && lab_thp_write("shrink_underused", "1")) {
		lab_skip(r, "shrink_underused is %llu and could not be set to 1",
			 (unsigned long long)ctx->thp->shrink_underused.v);
		return 0;
	}
	lab_cols_add(r, cols, NC, NULL);
	char sz[32];
	lab_fmt_size(sz, sizeof(sz), size);
	lab_proof(
		r, "setup",
		"kernel %s: a child in a memory cgroup of its own maps %s MADV_HUGEPAGE and writes "
		"one byte per PMD (%ld zero-filled subpages in each THP), then pressure on that "
		"cgroup asking for half of it; shrink_underused=1; thp_underused_split_page is "
		"host-wide",
		ctx->feat->release, sz, nsub - 1);
	struct phase_out ph[NPH] = {{.mpn = nsub - 1}, {.mpn = nsub / 8}, {.mpn = 0}};
	int nph = 0;
	for (int i = 0; i < NPH; i++, nph++) {
		char why[200] = "";
		lab_progress(o, "shrinker %s: max_ptes_none %ld", sz, ph[i].mpn);
		int e = run_phase(ctx, size, &ph[i], why, sizeof(why));
		if (e) {
			char key[40];
			snprintf(key, sizeof(key), "max_ptes_none=%ld", ph[i].mpn);
			lab_proof(r, key, "failed: %s", why[0] ? why : strerror(-e));
			r->partial = true;
		}
	}
	lab_progress_done(o);
	results(r, ph, nph);
	record(ctx, ph, nph, r);
	return 0;
}

LAB_EXPERIMENT_DEFINE("shrinker", 260, lab_shrinker,
		      "shrink_underused: are mostly-zero THPs split under memory pressure here?",
		      .quick = {.size = (64ull << 20)}, .workload = true,
		      .host = {"shrink_underused=1, khugepaged/max_ptes_none 511, 64 and 0 in turn "
			       "(its pressure stays inside a memory cgroup of its own)",
			       30, 90, false, NULL});
