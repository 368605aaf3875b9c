// SPDX-License-Identifier: MIT
/*
 * lab fallback: enabled=always for the run (root), touch a plain region and
 * count fault-time THP allocations against fallbacks; a MADV_HUGEPAGE region
 * beside it for contrast. With --fragment (the fragmenter), the silent
 * fallback: defrag=madvise (and never, defer, defer+madvise) does not
 * compact for unadvised regions, so thp_fault_fallback rises while
 * compact_stall stays flat; only the advised region stalls.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "../util/stats.h"
#include "common.h"
#include "fragment.h"
#include "guard.h"
#include "shot.h"

#define MAX_RUNS 64

static const char *const ctr[] = {"thp_fault_alloc", "thp_fault_fallback", "compact_stall",
				  "compact_fail"};
#define NCTR (sizeof(ctr) / sizeof(ctr[0]))

struct mode_res {
	int n;
	double ms[MAX_RUNS], ahp[MAX_RUNS];
	double d[NCTR][MAX_RUNS];
};

/* Whether DEFRAG makes page faults in unadvised regions compact directly. */
static bool defrag_stalls_unadvised(const char *defrag)
{
	return strcmp(defrag, "always") == 0;
}

/* One run's shot S into the mode's results ARG (a struct mode_res). */
static void fallback_record(void *arg, const struct shot *s)
{
	struct mode_res *mr = arg;
	int k = mr->n++;
	mr->ms[k] = s->ms;
	mr->ahp[k] = (double)s->rs.t.kb[SM_ANON_HUGE];
	for (size_t c = 0; c < NCTR; c++)
		mr->d[c][k] = shot_delta(s, ctr[c]);
}

/* The runs of MODE into MR; *LEFT_MAX: most free PMD-order blocks the fragmenter left. */
static void fallback_mode(const struct lab_ctx *ctx, const struct lab_opts *o, struct lab_result *r,
			  uint64_t size, enum lab_mode mode, struct frag *f, struct mode_res *mr,
			  uint64_t *left_max)
{
	struct shot_spec sp = {
		.size = size, .mode = mode, .stride = (size_t)ctx->page_size, .snaps = true};
	struct shot_runs rs = {.name = "fallback",
			       .max_runs = MAX_RUNS,
			       .f = f,
			       .left_max = left_max,
			       .record = fallback_record,
			       .arg = mr};
	shot_runs(ctx, o, r, &sp, &rs);
}

/* A row and a proof per mode. */
static void fallback_rows(struct lab_result *r, uint64_t size, size_t pmd,
			  const struct mode_res *res)
{
	const enum lab_mode modes[] = {MODE_PLAIN, MODE_MADV};
	int c_ms = lab_col_add(r, "time", "ms");
	int c_ahp = lab_col_add(r, "AnonHugePages", "kB");
	int c_d[NCTR];
	lab_delta_cols(r, ctr, NCTR, c_d);
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		const struct mode_res *mr = &res[modes[m]];
		if (!mr->n)
			continue;
		int row = lab_row_add(r, lab_mode_name(modes[m]));
		lab_cell_set(r, row, c_ms, mr->ms, (size_t)mr->n);
		lab_cell_set(r, row, c_ahp, mr->ahp, (size_t)mr->n);
		for (size_t c = 0; c < NCTR; c++)
			lab_cell_set(r, row, c_d[c], mr->d[c], (size_t)mr->n);
		lab_proof(r, lab_mode_name(modes[m]),
			  "smaps AnonHugePages %.0f of %llu kB (%.0f of %zu PMDs huge), last run",
			  mr->ahp[mr->n - 1], (unsigned long long)(size >> 10),
			  mr->ahp[mr->n - 1] / (double)(pmd >> 10), (size_t)(size / pmd));
	}
}

/* The expected shape: huge pages unfragmented; fragmented, fallbacks with or without stalls. */
static void fallback_verdict(const struct lab_ctx *ctx, struct lab_result *r, uint64_t size,
			     const struct mode_res *res, bool frag, uint64_t left_max)
{
	const char *defrag = ctx->thp->defrag.present ? ctx->thp->defrag.selected : "?";
	size_t pmd = ctx->pmd_size, npmd = size / pmd;
	const struct mode_res *pl = &res[MODE_PLAIN], *ma = &res[MODE_MADV];
	if (!pl->n || !ma->n) {
		lab_verdict(r, false, "UNEXPECTED: not every mode ran (see the proofs)");
		return;
	}
	double pa = stats_median(pl->d[0], (size_t)pl->n),
	       pf = stats_median(pl->d[1], (size_t)pl->n),
	       ps = stats_median(pl->d[2], (size_t)pl->n);
	double ph = stats_median(pl->ahp, (size_t)pl->n) / (double)(pmd >> 10);
	double ma_ = stats_median(ma->d[0], (size_t)ma->n),
	       mf = stats_median(ma->d[1], (size_t)ma->n),
	       ms = stats_median(ma->d[2], (size_t)ma->n);
	char spa[24], spf[24], sps[24], sma[24], smf[24], sms[24];
	lab_fmt_delta(spa, sizeof(spa), pa);
	lab_fmt_delta(spf, sizeof(spf), pf);
	lab_fmt_delta(sps, sizeof(sps), ps);
	lab_fmt_delta(sma, sizeof(sma), ma_);
	lab_fmt_delta(smf, sizeof(smf), mf);
	lab_fmt_delta(sms, sizeof(sms), ms);
	if (isnan(pa) || isnan(pf) || isnan(ps)) {
		/* the plain region's counters decide every branch: unread, nothing is decided */
		lab_verdict(
			r, false,
			"inconclusive: the host-wide counters could not be read (thp_fault_alloc "
			"%s, thp_fault_fallback %s, compact_stall %s)",
			spa, spf, sps);
		r->inconclusive = true;
		return;
	}
	bool ok;
	if (!frag) {
		/* plenty of free PMD-order blocks: always gives the plain region huge pages */
		ok = ph >= (double)npmd * 0.9 && pa >= (double)npmd * 0.9;
		lab_verdict_ok(
			r, ok,
			"with enabled=always the plain region got %.0f/%zu huge pages (thp_fault_alloc %s, thp_fault_fallback %s, compact_stall %s); madv alike (%s, %s)",
			ph, npmd, spa, spf, sps, sma, smf);
	} else if (!defrag_stalls_unadvised(defrag)) {
		/* the silent fallback: fallbacks without a compaction stall */
		ok = pf > 0 && ps * 10 <= pf; /* system-wide: others may stall meanwhile */
		lab_verdict_ok(
			r, ok,
			"fragmented, the plain region fell back silently: thp_fault_fallback %s, thp_fault_alloc %s, compact_stall %s (defrag=%s never compacts for unadvised faults); madv: compact_stall %s, fallback %s",
			spf, spa, sps, defrag, sms, smf);
	} else {
		ok = ps > 0 || pf > 0;
		lab_verdict_ok(
			r, ok,
			"fragmented with defrag=always, even the plain region compacts: compact_stall %s, thp_fault_fallback %s, thp_fault_alloc %s",
			sps, spf, spa);
	}
	if (frag)
		lab_proof(r, "fragmented", "at most %llu free PMD-order blocks before a run",
			  (unsigned long long)left_max);
}

static int lab_fallback(const struct lab_ctx *ctx, const struct lab_opts *o, struct lab_result *r)
{
	uint64_t size;
	if (lab_begin(ctx, o, 512ull << 20, r, &size,
		      "enabled=always: fault-time THP allocations vs fallbacks, plain and advised"))
		return 0;
	if (lab_needs_write(ctx, r, "set enabled=always for the run"))
		return 0;
	int e = lab_set_enabled(ctx, "always");
	if (e) {
		lab_skip(r, "could not set enabled=always: %s",
			 e == -EBUSY ? "another running thpctl holds the settings journal"
				     : strerror(-e));
		r->expected = false;
		return 0;
	}
	static struct frag f;
	static struct mode_res res[MODE_NMODES];
	memset(&f, 0, sizeof(f));
	memset(res, 0, sizeof(res));
	bool frag = o->fragment && frag_start(ctx, o, size, &f, r);
	uint64_t left_max = 0;
	fallback_mode(ctx, o, r, size, MODE_PLAIN, frag ? &f : NULL, &res[MODE_PLAIN], &left_max);
	fallback_mode(ctx, o, r, size, MODE_MADV, frag ? &f : NULL, &res[MODE_MADV], &left_max);
	if (frag) {
		frag_end(&f);
		frag_proofs(&f, r);
	}
	lab_progress_done(o);
	fallback_rows(r, size, ctx->pmd_size, res);
	fallback_verdict(ctx, r, size, res, frag, left_max);
	return 0;
}

LAB_EXPERIMENT_DEFINE("fallback", 100, lab_fallback,
		      "enabled=always (root): fault allocations vs silent fallbacks",
		      .opts = {{"--fragment", "faults/fallback: run under the fragmenter (root)"}},
		      .host = {"enabled=always (with --fragment also defrag=never and "
			       "vm/compaction_proactiveness=0)",
			       10, 30, true, NULL});
