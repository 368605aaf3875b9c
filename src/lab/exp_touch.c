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

#include "../util/stats.h"
#include "../kernel/uapi_compat.h"
#include "common.h"
#include "shot.h"

#define MAX_RUNS 64

struct touch_arg {
	const struct lab_ctx *ctx;
	size_t size;
	enum lab_mode mode;
	bool folios;
};

/* One shot, in this process or (nothp) in a child: OUT lies in shared memory there. */
static int touch_once(void *argp, void *outp)
{
	struct touch_arg *a = argp;
	struct shot *out = outp;
	struct shot_spec sp = {.size = a->size,
			       .mode = a->mode,
			       .stride = (size_t)a->ctx->page_size,
			       .folios = a->folios};
	shot_take(a->ctx, &sp, out); /* fc_err -ENODATA when FOLIOS was not asked */
	return out->err ? 1 : 0;
}

/* The columns, in order. */
enum { C_MS, C_FLT, C_AHP, C_FA, C_FB, C_CS, C_CA, C_N };
static const char *const vm_ctr[C_N] = {[C_FA] = "thp_fault_alloc",
					[C_FB] = "thp_fault_fallback",
					[C_CS] = "compact_stall",
					[C_CA] = "thp_collapse_alloc"};

/* What each mode's row says, for the verdict. */
struct touch_sum {
	double med_ms[MODE_NMODES], med_flt[MODE_NMODES];
	double ms[MODE_NMODES][MAX_RUNS]; /* each run's time, for the interval of madv/plain */
	int nms[MODE_NMODES];
	uint64_t ahp_kb[MODE_NMODES];
	bool ran[MODE_NMODES];
};

/* MODE's runs as one row and one proof. */
static void touch_mode(const struct lab_ctx *ctx, const struct lab_opts *o, struct lab_result *r,
		       uint64_t size, enum lab_mode mode, struct touch_sum *sum)
{
	int runs = o->runs > MAX_RUNS ? MAX_RUNS : o->runs;
	double v[C_N][MAX_RUNS];
	struct shot last = {0};
	int n = 0;
	for (int i = 0; i < runs; i++) {
		lab_progress_run(o, "touch", size, lab_mode_name(mode), i, runs);
		lab_prepare_state(o->state, size);
		/* the snapshots around the child too: a child's own would be lost */
		struct snap a = {0}, b = {0};
		snap_take(ctx->sr, &a);
		struct shot out;
		struct touch_arg arg = {ctx, size, mode, ctx->root && i == runs - 1};
		int rc = mode == MODE_NOTHP
				 ? lab_in_child(touch_once, &arg, &out, sizeof(out), true)
				 : touch_once(&arg, &out);
		snap_take(ctx->sr, &b);
		out.a = a;
		out.b = b;
		if (rc < 0 || out.err) {
			char key[40];
			snprintf(key, sizeof(key), "%s run %d/%d", lab_mode_name(mode), i + 1,
				 runs);
			lab_failed(r, key, out.err ? out.err : rc);
			shot_free(&out);
			break;
		}
		v[C_MS][n] = out.ms;
		v[C_FLT][n] = (double)out.faults;
		v[C_AHP][n] = (double)out.rs.t.kb[SM_ANON_HUGE];
		for (int c = C_FA; c < C_N; c++)
			v[c][n] = shot_delta(&out, vm_ctr[c]);
		n++;
		shot_keep(&last, &out);
	}
	if (!n)
		return;
	int row = lab_row_samples(r, lab_mode_name(mode), &v[0][0], MAX_RUNS, C_N, (size_t)n);
	sum->ran[mode] = true;
	memcpy(sum->ms[mode], v[C_MS], (size_t)n * sizeof(double));
	sum->nms[mode] = n;
	sum->med_ms[mode] = r->rows[row].c[C_MS].median;
	sum->med_flt[mode] = r->rows[row].c[C_FLT].median;
	sum->ahp_kb[mode] = (uint64_t)r->rows[row].c[C_AHP].median;
	/* the proof is run N's own: kpageflags only when that run read them */
	char fol[160] = "", key[40];
	if (ctx->root && !last.fc_err)
		lab_fmt_folios(fol, sizeof(fol), &last.fc, ctx->page_size);
	snprintf(key, sizeof(key), "%s run %d/%d", lab_mode_name(mode), n, runs);
	lab_proof(
		r, key,
		"smaps AnonHugePages %llu kB of %llu kB, THPeligible %d, VmFlags%s%s, THP_enabled %d%s%s",
		(unsigned long long)last.rs.t.kb[SM_ANON_HUGE], (unsigned long long)(size >> 10),
		last.rs.thp_eligible, last.rs.vmflags & VMF_HG ? " hg" : "",
		last.rs.vmflags & VMF_NH ? " nh" : "", last.thp_enabled,
		fol[0] ? "; kpageflags: " : "", fol);
}

/*
 * "; madv touched 3.9x faster than plain (95% interval 3.1-4.4x)" when the interval of the
 * ratio of their times (Hodges-Lehmann, Mann-Whitney bounds: util/stats.h) is clear of 1 and
 * of the 10% that does not matter; else why no speed is claimed (too few runs for an
 * interval, or runs too spread: an outlier in a few runs). Medians alone never decide it.
 */
static void touch_speed(const struct touch_sum *s, char *out, size_t n)
{
	struct ratio_ci ci;
	if (stats_ratio_ci(s->ms[MODE_PLAIN], (size_t)s->nms[MODE_PLAIN], s->ms[MODE_MADV],
			   (size_t)s->nms[MODE_MADV], 0.95, &ci)) {
		lab_fmt(out, n, "; madv vs plain time: no interval (a time of 0)");
		return;
	}
	switch (stats_ci_call(&ci, 0.10)) {
	case CI_BELOW:
	case CI_ABOVE: {
		bool faster = ci.hi < 1;
		lab_fmt(out, n, "; madv touched %.1fx %s than plain (%.0f%% interval %.1f-%.1fx)",
			faster ? 1 / ci.est : ci.est, faster ? "faster" : "slower", ci.level * 100,
			faster ? 1 / ci.hi : ci.lo, faster ? 1 / ci.lo : ci.hi);
		break;
	}
	case CI_WITHIN:
		lab_fmt(out, n, "; madv and plain touched in about the same time (within 10%%)");
		break;
	case CI_TOO_FEW:
		lab_fmt(out, n,
			"; madv vs plain time: too few runs for a 95%% interval (%d and %d; "
			"medians %.3g vs %.3g ms)",
			s->nms[MODE_MADV], s->nms[MODE_PLAIN], s->med_ms[MODE_MADV],
			s->med_ms[MODE_PLAIN]);
		break;
	default:
		lab_fmt(out, n,
			"; madv vs plain time: inconclusive, the runs too spread (interval "
			"%.2f-%.2fx of plain's)",
			ci.lo, ci.hi);
		break;
	}
}

/* The expected shape under this host's policy. */
static void touch_verdict(const struct lab_ctx *ctx, struct lab_result *r, uint64_t size,
			  const struct touch_sum *s)
{
	const char *pol = lab_pmd_policy(ctx);
	uint64_t full = size >> 10, pmds = size / ctx->pmd_size;
	bool always = strcmp(pol, "always") == 0, never = strcmp(pol, "never") == 0;
	bool ok = true;
	if (s->ran[MODE_MADV] && !never)
		ok &= s->ahp_kb[MODE_MADV] >= full * 9 / 10 &&
		      s->med_flt[MODE_MADV] <= (double)(pmds + 16);
	if (s->ran[MODE_PLAIN] && !always)
		ok &= s->ahp_kb[MODE_PLAIN] == 0;
	if (s->ran[MODE_NOHUGE])
		ok &= s->ahp_kb[MODE_NOHUGE] == 0;
	if (s->ran[MODE_NOTHP])
		ok &= s->ahp_kb[MODE_NOTHP] == 0;
	if (s->ran[MODE_COLLAPSE])
		ok &= s->ahp_kb[MODE_COLLAPSE] >= full * 9 / 10;
	char speed[160] = "", madv[80], plain[80], nohuge[24], nothp[24];
	bool decided = s->ran[MODE_MADV] && s->ran[MODE_PLAIN];
	if (decided)
		touch_speed(s, speed, sizeof(speed));
	if (s->ran[MODE_MADV])
		lab_fmt(madv, sizeof(madv), "madv %.0f faults, %llu of %llu kB huge",
			s->med_flt[MODE_MADV], (unsigned long long)s->ahp_kb[MODE_MADV],
			(unsigned long long)full);
	else
		lab_fmt(madv, sizeof(madv), "madv not run");
	if (s->ran[MODE_PLAIN])
		lab_fmt(plain, sizeof(plain), "plain %.0f faults, %llu kB huge",
			s->med_flt[MODE_PLAIN], (unsigned long long)s->ahp_kb[MODE_PLAIN]);
	else
		lab_fmt(plain, sizeof(plain), "plain not run");
	lab_fmt(nohuge, sizeof(nohuge), s->ran[MODE_NOHUGE] ? "%llu" : "-",
		(unsigned long long)s->ahp_kb[MODE_NOHUGE]);
	lab_fmt(nothp, sizeof(nothp), s->ran[MODE_NOTHP] ? "%llu" : "-",
		(unsigned long long)s->ahp_kb[MODE_NOTHP]);
	/* madv and plain decide: without one of them nothing is "as expected" */
	lab_verdict(
		r, ok && decided,
		"%s: %s; %s (enabled=%s); nohuge and nothp %s/%s kB huge%s%s (proof: region smaps AnonHugePages, host-wide thp_fault_alloc deltas)",
		!ok	  ? "UNEXPECTED"
		: decided ? "as expected"
			  : "inconclusive",
		madv, plain, pol, nohuge, nothp, speed,
		decided ? "" : "; the madv and plain runs decide, one did not run");
	r->inconclusive = ok && !decided;
}

static int lab_touch(const struct lab_ctx *ctx, const struct lab_opts *o, struct lab_result *r)
{
	uint64_t size;
	if (lab_begin(ctx, o, 512ull << 20, r, &size, "one byte per base page, per mode"))
		return 0;
	lab_col_add(r, "time", "ms");
	lab_col_add(r, "faults", "");
	lab_col_add(r, "AnonHugePages", "kB");
	lab_delta_cols(r, vm_ctr + C_FA, C_N - C_FA, NULL);
	const enum lab_mode modes[] = {MODE_PLAIN, MODE_MADV, MODE_NOHUGE, MODE_NOTHP,
				       MODE_COLLAPSE};
	struct touch_sum sum = {0};
	for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		if (modes[m] == MODE_COLLAPSE && ctx->feat->madv_collapse == TRI_NO) {
			lab_proof(r, "collapse",
				  "skipped: this kernel has no MADV_COLLAPSE (6.1+)");
			continue;
		}
		touch_mode(ctx, o, r, size, modes[m], &sum);
	}
	lab_progress_done(o);
	touch_verdict(ctx, r, size, &sum);
	return 0;
}

LAB_EXPERIMENT_DEFINE("touch", 10, lab_touch,
		      "write one byte per base page: time, faults, AnonHugePages per mode",
		      .in_quick = true, .quick = {.size = (128ull << 20)}, .all_cold = true);
