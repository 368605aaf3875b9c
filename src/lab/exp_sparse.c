// SPDX-License-Identifier: MIT
/*
 * lab sparse: write one byte per PMD-size stride of S, plain vs
 * MADV_HUGEPAGE. Each touch of an advised region faults a whole huge page,
 * so under enabled=madvise its RSS is PMD/base page (512x on x86-64) times
 * the plain region's. Proof: the regions' own smaps Rss and AnonHugePages,
 * the thp_fault_alloc delta, and (root) kpageflags folios.
 */
#include <errno.h>
#include <string.h>

#include "common.h"

#define MAX_RUNS 64

struct sparse_out {
	int err;
	double ms;
	long faults;
	size_t touches;
	struct region_smaps rs;
	struct folio_counts fc;
	int fc_err;
};

static int sparse_once(const struct lab_ctx *ctx, size_t size, enum lab_mode mode, bool folios,
		       struct sparse_out *out)
{
	struct region reg;
	memset(out, 0, sizeof(*out));
	out->fc_err = -ENODATA;
	if ((out->err = region_map(&reg, size, ctx->pmd_size)))
		return out->err;
	if ((out->err = region_advise(&reg, mode))) {
		region_unmap(&reg);
		return out->err;
	}
	long f0 = minflt_self();
	uint64_t t0 = mono_ns();
	out->touches = region_touch(&reg, 0, ctx->pmd_size);
	uint64_t t1 = mono_ns();
	out->faults = minflt_self() - f0;
	out->ms = (double)(t1 - t0) / 1e6;
	out->err = region_smaps_read(ctx->sr, 0, (uintptr_t)reg.p, reg.len, &out->rs);
	if (folios)
		out->fc_err =
			region_folios(ctx->sr, (uintptr_t)reg.p, reg.len, ctx->page_size, &out->fc);
	region_unmap(&reg);
	return out->err;
}

static int lab_sparse(const struct lab_ctx *ctx, const struct lab_opts *o, struct lab_result *r)
{
	uint64_t size;
	if (lab_size(ctx, o, 1ull << 30, r, &size))
		return 0;
	snprintf(r->title, sizeof(r->title), "one byte per PMD-size stride: RSS plain vs madv");
	int runs = o->runs > MAX_RUNS ? MAX_RUNS : o->runs;
	int c_ms = lab_col_add(r, "time", "ms");
	int c_flt = lab_col_add(r, "faults", "");
	int c_rss = lab_col_add(r, "Rss", "kB");
	int c_ahp = lab_col_add(r, "AnonHugePages", "kB");
	int c_fa = lab_col_add(r, "thp_fault_alloc", "+");
	int c_fb = lab_col_add(r, "thp_fault_fallback", "+");
	const enum lab_mode modes[] = {MODE_PLAIN, MODE_MADV};
	uint64_t pmds = size / ctx->pmd_size;
	double rss_kb[MODE_NMODES] = {0}, ahp_kb[MODE_NMODES] = {0}, fa_med[MODE_NMODES] = {0},
	       fb_med[MODE_NMODES] = {0};
	bool ran[MODE_NMODES] = {0};
	char sz[32];
	lab_fmt_size(sz, sizeof(sz), size);
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		enum lab_mode mode = modes[m];
		/* what this mode's touches may take: one PMD each, or one base page */
		bool huge = mode == MODE_MADV || strcmp(lab_pmd_policy(ctx), "always") == 0;
		uint64_t need = huge ? size : pmds * (uint64_t)ctx->page_size;
		double ms[MAX_RUNS], flt[MAX_RUNS], rss[MAX_RUNS], ahp[MAX_RUNS], fa[MAX_RUNS],
			fb[MAX_RUNS];
		struct sparse_out last = {0};
		int n = 0;
		for (int i = 0; i < runs; i++) {
			lab_progress(o, "sparse %s: %s run %d/%d", sz, lab_mode_name(mode), i + 1,
				     runs);
			/* RSS is the measure: warm once, later runs reuse what the last freed */
			if (i == 0 || o->state == STATE_COLD)
				lab_prepare_state(o->state, need);
			struct snap a = {0}, b = {0};
			snap_take(ctx->sr, &a);
			struct sparse_out out;
			int rc = sparse_once(ctx, size, mode, ctx->root && i == runs - 1, &out);
			snap_take(ctx->sr, &b);
			if (rc) {
				lab_proof(r, lab_mode_name(mode), "failed: %s", strerror(-rc));
				r->partial = true;
				snap_free(&a);
				snap_free(&b);
				break;
			}
			int64_t d;
			ms[n] = out.ms;
			flt[n] = (double)out.faults;
			rss[n] = (double)out.rs.t.kb[SM_RSS];
			ahp[n] = (double)out.rs.t.kb[SM_ANON_HUGE];
			fa[n] = snap_delta(&a, &b, "thp_fault_alloc", &d) ? (double)d : 0;
			fb[n] = snap_delta(&a, &b, "thp_fault_fallback", &d) ? (double)d : 0;
			n++;
			last = out;
			snap_free(&a);
			snap_free(&b);
		}
		if (!n)
			continue;
		int row = lab_row_add(r, lab_mode_name(mode));
		lab_cell_set(r, row, c_ms, ms, (size_t)n);
		lab_cell_set(r, row, c_flt, flt, (size_t)n);
		lab_cell_set(r, row, c_rss, rss, (size_t)n);
		lab_cell_set(r, row, c_ahp, ahp, (size_t)n);
		lab_cell_set(r, row, c_fa, fa, (size_t)n);
		lab_cell_set(r, row, c_fb, fb, (size_t)n);
		ran[mode] = true;
		rss_kb[mode] = r->rows[row].c[c_rss].median;
		ahp_kb[mode] = r->rows[row].c[c_ahp].median;
		fa_med[mode] = r->rows[row].c[c_fa].median;
		fb_med[mode] = r->rows[row].c[c_fb].median;
		lab_proof(
			r, lab_mode_name(mode),
			"%zu touches; smaps Rss %llu kB, AnonHugePages %llu kB of %llu kB, THPeligible %d, VmFlags%s%s",
			last.touches, (unsigned long long)last.rs.t.kb[SM_RSS],
			(unsigned long long)last.rs.t.kb[SM_ANON_HUGE],
			(unsigned long long)(size >> 10), last.rs.thp_eligible,
			last.rs.vmflags & VMF_HG ? " hg" : "",
			last.rs.vmflags & VMF_NH ? " nh" : "");
		char key[40], fol[160] = "";
		snprintf(key, sizeof(key), "%s kpageflags", lab_mode_name(mode));
		if (!ctx->root)
			lab_proof(r, key, "skipped: not root (/proc/kpageflags is root-only)");
		else if (last.fc_err)
			lab_proof(r, key, "unreadable: %s", strerror(-last.fc_err));
		else {
			lab_fmt_folios(fol, sizeof(fol), &last.fc, ctx->page_size);
			lab_proof(r, key, "%s", fol);
		}
	}
	lab_progress_done(o);
	if (!ran[MODE_PLAIN] || !ran[MODE_MADV]) {
		lab_verdict(r, false, "UNEXPECTED: a region could not be measured (see proof)");
		return 0;
	}

	/* the expected shape under this host's policy */
	const char *pol = lab_pmd_policy(ctx);
	bool always = strcmp(pol, "always") == 0, never = strcmp(pol, "never") == 0;
	uint64_t full_kb = size >> 10, per_pmd = ctx->pmd_size / (uint64_t)ctx->page_size;
	double ratio = rss_kb[MODE_PLAIN] > 0 ? rss_kb[MODE_MADV] / rss_kb[MODE_PLAIN] : 0;
	double plain_per = pmds ? rss_kb[MODE_PLAIN] / (double)pmds : 0;
	bool madv_huge = ahp_kb[MODE_MADV] >= (double)full_kb * 9 / 10;
	bool plain_huge = ahp_kb[MODE_PLAIN] >= (double)full_kb * 9 / 10;
	bool ok;
	if (never) {
		ok = ahp_kb[MODE_MADV] == 0 && ahp_kb[MODE_PLAIN] == 0;
		lab_verdict(
			r, ok,
			"%s: enabled=never: no huge page for either region, madv Rss %.0f kB vs plain %.0f kB = %.1fx (both one base page per touch; proof: region smaps Rss/AnonHugePages)",
			ok ? "as expected" : "UNEXPECTED", rss_kb[MODE_MADV], rss_kb[MODE_PLAIN],
			ratio);
	} else if (always) {
		ok = madv_huge && plain_huge;
		lab_verdict(
			r, ok,
			"%s: enabled=always: plain is huge too, madv Rss %.0f kB vs plain %.0f kB = %.1fx (proof: region smaps AnonHugePages %.0f/%.0f kB, thp_fault_alloc +%.0f/+%.0f)",
			ok ? "as expected" : "UNEXPECTED", rss_kb[MODE_MADV], rss_kb[MODE_PLAIN],
			ratio, ahp_kb[MODE_MADV], ahp_kb[MODE_PLAIN], fa_med[MODE_MADV],
			fa_med[MODE_PLAIN]);
	} else {
		ok = madv_huge && ahp_kb[MODE_PLAIN] == 0 && ratio >= (double)per_pmd / 2;
		char why[128] = "";
		const char *off = lab_thp_off_reason(ctx);
		if (!madv_huge && off[0])
			snprintf(why, sizeof(why), "; madv got %.0f of %llu kB huge: %s",
				 ahp_kb[MODE_MADV], (unsigned long long)full_kb, off);
		else if (!madv_huge)
			snprintf(why, sizeof(why),
				 "; madv got %.0f of %llu kB huge, thp_fault_fallback +%.0f",
				 ahp_kb[MODE_MADV], (unsigned long long)full_kb, fb_med[MODE_MADV]);
		else if (plain_per > (double)ctx->page_size / 1024 * 1.5)
			snprintf(why, sizeof(why), "; plain took %.0f kB per touch (mTHP?)",
				 plain_per);
		lab_verdict(
			r, ok,
			"%s: madv Rss %.0f kB vs plain %.0f kB = %.0fx (PMD/base page = %llux, enabled=%s)%s (proof: region smaps Rss/AnonHugePages, thp_fault_alloc +%.0f)",
			ok ? "as expected" : "UNEXPECTED", rss_kb[MODE_MADV], rss_kb[MODE_PLAIN],
			ratio, (unsigned long long)per_pmd, pol, why, fa_med[MODE_MADV]);
	}
	return 0;
}

static const struct lab_experiment experiment = {
	.name = "sparse",
	.help = "one byte per PMD over 1 GiB: RSS plain vs MADV_HUGEPAGE",
	.fn = lab_sparse,
	.order = 20,
	.in_quick = true,
};
LAB_EXPERIMENT(experiment);
