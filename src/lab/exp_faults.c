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
#include "fragment.h"

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

static int lab_faults(const struct lab_ctx *ctx, const struct lab_opts *o, struct lab_result *r)
{
	uint64_t size;
	if (lab_size(ctx, o, 512ull << 20, r, &size))
		return 0;
	snprintf(r->title, sizeof(r->title),
		 "fault one PMD-size chunk at a time: per-chunk latency, per mode");
	int runs = o->runs > MAX_RUNS ? MAX_RUNS : o->runs;
	size_t pmd = ctx->pmd_size, page = (size_t)ctx->page_size, nch = size / pmd;
	double *ns = malloc(nch * sizeof(*ns));
	double *all = malloc((size_t)runs * nch * sizeof(*all));
	double *hs = malloc((size_t)runs * nch * sizeof(*hs));
	double *ss = malloc((size_t)runs * nch * sizeof(*ss));
	int *huge = malloc(nch * sizeof(*huge));
	static struct mode_res res[MODE_NMODES];
	static struct frag f;
	memset(res, 0, sizeof(res));
	memset(&f, 0, sizeof(f));
	if (!ns || !all || !hs || !ss || !huge) {
		free(ns);
		free(all);
		free(hs);
		free(ss);
		free(huge);
		lab_skip(r, "out of memory");
		r->expected = false;
		return -ENOMEM;
	}
	char sz[32];
	lab_fmt_size(sz, sizeof(sz), size);
	bool frag = false;
	if (o->fragment && !ctx->can_write) {
		lab_proof(
			r, "fragment",
			"skipped: %s (the fragmenter changes defrag and compaction_proactiveness for the run)",
			ctx->root ? "the THP settings are not writable here" : "needs root");
	} else if (o->fragment) {
		int rc = frag_begin(ctx, o, size, &f);
		if (rc) {
			frag_end(&f);
			lab_proof(r, "fragment", "skipped: %s", f.stop);
			r->partial = true;
		} else {
			frag = true;
		}
	}
	struct hp_probe hp = {-1, -1, 0, 0};
	bool probe = ctx->root && hp_probe_open(ctx, &hp) == 0;
	const enum lab_mode modes[] = {MODE_MADV, MODE_PLAIN, MODE_NOHUGE};
	uint64_t left_max = 0;
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		enum lab_mode mode = modes[m];
		struct mode_res *mr = &res[mode];
		size_t nall = 0, nh = 0, ns_ = 0;
		for (int i = 0; i < runs; i++) {
			lab_progress(o, "faults %s%s: %s run %d/%d", sz, frag ? " fragmented" : "",
				     lab_mode_name(mode), i + 1, runs);
			lab_prepare_state(o->state, size);
			if (frag) {
				uint64_t left = frag_sink(&f);
				if (left > left_max)
					left_max = left;
			}
			struct region reg;
			int err = region_map(&reg, size, pmd);
			if (!err && (err = region_advise(&reg, mode)))
				region_unmap(&reg);
			if (err) {
				lab_proof(r, lab_mode_name(mode), "failed: %s", strerror(-err));
				r->partial = true;
				break;
			}
			struct snap a = {0}, b = {0};
			snap_take(ctx->sr, &a);
			for (size_t c = 0; c < nch; c++) {
				volatile char *p = (volatile char *)reg.p + c * pmd;
				uint64_t t0 = mono_ns();
				for (size_t off = 0; off < pmd; off += page)
					p[off] = 1;
				ns[c] = (double)(mono_ns() - t0);
			}
			snap_take(ctx->sr, &b);
			struct region_smaps rs;
			int rr = region_smaps_read(ctx->sr, 0, (uintptr_t)reg.p, reg.len, &rs);
			uint64_t ph = 0;
			for (size_t c = 0; probe && c < nch; c++) {
				huge[c] = hp_probe_huge(&hp, reg.p + c * pmd);
				if (huge[c] == 1) {
					ph++;
					hs[nh++] = ns[c];
				} else {
					ss[ns_++] = ns[c];
				}
			}
			region_unmap(&reg);
			if (rr) {
				lab_proof(r, lab_mode_name(mode), "smaps: %s", strerror(-rr));
				r->partial = true;
				snap_free(&a);
				snap_free(&b);
				break;
			}
			memcpy(all + nall, ns, nch * sizeof(*ns));
			nall += nch;
			struct summary s;
			summarize(ns, nch, &s);
			int k = mr->n++;
			mr->st[ST_MED][k] = s.median;
			mr->st[ST_P90][k] = s.p90;
			mr->st[ST_P99][k] = s.p99;
			mr->st[ST_MAX][k] = s.max;
			uint64_t hk = rs.t.kb[SM_ANON_HUGE] / (pmd >> 10);
			mr->huge[k] = (double)hk;
			mr->fallback[k] = (double)(nch - (hk < nch ? hk : nch));
			int64_t d;
			mr->cs[k] = snap_delta(&a, &b, "compact_stall", &d) ? (double)d : 0;
			mr->cf[k] = snap_delta(&a, &b, "compact_fail", &d) ? (double)d : 0;
			mr->fb[k] = snap_delta(&a, &b, "thp_fault_fallback", &d) ? (double)d : 0;
			mr->fa[k] = snap_delta(&a, &b, "thp_fault_alloc", &d) ? (double)d : 0;
			mr->probed = probe;
			mr->probed_huge = ph;
			snap_free(&a);
			snap_free(&b);
		}
		summarize(all, nall, &mr->pooled);
		summarize(hs, nh, &mr->pooled_huge);
		summarize(ss, ns_, &mr->pooled_small);
	}
	if (probe)
		hp_probe_close(&hp);
	if (frag) {
		frag_end(&f);
		frag_proofs(&f, r);
	}
	lab_progress_done(o);
	free(ns);
	free(all);
	free(hs);
	free(ss);
	free(huge);

	/* one unit for the four latency columns: µs unless a tail reaches a millisecond */
	double worst = 0;
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++)
		if (res[modes[m]].n &&
		    stats_median(res[modes[m]].st[ST_P99], (size_t)res[modes[m]].n) > worst)
			worst = stats_median(res[modes[m]].st[ST_P99], (size_t)res[modes[m]].n);
	bool in_ms = worst >= 1e6;
	double div = in_ms ? 1e6 : 1e3;
	const char *unit = in_ms ? "ms" : "µs";
	int c_st[ST_N];
	c_st[ST_MED] = lab_col_add(r, "median", unit);
	c_st[ST_P90] = lab_col_add(r, "p90", unit);
	c_st[ST_P99] = lab_col_add(r, "p99", unit);
	c_st[ST_MAX] = lab_col_add(r, "max", unit);
	int c_huge = lab_col_add(r, "huge", "");
	int c_fbk = lab_col_add(r, "fallback", "");
	int c_cs = lab_col_add(r, "compact_stall", "+");
	int c_cf = lab_col_add(r, "compact_fail", "+");
	int c_fb = lab_col_add(r, "thp_fault_fallback", "+");
	int c_fa = lab_col_add(r, "thp_fault_alloc", "+");
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		enum lab_mode mode = modes[m];
		struct mode_res *mr = &res[mode];
		if (!mr->n)
			continue;
		int row = lab_row_add(r, lab_mode_name(mode));
		for (int s = 0; s < ST_N; s++) {
			double v[MAX_RUNS];
			for (int k = 0; k < mr->n; k++)
				v[k] = mr->st[s][k] / div;
			lab_cell_set(r, row, c_st[s], v, (size_t)mr->n);
		}
		lab_cell_set(r, row, c_huge, mr->huge, (size_t)mr->n);
		lab_cell_set(r, row, c_fbk, mr->fallback, (size_t)mr->n);
		lab_cell_set(r, row, c_cs, mr->cs, (size_t)mr->n);
		lab_cell_set(r, row, c_cf, mr->cf, (size_t)mr->n);
		lab_cell_set(r, row, c_fb, mr->fb, (size_t)mr->n);
		lab_cell_set(r, row, c_fa, mr->fa, (size_t)mr->n);
		char med[24], p99[24], mx[24], hm[24] = "-", sm[24] = "-", ev[64] = "";
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
		lab_proof(
			r, lab_mode_name(mode),
			"%.0f/%zu chunks huge by smaps AnonHugePages%s; %zu chunks pooled: median %s, p99 %s, max %s%s%s%s%s",
			mr->huge[mr->n - 1], nch, ev, mr->pooled.n, med, p99, mx,
			mr->probed ? "; huge chunks median " : "", mr->probed ? hm : "",
			mr->probed ? ", small " : "", mr->probed ? sm : "");
	}

	/* the expected shape under this host's policy */
	const char *pol = lab_pmd_policy(ctx);
	bool always = strcmp(pol, "always") == 0, never = strcmp(pol, "never") == 0;
	struct mode_res *ma = &res[MODE_MADV], *pl = &res[MODE_PLAIN], *nh = &res[MODE_NOHUGE];
	if (!ma->n || !pl->n || !nh->n) {
		lab_verdict(r, false, "UNEXPECTED: not every mode ran (see the proofs)");
		return 0;
	}
	double mh = stats_median(ma->huge, (size_t)ma->n),
	       ph = stats_median(pl->huge, (size_t)pl->n),
	       nhh = stats_median(nh->huge, (size_t)nh->n);
	double mmed = stats_median(ma->st[ST_MED], (size_t)ma->n),
	       pmed = stats_median(pl->st[ST_MED], (size_t)pl->n);
	double mp99 = stats_median(ma->st[ST_P99], (size_t)ma->n),
	       mmax = stats_median(ma->st[ST_MAX], (size_t)ma->n);
	double mcs = stats_median(ma->cs, (size_t)ma->n), mcf = stats_median(ma->cf, (size_t)ma->n),
	       mfb = stats_median(ma->fb, (size_t)ma->n),
	       mfbk = stats_median(ma->fallback, (size_t)ma->n);
	char a1[24], a2[24], a3[24], a4[24];
	fmt_dur(a1, sizeof(a1), mmed);
	fmt_dur(a2, sizeof(a2), mp99);
	fmt_dur(a3, sizeof(a3), mmax);
	fmt_dur(a4, sizeof(a4), pmed);
	if (!frag) {
		bool ok = (never || mh >= (double)nch * 0.9) && (always || ph == 0) && nhh == 0;
		lab_verdict(
			r, ok,
			"%s: madv %.0f/%zu chunks huge, median %s, p99 %s per chunk; plain %.0f/%zu huge (enabled=%s), median %s; nohuge %.0f huge; madv compact_stall +%.0f (proof: smaps AnonHugePages, vmstat deltas)",
			ok ? "as expected" : "UNEXPECTED", mh, nch, a1, a2, ph, nch, pol, a4, nhh,
			mcs);
	} else {
		/* fragmented: advised faults either stall in compaction or fall back */
		bool ok = never || mcs > 0 || mfbk > 0;
		lab_verdict(
			r, ok,
			"%s under the fragmenter (%llu free PMD-order blocks before a run at most): madv compact_stall +%.0f, compact_fail +%.0f, p99 %s, max %s (median %s); %.0f/%zu chunks fell back (thp_fault_fallback +%.0f); plain median %s",
			ok ? "as expected" : "UNEXPECTED: no compaction and no fallback",
			(unsigned long long)left_max, mcs, mcf, a2, a3, a1, mfbk, nch, mfb, a4);
	}
	return 0;
}

static const struct lab_experiment experiment = {
	.name = "faults",
	.help = "fault one PMD at a time: per-chunk latency and fallbacks",
	.fn = lab_faults,
	.order = 50,
	.in_quick = true,
	.quick = {.size = (256ull << 20)},
	.all_cold = true,
	.opts =
		{
			{"--fragment", "faults/fallback: run under the fragmenter (root)"},
		},
};
LAB_EXPERIMENT(experiment);
