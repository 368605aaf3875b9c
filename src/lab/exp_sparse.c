// SPDX-License-Identifier: MIT
/*
 * lab sparse: write one byte per PMD-size stride of S, plain vs
 * MADV_HUGEPAGE. Each touch of an advised region faults a whole huge page,
 * so under enabled=madvise its RSS is PMD/base page (512x on x86-64) times
 * the plain region's. Proof: the regions' own smaps Rss and AnonHugePages,
 * the thp_fault_alloc delta, and (root) kpageflags folios.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "common.h"
#include "shot.h"

#define MAX_RUNS 64

/* The columns, in order. */
enum { C_MS, C_FLT, C_RSS, C_AHP, C_FA, C_FB, C_N };

/* What each mode's row says, for the verdict. */
struct sparse_sum {
	double rss_kb[MODE_NMODES], ahp_kb[MODE_NMODES], fa_med[MODE_NMODES], fb_med[MODE_NMODES];
	bool ran[MODE_NMODES];
};

/* MODE's last shot as proofs: its smaps and (root) its folios. */
static void sparse_proofs(const struct lab_ctx *ctx, struct lab_result *r, uint64_t size,
			  enum lab_mode mode, const struct shot *last)
{
	lab_proof(
		r, lab_mode_name(mode),
		"%zu touches; smaps Rss %llu kB, AnonHugePages %llu kB of %llu kB, THPeligible %d, VmFlags%s%s",
		last->touches, (unsigned long long)last->rs.t.kb[SM_RSS],
		(unsigned long long)last->rs.t.kb[SM_ANON_HUGE], (unsigned long long)(size >> 10),
		last->rs.thp_eligible, last->rs.vmflags & VMF_HG ? " hg" : "",
		last->rs.vmflags & VMF_NH ? " nh" : "");
	lab_folio_proof(ctx, r, lab_mode_name(mode), "", &last->fc, last->fc_err);
}

/* MODE's runs as one row and its proofs. */
static void sparse_mode(const struct lab_ctx *ctx, const struct lab_opts *o, struct lab_result *r,
			uint64_t size, enum lab_mode mode, struct sparse_sum *sum)
{
	int runs = o->runs > MAX_RUNS ? MAX_RUNS : o->runs;
	uint64_t pmds = size / ctx->pmd_size;
	/* what this mode's touches may take: one PMD each, or one base page */
	bool huge = mode == MODE_MADV || strcmp(lab_pmd_policy(ctx), "always") == 0;
	uint64_t need = huge ? size : pmds * (uint64_t)ctx->page_size;
	double v[C_N][MAX_RUNS];
	struct shot last = {0};
	int n = 0;
	for (int i = 0; i < runs; i++) {
		lab_progress_run(o, "sparse", size, lab_mode_name(mode), i, runs);
		/* RSS is the measure: warm once, later runs reuse what the last freed */
		if (i == 0 || o->state == STATE_COLD)
			lab_prepare_state(o->state, need);
		struct shot_spec sp = {.size = size,
				       .mode = mode,
				       .stride = ctx->pmd_size,
				       .snaps = true,
				       .folios = ctx->root && i == runs - 1};
		struct shot out;
		if (shot_take(ctx, &sp, &out)) {
			lab_failed(r, lab_mode_name(mode), out.err);
			shot_free(&out);
			break;
		}
		v[C_MS][n] = out.ms;
		v[C_FLT][n] = (double)out.faults;
		v[C_RSS][n] = (double)out.rs.t.kb[SM_RSS];
		v[C_AHP][n] = (double)out.rs.t.kb[SM_ANON_HUGE];
		v[C_FA][n] = shot_delta(&out, "thp_fault_alloc");
		v[C_FB][n] = shot_delta(&out, "thp_fault_fallback");
		n++;
		shot_keep(&last, &out);
	}
	if (!n)
		return;
	int row = lab_row_samples(r, lab_mode_name(mode), &v[0][0], MAX_RUNS, C_N, (size_t)n);
	sum->ran[mode] = true;
	sum->rss_kb[mode] = r->rows[row].c[C_RSS].median;
	sum->ahp_kb[mode] = r->rows[row].c[C_AHP].median;
	/* a counter no run could read has no cell: unknown, never 0 */
	sum->fa_med[mode] = r->rows[row].c[C_FA].present ? r->rows[row].c[C_FA].median : NAN;
	sum->fb_med[mode] = r->rows[row].c[C_FB].present ? r->rows[row].c[C_FB].median : NAN;
	sparse_proofs(ctx, r, size, mode, &last);
}

/* The verdict under enabled=madvise: madv huge, plain small, their RSS PMD/base page apart. */
static void sparse_verdict_madvise(const struct lab_ctx *ctx, struct lab_result *r, uint64_t size,
				   const struct sparse_sum *s, double ratio)
{
	uint64_t full_kb = size >> 10, per_pmd = ctx->pmd_size / (uint64_t)ctx->page_size;
	uint64_t pmds = size / ctx->pmd_size;
	double plain_per = pmds ? s->rss_kb[MODE_PLAIN] / (double)pmds : 0;
	bool madv_huge = s->ahp_kb[MODE_MADV] >= (double)full_kb * 9 / 10;
	bool ok = madv_huge && s->ahp_kb[MODE_PLAIN] == 0 && ratio >= (double)per_pmd / 2;
	char why[128] = "", d1[24];
	const char *off = lab_thp_off_reason(ctx);
	if (!madv_huge && off[0])
		lab_fmt(why, sizeof(why), "; madv got %.0f of %llu kB huge: %s",
			s->ahp_kb[MODE_MADV], (unsigned long long)full_kb, off);
	else if (!madv_huge)
		lab_fmt(why, sizeof(why), "; madv got %.0f of %llu kB huge, thp_fault_fallback %s",
			s->ahp_kb[MODE_MADV], (unsigned long long)full_kb,
			lab_fmt_delta(d1, sizeof(d1), s->fb_med[MODE_MADV]));
	else if (plain_per > (double)ctx->page_size / 1024 * 1.5)
		lab_fmt(why, sizeof(why), "; plain took %.0f kB per touch (mTHP?)", plain_per);
	lab_verdict_ok(
		r, ok,
		"madv Rss %.0f kB vs plain %.0f kB = %.0fx (PMD/base page = %llux, enabled=%s)%s (proof: region smaps Rss/AnonHugePages, host-wide thp_fault_alloc %s)",
		s->rss_kb[MODE_MADV], s->rss_kb[MODE_PLAIN], ratio, (unsigned long long)per_pmd,
		lab_pmd_policy(ctx), why, lab_fmt_delta(d1, sizeof(d1), s->fa_med[MODE_MADV]));
}

/* The expected shape under this host's policy. */
static void sparse_verdict(const struct lab_ctx *ctx, struct lab_result *r, uint64_t size,
			   const struct sparse_sum *s)
{
	const char *pol = lab_pmd_policy(ctx);
	bool always = strcmp(pol, "always") == 0, never = strcmp(pol, "never") == 0;
	uint64_t full_kb = size >> 10;
	double ratio = s->rss_kb[MODE_PLAIN] > 0 ? s->rss_kb[MODE_MADV] / s->rss_kb[MODE_PLAIN] : 0;
	char d1[24], d2[24];
	bool madv_huge = s->ahp_kb[MODE_MADV] >= (double)full_kb * 9 / 10;
	bool plain_huge = s->ahp_kb[MODE_PLAIN] >= (double)full_kb * 9 / 10;
	bool ok;
	if (never) {
		ok = s->ahp_kb[MODE_MADV] == 0 && s->ahp_kb[MODE_PLAIN] == 0;
		lab_verdict_ok(
			r, ok,
			"enabled=never: no huge page for either region, madv Rss %.0f kB vs plain %.0f kB = %.1fx (both one base page per touch; proof: region smaps Rss/AnonHugePages)",
			s->rss_kb[MODE_MADV], s->rss_kb[MODE_PLAIN], ratio);
	} else if (always) {
		ok = madv_huge && plain_huge;
		lab_verdict_ok(
			r, ok,
			"enabled=always: plain is huge too, madv Rss %.0f kB vs plain %.0f kB = %.1fx (proof: region smaps AnonHugePages %.0f/%.0f kB, host-wide thp_fault_alloc %s/%s)",
			s->rss_kb[MODE_MADV], s->rss_kb[MODE_PLAIN], ratio, s->ahp_kb[MODE_MADV],
			s->ahp_kb[MODE_PLAIN], lab_fmt_delta(d1, sizeof(d1), s->fa_med[MODE_MADV]),
			lab_fmt_delta(d2, sizeof(d2), s->fa_med[MODE_PLAIN]));
	} else {
		sparse_verdict_madvise(ctx, r, size, s, ratio);
	}
}

static int lab_sparse(const struct lab_ctx *ctx, const struct lab_opts *o, struct lab_result *r)
{
	uint64_t size;
	if (lab_begin(ctx, o, 1ull << 30, r, &size,
		      "one byte per PMD-size stride: RSS plain vs madv"))
		return 0;
	static const struct lab_coldef cols[] = {
		{"time", "ms"},		 {"faults", ""},	   {"Rss", "kB"},
		{"AnonHugePages", "kB"}, {"thp_fault_alloc", "+"}, {"thp_fault_fallback", "+"}};
	lab_cols_add(r, cols, C_N, NULL);
	struct sparse_sum sum = {0};
	sparse_mode(ctx, o, r, size, MODE_PLAIN, &sum);
	sparse_mode(ctx, o, r, size, MODE_MADV, &sum);
	lab_progress_done(o);
	if (!sum.ran[MODE_PLAIN] || !sum.ran[MODE_MADV]) {
		lab_verdict(r, false, "UNEXPECTED: a region could not be measured (see proof)");
		return 0;
	}
	sparse_verdict(ctx, r, size, &sum);
	return 0;
}

LAB_EXPERIMENT_DEFINE("sparse", 20, lab_sparse,
		      "one byte per PMD over 1 GiB: RSS plain vs MADV_HUGEPAGE", .in_quick = true,
		      .quick = {.size = (256ull << 20)});
