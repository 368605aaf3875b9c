// SPDX-License-Identifier: MIT
/*
 * lab split: a MADV_HUGEPAGE region, touched, then MADV_DONTNEED of one base
 * page in the middle of every PMD. The PMD mappings split at once, the
 * folios only go on the deferred-split list: huge pages gone from smaps, RSS
 * barely moved, and the memory waits for the deferred-split shrinker.
 * --reclaim (root) then runs the shrinkers (drop_caches=2 runs shrink_slab,
 * which includes the deferred-split shrinker) and shows the split complete.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "../kernel/sysctl.h"
#include "../util/stats.h"
#include "common.h"
#include "guard.h"

#define MAX_RUNS 64

enum { PH_TOUCHED, PH_PUNCHED, PH_RECLAIMED, PH_N };

static const char *const ph_name[PH_N] = {"touched", "punched", "reclaimed"};

/* vmstat counters, then per-size stats counters, one column each */
static const char *const vm_ctr[] = {"thp_split_pmd", "thp_deferred_split_page", "thp_split_page"};
static const char *const sz_ctr[] = {"split_deferred", "nr_anon_partially_mapped", "split"};
#define NVM (sizeof(vm_ctr) / sizeof(vm_ctr[0]))
#define NSZ (sizeof(sz_ctr) / sizeof(sz_ctr[0]))

struct ph_res {
	int n;
	double ahp[MAX_RUNS], rss[MAX_RUNS];
	double vm[NVM][MAX_RUNS], sz[NSZ][MAX_RUNS];
	bool has_vm[NVM], has_sz[NSZ];
};

static void deltas(struct ph_res *p, int k, const struct snap *a, const struct snap *b, uint64_t kb)
{
	int64_t d;
	for (size_t i = 0; i < NVM; i++)
		if (snap_delta(a, b, vm_ctr[i], &d)) {
			p->vm[i][k] = (double)d;
			p->has_vm[i] = true;
		}
	for (size_t i = 0; i < NSZ; i++)
		if (snap_size_delta(a, b, kb, sz_ctr[i], &d)) {
			p->sz[i][k] = (double)d;
			p->has_sz[i] = true;
		}
}

/* The table: a row per phase, the per-size columns only where the kernel has them. */
static void split_rows(struct lab_result *r, const struct ph_res *ph)
{
	int c_ahp = lab_col_add(r, "AnonHugePages", "kB");
	int c_rss = lab_col_add(r, "Rss", "kB");
	int c_vm[NVM], c_sz[NSZ];
	lab_delta_cols(r, vm_ctr, NVM, c_vm);
	for (size_t i = 0; i < NSZ; i++) {
		char name[32];
		snprintf(name, sizeof(name), "%s", sz_ctr[i]);
		c_sz[i] = ph[PH_PUNCHED].has_sz[i] ? lab_col_add(r, name, "+") : -1;
	}
	for (int p = 0; p < PH_N; p++) {
		if (!ph[p].n)
			continue;
		int row = lab_row_add(r, ph_name[p]);
		size_t n = (size_t)ph[p].n;
		lab_cell_set(r, row, c_ahp, ph[p].ahp, n);
		lab_cell_set(r, row, c_rss, ph[p].rss, n);
		if (!p)
			continue;
		for (size_t i = 0; i < NVM; i++)
			if (ph[p].has_vm[i])
				lab_cell_set(r, row, c_vm[i], ph[p].vm[i], n);
		for (size_t i = 0; i < NSZ; i++)
			if (ph[p].has_sz[i] && c_sz[i] >= 0)
				lab_cell_set(r, row, c_sz[i], ph[p].sz[i], n);
	}
}

/* The expected shape: PMD mappings gone, RSS kept, the folios queued for the shrinker. */
static void split_verdict(const struct lab_ctx *ctx, struct lab_result *r, uint64_t size,
			  const struct ph_res *ph)
{
	size_t pmd = ctx->pmd_size, page = (size_t)ctx->page_size, npmd = size / pmd;
	uint64_t pmd_kb = pmd >> 10;
	const struct ph_res *t = &ph[PH_TOUCHED], *u = &ph[PH_PUNCHED], *c = &ph[PH_RECLAIMED];
	if (!u->n) {
		lab_verdict(r, false, "UNEXPECTED: no run completed (see the proofs)");
		return;
	}
	int n = u->n;
	double a0 = stats_median(t->ahp, (size_t)n), a1 = stats_median(u->ahp, (size_t)n),
	       r0 = stats_median(t->rss, (size_t)n), r1 = stats_median(u->rss, (size_t)n);
	double spmd = stats_median(u->vm[0], (size_t)n), dsp = stats_median(u->vm[1], (size_t)n),
	       sp = stats_median(u->vm[2], (size_t)n);
	double pm = u->has_sz[1] ? stats_median(u->sz[1], (size_t)n) : -1;
	lab_proof(
		r, "punched",
		"%zu MADV_DONTNEED calls of one base page; smaps AnonHugePages %.0f -> %.0f kB, Rss %.0f -> %.0f kB (%+.2f%%)",
		npmd, a0, a1, r0, r1, r0 > 0 ? (r1 - r0) * 100 / r0 : 0);
	if (u->has_sz[1])
		lab_proof(
			r, "waiting",
			"nr_anon_partially_mapped %+.0f: %.0f folios of %llu kB sit on the deferred-split list, each holding %llu kB no longer mapped",
			pm, pm, (unsigned long long)pmd_kb, (unsigned long long)(page >> 10));
	/* the shape: no PMD mapping left, RSS within 1%, the folios queued rather than split */
	bool ok = a0 >= (double)(size >> 10) * 0.9 && a1 == 0 && r0 > 0 && (r0 - r1) <= r0 / 100 &&
		  spmd >= (double)npmd * 0.9 && dsp >= (double)npmd * 0.9;
	char tail[160] = "";
	if (c->n) {
		double csp = stats_median(c->vm[2], (size_t)c->n),
		       cpm = c->has_sz[1] ? stats_median(c->sz[1], (size_t)c->n) : 0;
		lab_proof(
			r, "reclaimed",
			"drop_caches=2 (shrink_slab runs the deferred-split shrinker): thp_split_page %+.0f, nr_anon_partially_mapped %+.0f: the %zu unmapped base pages are free again",
			csp, cpm, npmd);
		ok &= csp >= (double)npmd * 0.9;
		lab_fmt(tail, sizeof(tail),
			"; after drop_caches=2: thp_split_page %+.0f, the split complete", csp);
	}
	lab_verdict_ok(
		r, ok,
		"AnonHugePages %.0f -> %.0f kB, Rss %.0f -> %.0f kB; host-wide thp_split_pmd %+.0f, thp_deferred_split_page %+.0f, thp_split_page %+.0f: huge pages gone, RSS barely moved, memory waits for the deferred-split shrinker%s",
		a0, a1, r0, r1, spmd, dsp, sp, tail);
}

/* Host-wide only with --reclaim. */
static bool split_reclaims(const struct lab_opts *o)
{
	return o->reclaim;
}

static int lab_split(const struct lab_ctx *ctx, const struct lab_opts *o, struct lab_result *r)
{
	uint64_t size;
	if (lab_begin(ctx, o, 512ull << 20, r, &size,
		      "MADV_DONTNEED one base page in the middle of every PMD: deferred split"))
		return 0;
	if (strcmp(lab_pmd_policy(ctx), "never") == 0) {
		lab_skip(r,
			 "the PMD size is at never here: MADV_HUGEPAGE gets no huge page to split");
		return 0;
	}
	int runs = o->runs > MAX_RUNS ? MAX_RUNS : o->runs;
	bool reclaim = o->reclaim && ctx->can_write;
	if (o->reclaim && !reclaim)
		lab_proof(r, "reclaim", "skipped: %s (writes /proc/sys/vm/drop_caches)",
			  ctx->no_write);
	size_t pmd = ctx->pmd_size, page = (size_t)ctx->page_size, npmd = size / pmd;
	uint64_t pmd_kb = pmd >> 10;
	static struct ph_res ph[PH_N];
	memset(ph, 0, sizeof(ph));
	char sz[32];
	lab_fmt_size(sz, sizeof(sz), size);
	for (int i = 0; i < runs; i++) {
		lab_progress(o, "split %s: run %d/%d", sz, i + 1, runs);
		lab_prepare_state(o->state, size);
		struct region reg;
		int err = region_map(&reg, size, pmd);
		if (!err && (err = region_advise(&reg, MODE_MADV)))
			region_unmap(&reg);
		if (err) {
			lab_failed(r, "region", err);
			break;
		}
		region_touch(&reg, 0, page);
		struct region_smaps rs[PH_N];
		struct snap s[PH_N];
		memset(s, 0, sizeof(s));
		int rr = region_smaps_read(ctx->sr, 0, (uintptr_t)reg.p, reg.len, &rs[PH_TOUCHED]);
		snap_take(ctx->sr, &s[PH_TOUCHED]);
		for (size_t k = 0; k < npmd && !err; k++)
			if (madvise(reg.p + k * pmd + pmd / 2, page, MADV_DONTNEED))
				err = -errno;
		snap_take(ctx->sr, &s[PH_PUNCHED]);
		if (!rr)
			rr = region_smaps_read(ctx->sr, 0, (uintptr_t)reg.p, reg.len,
					       &rs[PH_PUNCHED]);
		if (reclaim && !rr && !err) {
			err = lab_drop_caches();
			snap_take(ctx->sr, &s[PH_RECLAIMED]);
			if (!err)
				rr = region_smaps_read(ctx->sr, 0, (uintptr_t)reg.p, reg.len,
						       &rs[PH_RECLAIMED]);
		}
		region_unmap(&reg);
		if (rr || err) {
			lab_failed(r, "run", rr ? rr : err);
			for (int p = 0; p < PH_N; p++)
				snap_free(&s[p]);
			break;
		}
		int nph = reclaim ? PH_N : PH_RECLAIMED;
		for (int p = 0; p < nph; p++) {
			int k = ph[p].n++;
			ph[p].ahp[k] = (double)rs[p].t.kb[SM_ANON_HUGE];
			ph[p].rss[k] = (double)rs[p].t.kb[SM_RSS];
			if (p)
				deltas(&ph[p], k, &s[p - 1], &s[p], pmd_kb);
		}
		for (int p = 0; p < PH_N; p++)
			snap_free(&s[p]);
	}
	lab_progress_done(o);

	split_rows(r, ph);
	split_verdict(ctx, r, size, ph);
	return 0;
}

LAB_EXPERIMENT_DEFINE(
	"split", 60, lab_split, "MADV_DONTNEED one page per PMD: deferred split", .in_quick = true,
	.quick = {.size = (128ull << 20)},
	.opts = {{"--reclaim", "split: then run the shrinkers and show the split complete (root)"}},
	.host = {"with --reclaim: vm/drop_caches=2 once per run (every process's reclaimable slab "
		 "and page cache dropped)",
		 1, 1, false, split_reclaims});
