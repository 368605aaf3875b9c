// SPDX-License-Identifier: MIT
/*
 * lab mthp: as root, set one multi-size THP (mTHP) size at a time to
 * always and touch a plain region: minor faults, that size's host-wide
 * anon_fault_alloc / anon_fault_fallback deltas, its nr_anon, and the folio
 * orders kpageflags shows for the region. mTHP is invisible to
 * AnonHugePages and thp_* vmstat; the region's own folios are the proof
 * (the per-size stats count every process). Every other anon size at
 * always as found, the PMD size included, is set to madvise for the run
 * (journalled): it would take the faults first.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "../kernel/parse.h"
#include "../kernel/sysfs.h"

#include "../util/units.h"
#include "common.h"
#include "guard.h"

#define MAX_RUNS 64
#define MAX_MTHP 16

struct mthp_out {
	int err;
	double ms;
	long faults;
	int64_t alloc, fallback, nr_anon; /* -1: no stats */
	bool stats;
	struct region_smaps rs;
	struct folio_counts fc;
	int fc_err;
};

/*
 * hugepages-<KB>kB/stats/NAME without allocating: heap growth between the
 * two reads would itself fault in folios of the size under test.
 */
static bool read_stat(const struct sysroot *sr, uint64_t kb, const char *name, uint64_t *v)
{
	return thp_size_stat(sr, kb, name, v) == 0;
}

static const char *const stat_names[3] = {"anon_fault_alloc", "anon_fault_fallback", "nr_anon"};

/* Touch every base page of a plain region of SIZE, SIZE_KB's stats read around the touch. */
static void mthp_once(const struct lab_ctx *ctx, uint64_t size, uint64_t size_kb, bool folios,
		      struct mthp_out *out)
{
	struct region reg;
	uint64_t a[3] = {0}, b[3] = {0};
	bool have[3];
	memset(out, 0, sizeof(*out));
	if ((out->err = region_map(&reg, size, ctx->pmd_size)))
		return;
	for (int i = 0; i < 3; i++)
		have[i] = read_stat(ctx->sr, size_kb, stat_names[i], &a[i]);
	long f0 = minflt_self();
	uint64_t t0 = mono_ns();
	region_touch(&reg, 0, (size_t)ctx->page_size);
	uint64_t t1 = mono_ns();
	out->faults = minflt_self() - f0;
	/* nr_anon is a gauge: read it while the region is still mapped */
	for (int i = 0; i < 3; i++)
		have[i] = have[i] && read_stat(ctx->sr, size_kb, stat_names[i], &b[i]);
	out->ms = (double)(t1 - t0) / 1e6;
	out->stats = have[0];
	out->alloc = have[0] ? (int64_t)(b[0] - a[0]) : -1;
	out->fallback = have[1] ? (int64_t)(b[1] - a[1]) : -1;
	out->nr_anon = have[2] ? (int64_t)(b[2] - a[2]) : -1;
	out->err = region_smaps_read(ctx->sr, 0, (uintptr_t)reg.p, reg.len, &out->rs);
	if (folios)
		out->fc_err =
			region_folios(ctx->sr, (uintptr_t)reg.p, reg.len, ctx->page_size, &out->fc);
	region_unmap(&reg);
}

/* Index of anon size SIZE_KB in ctx->thp, or -1. */
static int anon_size(const struct lab_ctx *ctx, uint64_t size_kb)
{
	for (int i = 0; i < ctx->thp->nsizes; i++)
		if (ctx->thp->sizes[i].size_kb == size_kb && ctx->thp->sizes[i].enabled.present)
			return i;
	return -1;
}

/* The columns, in order. */
enum { C_MS, C_FLT, C_FA, C_FB, C_NR, C_FOL, C_AHP };

/* One lab mthp run: what every size shares, and the summary so far. */
struct mthp_run {
	const struct lab_ctx *ctx;
	const struct lab_opts *o;
	struct lab_result *r;
	uint64_t size;
	char sz[32];
	bool left;	  /* an anon size at always could not be set aside */
	char others[256]; /* anon sizes at always as found, set to madvise for the run */
	bool ok, any, untested;
	char summary[MAX_MTHP * 40]; /* "64K 1024/1024 (not tested)" per size */
	size_t sn;
};

/* The sizes to try into WANT (skips named in proofs). Returns how many. */
static int mthp_pick(const struct lab_ctx *ctx, const struct lab_opts *o, struct lab_result *r,
		     uint64_t *want)
{
	uint64_t pmd_kb = ctx->pmd_size >> 10;
	int nwant = 0;
	if (o->n_mthp_sizes) {
		for (int i = 0; i < o->n_mthp_sizes && nwant < MAX_MTHP; i++) {
			char k[16];
			fmt_size_token(k, sizeof(k), o->mthp_sizes_kb[i]);
			if (o->mthp_sizes_kb[i] == pmd_kb)
				lab_proof(r, k, "skipped: the PMD size (see lab touch)");
			else if (anon_size(ctx, o->mthp_sizes_kb[i]) < 0)
				lab_proof(r, k, "skipped: no anonymous hugepages-%llukB here",
					  (unsigned long long)o->mthp_sizes_kb[i]);
			else
				want[nwant++] = o->mthp_sizes_kb[i];
		}
	} else {
		for (int i = 0; i < ctx->thp->nsizes && nwant < MAX_MTHP; i++)
			if (ctx->thp->sizes[i].enabled.present &&
			    ctx->thp->sizes[i].size_kb != pmd_kb)
				want[nwant++] = ctx->thp->sizes[i].size_kb;
	}
	return nwant;
}

/*
 * Set every anon size at always as found (the PMD size too) to madvise for
 * the run, journalled (restored when the experiment ends): a plain fault
 * would take them first. OTHERS: "2048K,16K" of those set aside; *LEFT
 * whether one could not be.
 */
static void mthp_set_aside(const struct lab_ctx *ctx, struct lab_result *r, char *others,
			   size_t len, bool *left)
{
	others[0] = '\0';
	*left = false;
	size_t n = 0;
	for (int i = 0; i < ctx->thp->nsizes; i++) {
		const struct thp_size *z = &ctx->thp->sizes[i];
		if (!z->enabled.present || !z->eff_enabled || strcmp(z->eff_enabled, "always"))
			continue;
		int w = lab_size_enabled(z->size_kb, "madvise");
		if (w) {
			lab_proof(r, "set aside", "hugepages-%llukB at always, not set aside: %s",
				  (unsigned long long)z->size_kb, strerror(-w));
			*left = true;
			r->partial = true;
		} else {
			lab_catf(others, len, &n, "%s%lluK", n ? "," : "",
				 (unsigned long long)z->size_kb);
		}
	}
}

/* Size KB's row, proof and shape, from its N runs (V: columns C_MS..C_NR) and the last. */
static void mthp_row(struct mthp_run *m, uint64_t kb, const char *k, double (*v)[MAX_RUNS], int n,
		     const struct mthp_out *last)
{
	struct lab_result *r = m->r;
	const struct thp_size *z = &m->ctx->thp->sizes[anon_size(m->ctx, kb)];
	m->any = true;
	int row = lab_row_add(r, k);
	lab_cell_set(r, row, C_MS, v[C_MS], (size_t)n);
	lab_cell_set(r, row, C_FLT, v[C_FLT], (size_t)n);
	if (last->stats)
		lab_cell_set(r, row, C_FA, v[C_FA], (size_t)n);
	if (last->fallback >= 0)
		lab_cell_set(r, row, C_FB, v[C_FB], (size_t)n);
	if (last->nr_anon >= 0)
		lab_cell_set(r, row, C_NR, v[C_NR], (size_t)n);
	int order = z->order;
	bool fol = !last->fc_err && order > 0 && order < 32;
	if (fol)
		lab_cell_set1(r, row, C_FOL, (double)last->fc.by_order[order]);
	lab_cell_set1(r, row, C_AHP, (double)last->rs.t.kb[SM_ANON_HUGE]);

	uint64_t expect = m->size / (kb << 10);
	double med_fb = r->rows[row].c[C_FB].median;
	char fo[LAB_FOLIOS_LEN] = "";
	if (fol)
		lab_fmt_folios(fo, sizeof(fo), &last->fc, m->ctx->page_size);
	else if (last->fc_err)
		lab_fmt(fo, sizeof(fo), "kpageflags unreadable: %s", strerror(-last->fc_err));
	/*
	 * The counters are host-wide: another process faulting while this
	 * size is on adds to them. The region's own folios are exact.
	 */
	double min_fa = r->rows[row].c[C_FA].min, fb0 = med_fb > 0 ? med_fb : 0;
	uint64_t nfol = fol ? last->fc.by_order[order] : 0;
	lab_proof(
		r, k,
		"region (last run): %s folios %llu of %llu, AnonHugePages %llu kB, faults %.0f, folios: %s; host-wide: anon_fault_alloc +%.0f, fallback +%.0f",
		k, (unsigned long long)nfol, (unsigned long long)expect,
		(unsigned long long)last->rs.t.kb[SM_ANON_HUGE], r->rows[row].c[C_FLT].median, fo,
		min_fa, med_fb);
	if (!last->stats)
		lab_proof(r, "stats", "no hugepages-%llukB/stats here (6.10+): folios only",
			  (unsigned long long)kb);
	struct mthp_seen seen = {.folios_read = fol,
				 .folios = nfol,
				 .expect = expect,
				 .fallback = fb0,
				 .stats = last->stats,
				 .min_alloc = min_fa,
				 .ahp_kb = last->rs.t.kb[SM_ANON_HUGE],
				 .others_on = m->left};
	enum mthp_call c = lab_mthp_call(&seen);
	m->ok &= c != MTHP_UNEXPECTED;
	m->untested |= c == MTHP_NOT_TESTED;
	lab_catf(m->summary, sizeof(m->summary), &m->sn, "%s%s %llu/%llu%s", m->sn ? ", " : "", k,
		 (unsigned long long)nfol, (unsigned long long)expect,
		 c == MTHP_NOT_TESTED ? " (not tested)" : "");
}

/* Size KB alone at always for its runs, then back as found. */
static void mthp_size(struct mthp_run *m, uint64_t kb)
{
	struct lab_result *r = m->r;
	const struct thp_size *z = &m->ctx->thp->sizes[anon_size(m->ctx, kb)];
	int runs = m->o->runs > MAX_RUNS ? MAX_RUNS : m->o->runs;
	char k[16];
	fmt_size_token(k, sizeof(k), kb);
	int w = lab_size_enabled(kb, "always");
	if (w) {
		lab_proof(r, k, "could not set always: %s", strerror(-w));
		r->partial = true;
		return;
	}
	double v[C_NR + 1][MAX_RUNS];
	struct mthp_out last = {0};
	int n = 0;
	for (int i = 0; i < runs; i++) {
		lab_progress(m->o, "mthp %s at always, %s: run %d/%d", k, m->sz, i + 1, runs);
		lab_prepare_state(m->o->state, m->size);
		struct mthp_out out;
		mthp_once(m->ctx, m->size, kb, i == runs - 1, &out);
		if (out.err) {
			lab_failed(r, k, out.err);
			break;
		}
		v[C_MS][n] = out.ms;
		v[C_FLT][n] = (double)out.faults;
		v[C_FA][n] = (double)out.alloc;
		v[C_FB][n] = (double)out.fallback;
		v[C_NR][n] = (double)out.nr_anon;
		n++;
		last = out;
	}
	/* only one size on at a time: this one goes back before the next */
	w = lab_size_enabled(kb, z->enabled.selected);
	if (w) {
		lab_proof(r, "restore", "%s back to %s failed: %s (restored at exit)", k,
			  z->enabled.selected, strerror(-w));
		r->partial = true;
	}
	if (n)
		mthp_row(m, kb, k, v, n, &last);
}

static int lab_mthp(const struct lab_ctx *ctx, const struct lab_opts *o, struct lab_result *r)
{
	uint64_t size;
	if (lab_begin(
		    ctx, o, 64ull << 20, r, &size,
		    "each mTHP size at always, one at a time: plain touch, per-size stats, folio orders"))
		return 0;
	uint64_t want[MAX_MTHP];
	int nwant = mthp_pick(ctx, o, r, want);
	if (!ctx->feat->mthp_sizes || (!nwant && !o->n_mthp_sizes)) {
		lab_skip(
			r,
			"this kernel has no per-size mTHP controls (hugepages-<size>kB/enabled, 6.8+)");
		return 0;
	}
	if (!nwant) {
		lab_skip(r, "none of the --sizes is an mTHP size offered here");
		return 0;
	}
	if (lab_needs_write(ctx, r, "set hugepages-<size>kB/enabled to always for the run"))
		return 0;
	static const struct lab_coldef cols[] = {{"time", "ms"},
						 {"faults", ""},
						 {"anon_fault_alloc", "+"},
						 {"anon_fault_fallback", "+"},
						 {"nr_anon", "+"},
						 {"folios", ""},
						 {"AnonHugePages", "kB"}};
	lab_cols_add(r, cols, (int)(sizeof(cols) / sizeof(cols[0])), NULL);
	struct mthp_run m = {.ctx = ctx, .o = o, .r = r, .size = size, .ok = true};
	mthp_set_aside(ctx, r, m.others, sizeof(m.others), &m.left);
	lab_fmt_size(m.sz, sizeof(m.sz), size);
	for (int s = 0; s < nwant; s++)
		mthp_size(&m, want[s]);
	lab_progress_done(o);
	if (m.others[0])
		lab_proof(r, "set aside",
			  "at always as found, madvise for the run (journalled): %s", m.others);
	if (!ctx->root)
		lab_proof(r, "kpageflags", "skipped: not root (/proc/kpageflags is root-only)");
	if (!m.any) {
		lab_verdict(r, false, "no size could be measured (see proofs)");
		return 0;
	}
	const char *why = m.left ? " (another size stayed at always: see proof)" : "";
	if (m.untested && m.ok) {
		lab_verdict(r, false,
			    "not tested: no folio of the size seen in the region; %s %s%s", m.sz,
			    m.summary, why);
		r->inconclusive = true;
	} else
		lab_verdict_ok(
			r, m.ok,
			"folios of the size in the region (kpageflags) / %s / size: %s; AnonHugePages 0 for mTHP%s",
			m.sz, m.summary, why);
	return 0;
}

LAB_EXPERIMENT_DEFINE("mthp", 80, lab_mthp,
		      "each mTHP size at always (root): per-size allocations and folio orders",
		      .in_quick = true, .quick = {.mthp_kb = 64},
		      .opts = {{"--sizes LIST",
				"mthp: sizes to try, e.g. 16K,64K (default: every size offered)"}},
		      .host = {"hugepages-<size>kB/enabled=always, one size at a time (sizes at "
			       "always as found set to madvise meanwhile)",
			       1, 40, true, NULL});
