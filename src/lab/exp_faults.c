// SPDX-License-Identifier: MIT
/*
 * lab faults: fault S one PMD-size chunk at a time (one write per base
 * page) and time each chunk, per mode; the latency distribution, how many
 * chunks got a huge page, and the compaction and fallback counters that
 * explain the tail. --fragment (root) runs it under the fragmenter.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../util/stats.h"
#include "common.h"
#include "faults_clear.h"
#include "faults_table.h"
#include "fragment.h"
#include "shot.h"

/* One run's buffers and what its callbacks found, over the runs of one mode. */
struct faults_run {
	size_t pmd, page, nch;
	double *ns;	       /* this run, per chunk */
	double *all, *hs, *ss; /* pooled over the runs: every chunk, huge ones, small ones */
	size_t nall, nh, nsmall;
	int *huge;
	struct hp_probe hp;
	bool probe;  /* kpageflags per chunk (root) */
	uint64_t ph; /* huge chunks of this run by kpageflags */
};

/* The touch: one write per base page, timed per PMD-size chunk. */
static void faults_touch(struct region *reg, void *arg)
{
	struct faults_run *fr = arg;
	for (size_t c = 0; c < fr->nch; c++) {
		volatile char *p = (volatile char *)reg->p + c * fr->pmd;
		uint64_t t0 = mono_ns();
		for (size_t off = 0; off < fr->pmd; off += fr->page)
			p[off] = 1;
		fr->ns[c] = (double)(mono_ns() - t0);
	}
}

/* After the touch: which chunks kpageflags calls huge, their times pooled apart. */
static void faults_inspect(struct region *reg, void *arg)
{
	struct faults_run *fr = arg;
	fr->ph = 0;
	for (size_t c = 0; fr->probe && c < fr->nch; c++) {
		fr->huge[c] = hp_probe_huge(&fr->hp, reg->p + c * fr->pmd);
		if (fr->huge[c] == 1) {
			fr->ph++;
			fr->hs[fr->nh++] = fr->ns[c];
		} else {
			fr->ss[fr->nsmall++] = fr->ns[c];
		}
	}
}

static void faults_run_free(struct faults_run *fr)
{
	free(fr->ns);
	free(fr->all);
	free(fr->hs);
	free(fr->ss);
	free(fr->huge);
}

/* Buffers for RUNS runs of NCH chunks. Returns 0 or -ENOMEM. */
static int faults_run_alloc(struct faults_run *fr, size_t nch, int runs)
{
	fr->nch = nch;
	fr->ns = malloc(nch * sizeof(*fr->ns));
	fr->all = malloc((size_t)runs * nch * sizeof(*fr->all));
	fr->hs = malloc((size_t)runs * nch * sizeof(*fr->hs));
	fr->ss = malloc((size_t)runs * nch * sizeof(*fr->ss));
	fr->huge = malloc(nch * sizeof(*fr->huge));
	if (fr->ns && fr->all && fr->hs && fr->ss && fr->huge)
		return 0;
	faults_run_free(fr);
	return -ENOMEM;
}

/* Where faults_record puts a run. */
struct faults_rec {
	struct mode_res *mr;
	struct faults_run *fr;
};

/* Everything of one run a row needs, from shot S, into ARG (a struct faults_rec). */
static void faults_record(void *arg, const struct shot *s)
{
	struct mode_res *mr = ((struct faults_rec *)arg)->mr;
	struct faults_run *fr = ((struct faults_rec *)arg)->fr;
	memcpy(fr->all + fr->nall, fr->ns, fr->nch * sizeof(*fr->ns));
	fr->nall += fr->nch;
	struct summary st;
	summarize(fr->ns, fr->nch, &st);
	int k = mr->n++;
	mr->st[ST_MED][k] = st.median;
	mr->st[ST_P90][k] = st.p90;
	mr->st[ST_P99][k] = st.p99;
	mr->st[ST_MAX][k] = st.max;
	uint64_t hk = s->rs.t.kb[SM_ANON_HUGE] / (fr->pmd >> 10);
	mr->huge[k] = (double)hk;
	mr->fallback[k] = (double)(fr->nch - (hk < fr->nch ? hk : fr->nch));
	mr->cs[k] = shot_delta(s, "compact_stall");
	mr->cf[k] = shot_delta(s, "compact_fail");
	mr->fb[k] = shot_delta(s, "thp_fault_fallback");
	mr->fa[k] = shot_delta(s, "thp_fault_alloc");
	mr->probed = fr->probe;
	mr->probed_huge = fr->ph;
}

/* The runs of MODE into MR; *LEFT_MAX: most free PMD-order blocks the fragmenter left. */
static void faults_mode(const struct lab_ctx *ctx, const struct lab_opts *o, struct lab_result *r,
			uint64_t size, enum lab_mode mode, struct frag *f, struct faults_run *fr,
			struct mode_res *mr, uint64_t *left_max)
{
	fr->nall = fr->nh = fr->nsmall = 0;
	struct shot_spec sp = {.size = size,
			       .mode = mode,
			       .snaps = true,
			       .touch = faults_touch,
			       .inspect = faults_inspect,
			       .arg = fr};
	struct faults_rec rec = {mr, fr};
	struct shot_runs rs = {.name = "faults",
			       .max_runs = MAX_RUNS,
			       .f = f,
			       .left_max = left_max,
			       .record = faults_record,
			       .arg = &rec};
	shot_runs(ctx, o, r, &sp, &rs);
	/* every chunk's latency (µs) for the report's CDF, before summarize() sorts it */
	char name[40];
	snprintf(name, sizeof(name), "%s %s", lab_mode_name(mode), f ? "fragmented" : "fresh");
	for (size_t i = 0; i < fr->nall; i++)
		fr->all[i] /= 1e3;
	lab_series_add(r, "cdf", name, LAB_SER_CDF, "fault latency per chunk", "µs", fr->all, NULL,
		       NULL, NULL, fr->nall);
	for (size_t i = 0; i < fr->nall; i++)
		fr->all[i] *= 1e3;
	summarize(fr->all, fr->nall, &mr->pooled);
	summarize(fr->hs, fr->nh, &mr->pooled_huge);
	summarize(fr->ss, fr->nsmall, &mr->pooled_small);
}

static int lab_faults(const struct lab_ctx *ctx, const struct lab_opts *o, struct lab_result *r)
{
	uint64_t size;
	if (lab_begin(ctx, o, 512ull << 20, r, &size,
		      "fault one PMD-size chunk at a time: per-chunk latency, per mode"))
		return 0;
	static struct faults_run fr;
	static struct mode_res res[MODE_NMODES];
	static struct frag f;
	memset(&fr, 0, sizeof(fr));
	memset(res, 0, sizeof(res));
	memset(&f, 0, sizeof(f));
	fr.pmd = ctx->pmd_size;
	fr.page = (size_t)ctx->page_size;
	if (faults_run_alloc(&fr, size / fr.pmd, o->runs > MAX_RUNS ? MAX_RUNS : o->runs)) {
		lab_skip(r, "out of memory");
		r->expected = false;
		return -ENOMEM;
	}
	bool frag = false;
	if (o->fragment && !ctx->can_write)
		lab_proof(
			r, "fragment",
			"skipped: %s (the fragmenter changes defrag and compaction_proactiveness for the run)",
			ctx->no_write);
	else if (o->fragment)
		frag = frag_start(ctx, o, size, &f, r);
	fr.hp = (struct hp_probe){-1, -1, 0, 0};
	fr.probe = ctx->root && hp_probe_open(ctx, &fr.hp) == 0;
	const enum lab_mode modes[] = {MODE_MADV, MODE_PLAIN, MODE_NOHUGE};
	uint64_t left_max = 0;
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++)
		faults_mode(ctx, o, r, size, modes[m], frag ? &f : NULL, &fr, &res[modes[m]],
			    &left_max);
	if (fr.probe)
		hp_probe_close(&fr.hp);
	if (frag) {
		frag_end(&f);
		frag_proofs(&f, r);
	}
	lab_progress_done(o);
	faults_run_free(&fr);
	faults_table(r, modes, sizeof(modes) / sizeof(modes[0]), res, fr.nch, lab_pmd_policy(ctx),
		     frag, left_max);
	faults_clear_rates(ctx, o, r, size);
	return 0;
}

LAB_EXPERIMENT_DEFINE(
	"faults", 50, lab_faults, "fault one PMD at a time: per-chunk latency and fallbacks",
	.in_quick = true, .quick = {.size = (128ull << 20)}, .all_cold = true,
	.opts = {{"--fragment", "faults/fallback: run under the fragmenter (root)"}},
	.host = {"each mTHP size at always for its clear-rate row, one at a time; with "
		 "--fragment also defrag=never and vm/compaction_proactiveness=0 "
		 "while the fragmenter holds most free memory",
		 3, 60, true, NULL});
