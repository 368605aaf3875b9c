// SPDX-License-Identifier: MIT
/*
 * lab touch: write one byte per base page of S, per mode; time, minor
 * faults, the region's AnonHugePages, and the vmstat deltas that prove
 * where the huge pages came from.
 */
#include <errno.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "../kernel/uapi_compat.h"
#include "common.h"

#define MAX_RUNS 64

/* One touch of one region, done in this process or a child (nothp). */
struct touch_out {
	int err;
	double ms;
	long faults;
	struct region_smaps rs;
	int thp_enabled; /* prctl state seen by the process that touched */
	struct folio_counts fc;
	int fc_err;
};

struct touch_arg {
	const struct lab_ctx *ctx;
	size_t size;
	enum lab_mode mode;
	bool folios;
};

static int touch_once(void *argp, void *outp)
{
	struct touch_arg *a = argp;
	struct touch_out *out = outp;
	struct region reg;
	memset(out, 0, sizeof(*out));
	if ((out->err = region_map(&reg, a->size, a->ctx->pmd_size)))
		return 1;
	if ((out->err = region_advise(&reg, a->mode))) {
		region_unmap(&reg);
		return 1;
	}
	out->thp_enabled = prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) ? 0 : 1;
	long f0 = minflt_self();
	uint64_t t0 = mono_ns();
	region_touch(&reg, 0, (size_t)a->ctx->page_size);
	if (a->mode == MODE_COLLAPSE)
		out->err = region_collapse(&reg);
	uint64_t t1 = mono_ns();
	out->faults = minflt_self() - f0;
	out->ms = (double)(t1 - t0) / 1e6;
	int r = region_smaps_read(a->ctx->sr, 0, (uintptr_t)reg.p, reg.len, &out->rs);
	if (r && !out->err)
		out->err = r;
	if (a->folios)
		out->fc_err = region_folios(a->ctx->sr, (uintptr_t)reg.p, reg.len,
					    a->ctx->page_size, &out->fc);
	region_unmap(&reg);
	return out->err ? 1 : 0;
}

static int lab_touch(const struct lab_ctx *ctx, const struct lab_opts *o, struct lab_result *r)
{
	uint64_t size;
	if (lab_size(ctx, o, 512ull << 20, r, &size))
		return 0;
	snprintf(r->title, sizeof(r->title), "one byte per base page, per mode");
	int runs = o->runs > MAX_RUNS ? MAX_RUNS : o->runs;
	int c_ms = lab_col_add(r, "time", "ms");
	int c_flt = lab_col_add(r, "faults", "");
	int c_ahp = lab_col_add(r, "AnonHugePages", "kB");
	int c_fa = lab_col_add(r, "thp_fault_alloc", "+");
	int c_fb = lab_col_add(r, "thp_fault_fallback", "+");
	int c_cs = lab_col_add(r, "compact_stall", "+");
	int c_ca = lab_col_add(r, "thp_collapse_alloc", "+");
	const enum lab_mode modes[] = {MODE_PLAIN, MODE_MADV, MODE_NOHUGE, MODE_NOTHP,
				       MODE_COLLAPSE};
	double med_ms[MODE_NMODES] = {0}, med_flt[MODE_NMODES] = {0};
	uint64_t ahp_kb[MODE_NMODES] = {0};
	bool ran[MODE_NMODES] = {0};
	char sz[32];
	lab_fmt_size(sz, sizeof(sz), size);
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		enum lab_mode mode = modes[m];
		if (mode == MODE_COLLAPSE && ctx->feat->madv_collapse == TRI_NO) {
			lab_proof(r, "collapse",
				  "skipped: this kernel has no MADV_COLLAPSE (6.1+)");
			continue;
		}
		double ms[MAX_RUNS], flt[MAX_RUNS], ahp[MAX_RUNS], fa[MAX_RUNS], fb[MAX_RUNS],
			cs[MAX_RUNS], ca[MAX_RUNS];
		struct touch_out last = {0};
		int n = 0;
		for (int i = 0; i < runs; i++) {
			lab_progress(o, "touch %s: %s run %d/%d", sz, lab_mode_name(mode), i + 1,
				     runs);
			lab_prepare_state(o->state, size);
			struct snap a = {0}, b = {0};
			snap_take(ctx->sr, &a);
			struct touch_arg arg = {ctx, size, mode, ctx->root && i == runs - 1};
			struct touch_out out;
			int rc = mode == MODE_NOTHP
					 ? lab_in_child(touch_once, &arg, &out, sizeof(out), true)
					 : touch_once(&arg, &out);
			snap_take(ctx->sr, &b);
			if (rc < 0 || out.err) {
				lab_proof(r, lab_mode_name(mode), "failed: %s",
					  strerror(out.err ? -out.err : -rc));
				r->partial = true;
				snap_free(&a);
				snap_free(&b);
				break;
			}
			int64_t d;
			ms[n] = out.ms;
			flt[n] = (double)out.faults;
			ahp[n] = (double)out.rs.t.kb[SM_ANON_HUGE];
			fa[n] = snap_delta(&a, &b, "thp_fault_alloc", &d) ? (double)d : 0;
			fb[n] = snap_delta(&a, &b, "thp_fault_fallback", &d) ? (double)d : 0;
			cs[n] = snap_delta(&a, &b, "compact_stall", &d) ? (double)d : 0;
			ca[n] = snap_delta(&a, &b, "thp_collapse_alloc", &d) ? (double)d : 0;
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
		lab_cell_set(r, row, c_ahp, ahp, (size_t)n);
		lab_cell_set(r, row, c_fa, fa, (size_t)n);
		lab_cell_set(r, row, c_fb, fb, (size_t)n);
		lab_cell_set(r, row, c_cs, cs, (size_t)n);
		lab_cell_set(r, row, c_ca, ca, (size_t)n);
		ran[mode] = true;
		med_ms[mode] = r->rows[row].c[c_ms].median;
		med_flt[mode] = r->rows[row].c[c_flt].median;
		ahp_kb[mode] = (uint64_t)r->rows[row].c[c_ahp].median;
		char fol[160] = "";
		if (ctx->root && !last.fc_err)
			lab_fmt_folios(fol, sizeof(fol), &last.fc, ctx->page_size);
		lab_proof(
			r, lab_mode_name(mode),
			"smaps AnonHugePages %llu kB of %llu kB, THPeligible %d, VmFlags%s%s, THP_enabled %d%s%s",
			(unsigned long long)last.rs.t.kb[SM_ANON_HUGE],
			(unsigned long long)(size >> 10), last.rs.thp_eligible,
			last.rs.vmflags & VMF_HG ? " hg" : "",
			last.rs.vmflags & VMF_NH ? " nh" : "", last.thp_enabled,
			fol[0] ? "; kpageflags: " : "", fol);
	}
	lab_progress_done(o);

	/* the expected shape under this host's policy */
	const char *pol = lab_pmd_policy(ctx);
	uint64_t full = size >> 10, pmds = size / ctx->pmd_size;
	bool always = strcmp(pol, "always") == 0, never = strcmp(pol, "never") == 0;
	bool ok = true;
	if (ran[MODE_MADV] && !never)
		ok &= ahp_kb[MODE_MADV] >= full * 9 / 10 &&
		      med_flt[MODE_MADV] <= (double)(pmds + 16);
	if (ran[MODE_PLAIN] && !always)
		ok &= ahp_kb[MODE_PLAIN] == 0;
	if (ran[MODE_NOHUGE])
		ok &= ahp_kb[MODE_NOHUGE] == 0;
	if (ran[MODE_NOTHP])
		ok &= ahp_kb[MODE_NOTHP] == 0;
	if (ran[MODE_COLLAPSE])
		ok &= ahp_kb[MODE_COLLAPSE] >= full * 9 / 10;
	char speed[64] = "";
	if (ran[MODE_MADV] && ran[MODE_PLAIN] && med_ms[MODE_MADV] > 0 && med_ms[MODE_PLAIN] > 0) {
		double x = med_ms[MODE_PLAIN] / med_ms[MODE_MADV];
		snprintf(speed, sizeof(speed), "; madv touched %.1fx %s than plain",
			 x >= 1 ? x : 1 / x, x >= 1 ? "faster" : "slower");
	}
	lab_verdict(
		r, ok,
		"%s: madv %.0f faults, %llu of %llu kB huge; plain %.0f faults, %llu kB huge (enabled=%s); nohuge and nothp %llu/%llu kB huge%s (proof: region smaps AnonHugePages, thp_fault_alloc deltas)",
		ok ? "as expected" : "UNEXPECTED", med_flt[MODE_MADV],
		(unsigned long long)ahp_kb[MODE_MADV], (unsigned long long)full,
		med_flt[MODE_PLAIN], (unsigned long long)ahp_kb[MODE_PLAIN], pol,
		(unsigned long long)ahp_kb[MODE_NOHUGE], (unsigned long long)ahp_kb[MODE_NOTHP],
		speed);
	return 0;
}

static const struct lab_experiment experiment = {
	.name = "touch",
	.help = "write one byte per base page: time, faults, AnonHugePages per mode",
	.fn = lab_touch,
	.order = 10,
	.in_quick = true,
	.quick = {.size = (256ull << 20)},
	.all_cold = true,
};
LAB_EXPERIMENT(experiment);
