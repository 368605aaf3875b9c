// SPDX-License-Identifier: MIT
/*
 * lab collapse: touch a plain region (every base page, or with --sparse one
 * page in each PMD), then MADV_COLLAPSE it: how long the collapse takes, the
 * region's AnonHugePages and Rss before and after, thp_collapse_alloc.
 * MADV_COLLAPSE ignores enabled, defrag and max_ptes_none, so --sparse shows
 * one present page growing into a whole PMD of RSS.
 */
#include <errno.h>
#include <string.h>

#include "../util/stats.h"
#include "common.h"

#define MAX_RUNS 64
#define TRIES 3 /* EAGAIN: a page lock or LRU isolation failed for now */

enum { PH_TOUCHED, PH_COLLAPSED, PH_N };

static const char *const ctr[] = {"thp_collapse_alloc", "thp_collapse_alloc_failed",
				  "compact_stall"};
#define NCTR (sizeof(ctr) / sizeof(ctr[0]))

struct ph_res {
	int n;
	double ms[MAX_RUNS], ahp[MAX_RUNS], rss[MAX_RUNS];
	double d[NCTR][MAX_RUNS];
};

/* The table: the touched and the collapsed phase, the deltas on the second. */
static void collapse_rows(struct lab_result *r, const struct lab_opts *o, const struct ph_res *ph)
{
	static const struct lab_coldef coldefs[3] = {
		{"time", "ms"}, {"AnonHugePages", "kB"}, {"Rss", "kB"}};
	int col[3];
	lab_cols_add(r, coldefs, 3, col);
	int c_d[NCTR];
	lab_delta_cols(r, ctr, NCTR, c_d);
	const char *label[PH_N] = {o->sparse ? "touched 1/512" : "touched", "collapsed"};
	for (int p = 0; p < PH_N; p++) {
		if (!ph[p].n)
			continue;
		int row = lab_row_add(r, label[p]);
		size_t n = (size_t)ph[p].n;
		const double *cells[3] = {ph[p].ms, ph[p].ahp, ph[p].rss};
		for (int c = 0; c < 3; c++)
			lab_cell_set(r, row, col[c], cells[c], n);
		for (size_t c = 0; p == PH_COLLAPSED && c < NCTR; c++)
			lab_cell_set(r, row, c_d[c], ph[p].d[c], n);
	}
}

/* The expected shape: every PMD collapsed (--sparse: RSS grown to the whole region). */
static void collapse_verdict(const struct lab_ctx *ctx, const struct lab_opts *o,
			     struct lab_result *r, uint64_t size, const struct ph_res *ph,
			     int retries)
{
	size_t npmd = size / ctx->pmd_size;
	char sz[32];
	lab_fmt_size(sz, sizeof(sz), size);
	if (!ph[0].n) {
		lab_verdict(r, false, "UNEXPECTED: no run completed (see the proofs)");
		return;
	}
	const struct ph_res *t = &ph[PH_TOUCHED], *c = &ph[PH_COLLAPSED];
	int n = t->n;
	double a0 = stats_median(t->ahp, (size_t)n), a1 = stats_median(c->ahp, (size_t)n),
	       r0 = stats_median(t->rss, (size_t)n), r1 = stats_median(c->rss, (size_t)n);
	double ms = stats_median(c->ms, (size_t)n), ca = stats_median(c->d[0], (size_t)n),
	       full = (double)(size >> 10);
	if (retries)
		lab_proof(r, "retries", "MADV_COLLAPSE returned EAGAIN %d time(s) and was retried",
			  retries);
	lab_proof(
		r, "collapsed",
		"smaps AnonHugePages %.0f -> %.0f kB, Rss %.0f -> %.0f kB; thp_collapse_alloc %+.0f for %zu PMDs (enabled=%s: MADV_COLLAPSE ignores it)",
		a0, a1, r0, r1, ca, npmd, lab_pmd_policy(ctx));
	/* every PMD collapsed; new huge pages unless the touch already got them */
	bool ok = a1 == full && (a0 == full || ca >= (double)npmd * 0.9);
	if (o->sparse)
		ok &= r1 >= full * 0.99 && r0 <= full / 256;
	char sp[96] = "";
	if (o->sparse)
		lab_fmt(sp, sizeof(sp),
			"; 1 page in 512 present: Rss grew %.0fx (max_ptes_none ignored)",
			r0 > 0 ? r1 / r0 : 0);
	lab_verdict_ok(
		r, ok,
		"MADV_COLLAPSE of %s took %.1f ms: AnonHugePages %.0f -> %.0f kB, host-wide thp_collapse_alloc %+.0f, Rss %.0f -> %.0f kB%s (proof: region smaps, host-wide vmstat deltas)",
		sz, ms, a0, a1, ca, r0, r1, sp);
}

static int lab_collapse(const struct lab_ctx *ctx, const struct lab_opts *o, struct lab_result *r)
{
	uint64_t size;
	if (lab_begin(ctx, o, 512ull << 20, r, &size, "%s, then MADV_COLLAPSE",
		      o->sparse ? "plain region with 1 page in 512 present"
				: "plain touch of every base page"))
		return 0;
	if (ctx->feat->madv_collapse == TRI_NO) {
		lab_skip(r, "this kernel has no MADV_COLLAPSE (6.1+): madvise returned %s",
			 strerror(ctx->feat->madv_collapse_err ? ctx->feat->madv_collapse_err
							       : EINVAL));
		return 0;
	}
	int runs = o->runs > MAX_RUNS ? MAX_RUNS : o->runs;
	size_t pmd = ctx->pmd_size, page = (size_t)ctx->page_size;
	static struct ph_res ph[PH_N];
	memset(ph, 0, sizeof(ph));
	int retries = 0;
	char sz[32];
	lab_fmt_size(sz, sizeof(sz), size);
	for (int i = 0; i < runs; i++) {
		lab_progress(o, "collapse %s%s: run %d/%d", sz, o->sparse ? " sparse" : "", i + 1,
			     runs);
		lab_prepare_state(o->state, size);
		struct region reg;
		int err = region_map(&reg, size, pmd);
		if (err) {
			lab_failed(r, "region", err);
			break;
		}
		struct region_smaps rs[PH_N];
		struct snap a = {0}, b = {0};
		uint64_t t0 = mono_ns();
		region_touch(&reg, 0, o->sparse ? pmd : page);
		double touch_ms = (double)(mono_ns() - t0) / 1e6;
		int rr = region_smaps_read(ctx->sr, 0, (uintptr_t)reg.p, reg.len, &rs[PH_TOUCHED]);
		snap_take(ctx->sr, &a);
		t0 = mono_ns();
		for (int t = 0; t < TRIES; t++) {
			err = region_collapse(&reg);
			if (err != -EAGAIN)
				break;
			retries++;
		}
		double coll_ms = (double)(mono_ns() - t0) / 1e6;
		snap_take(ctx->sr, &b);
		if (!rr)
			rr = region_smaps_read(ctx->sr, 0, (uintptr_t)reg.p, reg.len,
					       &rs[PH_COLLAPSED]);
		region_unmap(&reg);
		if (err || rr) {
			lab_failed(r, err ? "MADV_COLLAPSE" : "smaps", err ? err : rr);
			snap_free(&a);
			snap_free(&b);
			break;
		}
		int k = ph[0].n;
		for (int p = 0; p < PH_N; p++) {
			ph[p].n++;
			ph[p].ahp[k] = (double)rs[p].t.kb[SM_ANON_HUGE];
			ph[p].rss[k] = (double)rs[p].t.kb[SM_RSS];
		}
		ph[PH_TOUCHED].ms[k] = touch_ms;
		ph[PH_COLLAPSED].ms[k] = coll_ms;
		for (size_t c = 0; c < NCTR; c++) {
			int64_t d;
			ph[PH_COLLAPSED].d[c][k] = snap_delta(&a, &b, ctr[c], &d) ? (double)d : 0;
		}
		snap_free(&a);
		snap_free(&b);
	}
	lab_progress_done(o);

	collapse_rows(r, o, ph);
	collapse_verdict(ctx, o, r, size, ph, retries);
	return 0;
}

LAB_EXPERIMENT_DEFINE("collapse", 70, lab_collapse, "plain touch then MADV_COLLAPSE",
		      .in_quick = true, .quick = {.size = (128ull << 20)},
		      .opts = {{"--sparse", "collapse: 1 page in 512 present"}});
