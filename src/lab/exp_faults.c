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
#include "fragment.h"
#include "shot.h"

#define MAX_RUNS 64

enum { ST_MED, ST_P90, ST_P99, ST_MAX, ST_N };

/* One mode's runs. */
struct mode_res {
	int n;
	double st[ST_N][MAX_RUNS]; /* ns */
	double huge[MAX_RUNS], fallback[MAX_RUNS];
	double cs[MAX_RUNS], cf[MAX_RUNS], fb[MAX_RUNS], fa[MAX_RUNS];
	uint64_t probed_huge; /* kpageflags, last run; -1 when not probed */
	bool probed;
	struct summary pooled, pooled_huge, pooled_small;
};

static void fmt_dur(char *out, size_t n, double ns)
{
	if (ns >= 1e6)
		snprintf(out, n, "%.1f ms", ns / 1e6);
	else
		snprintf(out, n, "%.0f µs", ns / 1e3);
}

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

/*
 * MR's latencies and kpageflags count as MODE's proof. Two quantities, each
 * named: the table's median is the median over the runs of each run's median
 * chunk (its min-max the runs' range); the pooled figures are over every
 * chunk of every run. They differ when the runs do (a cold run, a stall), so
 * both are printed with what they are.
 */
static void faults_proof(struct lab_result *r, enum lab_mode mode, const struct mode_res *mr,
			 size_t nch)
{
	char med[24], p99[24], mx[24], hm[24] = "-", sm[24] = "-", ev[64] = "";
	char rmed[24], rlo[24], rhi[24];
	struct summary rs;
	double tmp[MAX_RUNS];
	memcpy(tmp, mr->st[ST_MED], (size_t)mr->n * sizeof(tmp[0]));
	summarize(tmp, (size_t)mr->n, &rs);
	fmt_dur(rmed, sizeof(rmed), rs.median);
	fmt_dur(rlo, sizeof(rlo), rs.min);
	fmt_dur(rhi, sizeof(rhi), rs.max);
	fmt_dur(med, sizeof(med), mr->pooled.median);
	fmt_dur(p99, sizeof(p99), mr->pooled.p99);
	fmt_dur(mx, sizeof(mx), mr->pooled.max);
	if (mr->pooled_huge.n)
		fmt_dur(hm, sizeof(hm), mr->pooled_huge.median);
	if (mr->pooled_small.n)
		fmt_dur(sm, sizeof(sm), mr->pooled_small.median);
	if (mr->probed)
		snprintf(ev, sizeof(ev), ", kpageflags %llu (last run)",
			 (unsigned long long)mr->probed_huge);
	lab_proof(r, lab_mode_name(mode),
		  "%.0f/%zu chunks huge by smaps AnonHugePages%s; run median chunk (the table's "
		  "median) %s over %d runs, %s..%s",
		  mr->huge[mr->n - 1], nch, ev, rmed, mr->n, rlo, rhi);
	char key[40];
	snprintf(key, sizeof(key), "%s pooled", lab_mode_name(mode));
	lab_proof(r, key, "all %zu chunks of the runs: median %s, p99 %s, max %s%s%s%s%s",
		  mr->pooled.n, med, p99, mx, mr->probed ? "; huge chunks median " : "",
		  mr->probed ? hm : "", mr->probed ? ", small " : "", mr->probed ? sm : "");
}

/* The table: four latency columns in one unit, then counts and deltas; a row per mode. */
static void faults_rows(struct lab_result *r, const enum lab_mode *modes, size_t nmodes,
			const struct mode_res *res, size_t nch)
{
	/* one unit for the four latency columns: µs unless a tail reaches a millisecond */
	double worst = 0;
	for (size_t m = 0; m < nmodes; m++)
		if (res[modes[m]].n &&
		    stats_median(res[modes[m]].st[ST_P99], (size_t)res[modes[m]].n) > worst)
			worst = stats_median(res[modes[m]].st[ST_P99], (size_t)res[modes[m]].n);
	bool in_ms = worst >= 1e6;
	double div = in_ms ? 1e6 : 1e3;
	const char *unit = in_ms ? "ms" : "µs";
	static const char *const st_name[ST_N] = {"median", "p90", "p99", "max"};
	for (int st = 0; st < ST_N; st++)
		lab_col_add(r, st_name[st], unit);
	static const struct lab_coldef counts[6] = {{"huge", ""},
						    {"fallback", ""},
						    {"compact_stall", "+"},
						    {"compact_fail", "+"},
						    {"thp_fault_fallback", "+"},
						    {"thp_fault_alloc", "+"}};
	int col[6];
	lab_cols_add(r, counts, 6, col);
	for (size_t m = 0; m < nmodes; m++) {
		const struct mode_res *mr = &res[modes[m]];
		if (!mr->n)
			continue;
		int row = lab_row_add(r, lab_mode_name(modes[m]));
		for (int st = 0; st < ST_N; st++) {
			double v[MAX_RUNS];
			for (int k = 0; k < mr->n; k++)
				v[k] = mr->st[st][k] / div;
			lab_cell_set(r, row, st, v, (size_t)mr->n);
		}
		const double *cells[6] = {mr->huge, mr->fallback, mr->cs, mr->cf, mr->fb, mr->fa};
		for (int c = 0; c < 6; c++)
			lab_cell_set(r, row, col[c], cells[c], (size_t)mr->n);
		faults_proof(r, modes[m], mr, nch);
	}
}

/* The expected shape under this host's policy (FRAG: under the fragmenter). */
static void faults_verdict(const struct lab_ctx *ctx, struct lab_result *r,
			   const struct mode_res *res, size_t nch, bool frag, uint64_t left_max)
{
	const char *pol = lab_pmd_policy(ctx);
	bool always = strcmp(pol, "always") == 0, never = strcmp(pol, "never") == 0;
	const struct mode_res *ma = &res[MODE_MADV], *pl = &res[MODE_PLAIN],
			      *nh = &res[MODE_NOHUGE];
	if (!ma->n || !pl->n || !nh->n) {
		lab_verdict(r, false, "UNEXPECTED: not every mode ran (see the proofs)");
		return;
	}
	size_t na = (size_t)ma->n;
	double mh = stats_median(ma->huge, na), ph = stats_median(pl->huge, (size_t)pl->n),
	       nhh = stats_median(nh->huge, (size_t)nh->n);
	double mcs = stats_median(ma->cs, na), mcf = stats_median(ma->cf, na),
	       mfb = stats_median(ma->fb, na), mfbk = stats_median(ma->fallback, na);
	char a1[24], a2[24], a3[24], a4[24];
	fmt_dur(a1, sizeof(a1), stats_median(ma->st[ST_MED], na));
	fmt_dur(a2, sizeof(a2), stats_median(ma->st[ST_P99], na));
	fmt_dur(a3, sizeof(a3), stats_median(ma->st[ST_MAX], na));
	fmt_dur(a4, sizeof(a4), stats_median(pl->st[ST_MED], (size_t)pl->n));
	if (!frag) {
		bool ok = (never || mh >= (double)nch * 0.9) && (always || ph == 0) && nhh == 0;
		lab_verdict_ok(
			r, ok,
			"madv %.0f/%zu chunks huge, run median chunk %s, run p99 %s; plain %.0f/%zu huge (enabled=%s), run median %s; nohuge %.0f huge; madv host-wide compact_stall +%.0f (proof: smaps AnonHugePages, host-wide vmstat deltas)",
			mh, nch, a1, a2, ph, nch, pol, a4, nhh, mcs);
	} else {
		/* fragmented: advised faults either stall in compaction or fall back */
		bool ok = never || mcs > 0 || mfbk > 0;
		lab_verdict(
			r, ok,
			"%s under the fragmenter (%llu free PMD-order blocks before a run at most): madv host-wide compact_stall +%.0f, compact_fail +%.0f, p99 %s, max %s (median %s); %.0f/%zu chunks fell back (thp_fault_fallback +%.0f); plain median %s",
			ok ? "as expected" : "UNEXPECTED: no compaction and no fallback",
			(unsigned long long)left_max, mcs, mcf, a2, a3, a1, mfbk, nch, mfb, a4);
	}
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
	faults_rows(r, modes, sizeof(modes) / sizeof(modes[0]), res, fr.nch);
	faults_verdict(ctx, r, res, fr.nch, frag, left_max);
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
