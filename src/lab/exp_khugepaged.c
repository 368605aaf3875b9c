// SPDX-License-Identifier: MIT
/*
 * lab khugepaged: touch one base page in 8 of a plain region, then
 * MADV_HUGEPAGE it and watch khugepaged collapse it, once a second, through
 * the region's own smaps (Rss, AnonHugePages). With max_ptes_none at 511
 * every PMD is filled in: RSS grows 8x; at 0 nothing collapses. As root,
 * by default, scan_sleep_millisecs is lowered to 10 ms for the run
 * (--scan-sleep: another value) and the region is run at max_ptes_none 511
 * and then 0, both journalled (--max-ptes-none N: as found, then N). Nothing
 * is concluded before khugepaged/full_scans advanced by 2 (a whole pass
 * begun after the setup), except a full collapse.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "../kernel/parse.h"
#include "../kernel/sysfs.h"
#include "../kernel/uapi_compat.h"
#include "common.h"
#include "guard.h"

#define KH "khugepaged"
#define STRIDE_PAGES 8 /* one touched page in 8 */
#define MAX_PHASES 2
#define KH_SLEEP_MS 10 /* scan_sleep_millisecs as root unless --scan-sleep */

/* One sample, taken once a second from the advice on. */
struct kh_sample {
	double t;	    /* seconds since the advice */
	uint64_t rss, ahp;  /* kB, the region's smaps */
	uint64_t collapsed; /* khugepaged/pages_collapsed since the advice */
	uint64_t alloc;	    /* thp_collapse_alloc since the advice */
	uint64_t full_scans;
};

struct kh_phase {
	long mpn; /* max_ptes_none in force */
	bool set; /* written for the run (journalled) */
	uint64_t rss0;
	struct kh_sample *s;
	int n;
	bool full;    /* AnonHugePages reached the size */
	bool settled; /* two full scans without a change: nothing more will happen */
	unsigned vmflags;
	int64_t exceed_none, alloc_failed;
	int err;
};

/* One /proc/vmstat counter, 0 when absent. */
static uint64_t vm_counter(const struct sysroot *sr, const char *name)
{
	uint64_t v = 0;
	return vmstat_get(sr, name, &v) ? 0 : v;
}

static void sleep_until(uint64_t ns)
{
	struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000ull),
			      .tv_nsec = (long)(ns % 1000000000ull)};
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* Whether plain memory would get large folios at fault here (an anon size at always). */
static bool faults_huge(const struct lab_ctx *ctx)
{
	for (int i = 0; i < ctx->thp->nsizes; i++) {
		const struct thp_size *z = &ctx->thp->sizes[i];
		if (z->enabled.present && z->eff_enabled && !strcmp(z->eff_enabled, "always"))
			return true;
	}
	return !strcmp(lab_pmd_policy(ctx), "always");
}

static int kh_run(const struct lab_ctx *ctx, const struct lab_opts *o, uint64_t size,
		  bool nohuge_first, struct kh_phase *ph)
{
	const struct sysroot *sr = ctx->sr;
	struct region reg;
	struct region_smaps rs;
	int r;
	char sz[32];
	lab_fmt_size(sz, sizeof(sz), size);
	if ((r = region_map(&reg, size, ctx->pmd_size)))
		return r;
	if (nohuge_first && madvise(reg.p, reg.len, MADV_NOHUGEPAGE)) {
		r = -errno;
		goto out;
	}
	region_touch(&reg, 0, (size_t)ctx->page_size * STRIDE_PAGES);
	if ((r = region_smaps_read(sr, 0, (uintptr_t)reg.p, reg.len, &rs)))
		goto out;
	ph->rss0 = rs.t.kb[SM_RSS];
	uint64_t pc0 = 0, fs0 = 0, alloc0 = vm_counter(sr, "thp_collapse_alloc");
	uint64_t ex0 = vm_counter(sr, "thp_scan_exceed_none_pte");
	uint64_t af0 = vm_counter(sr, "thp_collapse_alloc_failed");
	thp_knob_u64(sr, KH "/pages_collapsed", &pc0);
	thp_knob_u64(sr, KH "/full_scans", &fs0);
	if ((r = region_advise(&reg, MODE_MADV)))
		goto out;
	uint64_t t0 = mono_ns(), full_kb = size >> 10, fs_changed = fs0;
	for (int i = 0; i <= o->timeout_s; i++) {
		if (i)
			sleep_until(t0 + (uint64_t)i * 1000000000ull);
		struct kh_sample *s = &ph->s[ph->n];
		if ((r = region_smaps_read(sr, 0, (uintptr_t)reg.p, reg.len, &rs)))
			goto out;
		uint64_t pc = pc0, fs = fs0;
		thp_knob_u64(sr, KH "/pages_collapsed", &pc);
		thp_knob_u64(sr, KH "/full_scans", &fs);
		s->t = i;
		s->rss = rs.t.kb[SM_RSS];
		s->ahp = rs.t.kb[SM_ANON_HUGE];
		s->collapsed = pc - pc0;
		s->alloc = vm_counter(sr, "thp_collapse_alloc") - alloc0;
		s->full_scans = fs - fs0;
		ph->vmflags = rs.vmflags;
		if (ph->n && (s->ahp != s[-1].ahp || s->rss != s[-1].rss))
			fs_changed = fs;
		ph->n++;
		lab_progress(
			o,
			"khugepaged %s, max_ptes_none %ld: %d s of %d, AnonHugePages %llu of %llu kB",
			sz, ph->mpn, i, o->timeout_s, (unsigned long long)s->ahp,
			(unsigned long long)full_kb);
		if (s->ahp >= full_kb) {
			ph->full = true;
			break;
		}
		/* a whole pass that began after the last change changed nothing */
		if (fs >= fs_changed + 2) {
			ph->settled = true;
			break;
		}
	}
	ph->exceed_none = (int64_t)(vm_counter(sr, "thp_scan_exceed_none_pte") - ex0);
	ph->alloc_failed = (int64_t)(vm_counter(sr, "thp_collapse_alloc_failed") - af0);
out:
	region_unmap(&reg);
	return r;
}

/* Rows for phase PH: t=0, each sample where something changed, the last; at most MAX. */
static void kh_rows(struct lab_result *r, const struct kh_phase *ph, int max, bool tag,
		    const int *col)
{
	int idx[LAB_MAX_ROWS], n = 0, nchg = 0;
	for (int i = 1; i < ph->n - 1; i++)
		if (ph->s[i].ahp != ph->s[i - 1].ahp || ph->s[i].rss != ph->s[i - 1].rss)
			nchg++;
	int room = max - 2; /* t=0 and the last */
	idx[n++] = 0;
	for (int i = 1, k = 0; i < ph->n - 1 && room > 0; i++) {
		if (ph->s[i].ahp == ph->s[i - 1].ahp && ph->s[i].rss == ph->s[i - 1].rss)
			continue;
		/* evenly spaced over the changes when there are too many */
		if (nchg <= room || (k * room) / nchg != ((k + 1) * room) / nchg)
			idx[n++] = i;
		k++;
	}
	if (ph->n > 1)
		idx[n++] = ph->n - 1;
	for (int j = 0; j < n; j++) {
		const struct kh_sample *s = &ph->s[idx[j]];
		char label[40];
		bool last = j == n - 1 && j > 0;
		if (tag)
			snprintf(label, sizeof(label), "mpn=%ld %st=%.0fs", ph->mpn,
				 last ? "final " : "", s->t);
		else
			snprintf(label, sizeof(label), "%st=%.0fs", last ? "final " : "", s->t);
		int row = lab_row_add(r, label);
		lab_cell_set1(r, row, col[0], s->t);
		lab_cell_set1(r, row, col[1], (double)s->rss);
		lab_cell_set1(r, row, col[2], (double)s->ahp);
		lab_cell_set1(r, row, col[3], ph->rss0 ? (double)s->rss / (double)ph->rss0 : 0);
		lab_cell_set1(r, row, col[4], (double)s->collapsed);
		lab_cell_set1(r, row, col[5], (double)s->alloc);
		lab_cell_set1(r, row, col[6], (double)ph->mpn);
	}
}

/* "0s 0, 10s 16, 20s 32" (MiB AnonHugePages at each change), cut to fit. */
static void kh_timeline(char *out, size_t n, const struct kh_phase *ph)
{
	size_t o = 0;
	out[0] = '\0';
	for (int i = 0; i < ph->n && o < n; i++) {
		if (i && ph->s[i].ahp == ph->s[i - 1].ahp && i != ph->n - 1)
			continue;
		char item[48];
		int l = snprintf(item, sizeof(item), "%s%.0fs %llu", o ? ", " : "", ph->s[i].t,
				 (unsigned long long)(ph->s[i].ahp >> 10));
		if (o + (size_t)l + 5 >= n) {
			snprintf(out + o, n - o, ", ...");
			return;
		}
		memcpy(out + o, item, (size_t)l + 1);
		o += (size_t)l;
	}
}

/* How fast khugepaged went: the first collapse, then PMDs per 10 s from there on. */
static void kh_rate(struct lab_result *r, const struct kh_phase *ph, uint64_t pmds, uint64_t pmd_kb)
{
	const struct kh_sample *first = NULL, *last = NULL;
	for (int i = 1; i < ph->n; i++)
		if (ph->s[i].ahp != ph->s[i - 1].ahp) {
			if (!first)
				first = &ph->s[i];
			last = &ph->s[i];
		}
	if (!first)
		return;
	uint64_t n1 = first->ahp / pmd_kb, nl = last->ahp / pmd_kb;
	char key[32];
	snprintf(key, sizeof(key), "rate mpn=%ld", ph->mpn);
	if (last == first || last->t <= first->t)
		lab_proof(r, key, "%llu of %llu PMDs by %.0f s", (unsigned long long)n1,
			  (unsigned long long)pmds, first->t);
	else
		lab_proof(r, key,
			  "%llu of %llu PMDs by %.0f s, then %llu more in %.0f s: %.1f per 10 s",
			  (unsigned long long)n1, (unsigned long long)pmds, first->t,
			  (unsigned long long)(nl - n1), last->t - first->t,
			  (double)(nl - n1) * 10 / (last->t - first->t));
}

/*
 * scan_sleep_millisecs for the run (root): --scan-sleep, or KH_SLEEP_MS when
 * the one found is longer; *SLEEP_MS: the one in force.
 */
static void kh_scan_sleep(const struct lab_ctx *ctx, const struct lab_opts *o, struct lab_result *r,
			  uint64_t *sleep_ms)
{
	char v[24];
	long want = o->scan_sleep_ms;
	if (want < 0 && ctx->can_write && *sleep_ms > KH_SLEEP_MS)
		want = KH_SLEEP_MS;
	if (o->scan_sleep_ms >= 0 && !ctx->can_write) {
		lab_proof(r, "scan_sleep", "needs root: --scan-sleep %ld ignored, left at %llu ms",
			  o->scan_sleep_ms, (unsigned long long)*sleep_ms);
	} else if (want >= 0) {
		snprintf(v, sizeof(v), "%ld", want);
		int w = lab_thp_write(KH "/scan_sleep_millisecs", v);
		if (w) {
			lab_proof(r, "scan_sleep", "could not set %ld ms: %s", want, strerror(-w));
			r->partial = true;
		} else {
			lab_proof(r, "scan_sleep",
				  "set to %ld ms for the run (was %llu; journalled)", want,
				  (unsigned long long)*sleep_ms);
			*sleep_ms = (uint64_t)want;
		}
	}
}

/* How the verdict stands so far. */
struct kh_judgement {
	bool ok, unsure;
	char missing[96];	/* the first phase that did not run, and why */
	bool creep[MAX_PHASES]; /* phase concluded: its factor is final */
	double factor[MAX_PHASES];
	char vd[MAX_PHASES][160]; /* one clause per phase */
};

/* Phase P's outcome (NONE: empty PTEs per PMD) as proofs and a verdict clause in J. */
static void kh_judge(const struct lab_ctx *ctx, const struct lab_opts *o, struct lab_result *r,
		     uint64_t size, const struct kh_phase *h, int p, long none,
		     struct kh_judgement *j)
{
	char key[32];
	uint64_t full_kb = size >> 10, pmds = size / ctx->pmd_size;
	const struct kh_sample *f = &h->s[h->n - 1];
	double factor = h->rss0 ? (double)f->rss / (double)h->rss0 : 0;
	uint64_t got = f->ahp / (ctx->pmd_size >> 10);
	/* each collapsed PMD adds its empty PTEs' worth of RSS */
	uint64_t want_rss = h->rss0 + got * (uint64_t)none * ((uint64_t)ctx->page_size >> 10);
	bool consistent = f->rss + f->rss / 100 >= want_rss && f->rss <= want_rss + want_rss / 100;
	struct kh_seen seen = {.expect_collapse = h->mpn >= none,
			       .full = h->full,
			       .settled = h->settled,
			       .got = got,
			       .full_scans = f->full_scans};
	enum kh_call c = lab_kh_call(&seen);
	char what[96];
	bool pok = true;
	switch (c) {
	case KH_FULL:
		lab_fmt(what, sizeof(what), "full collapse");
		pok = consistent && f->collapsed >= got && f->alloc >= got;
		break;
	case KH_NONE_SETTLED:
		lab_fmt(what, sizeof(what), "nothing collapsed in a full scan");
		pok = factor < 1.01;
		break;
	case KH_PARTIAL_SETTLED:
		lab_fmt(what, sizeof(what), "partial collapse, then a full scan changed nothing");
		pok = false;
		break;
	case KH_NONE_ALLOWED:
		lab_fmt(what, sizeof(what), "nothing collapsed in a full scan although allowed");
		pok = false;
		break;
	case KH_FORBIDDEN:
		lab_fmt(what, sizeof(what), "collapsed although max_ptes_none forbids it");
		pok = false;
		break;
	case KH_NO_FULL_SCAN:
		lab_fmt(what, sizeof(what), "khugepaged did not complete a full scan in %d s",
			o->timeout_s);
		break;
	default:
		lab_fmt(what, sizeof(what), "partial collapse still going at the %d s timeout",
			o->timeout_s);
		break;
	}
	j->ok &= pok;
	j->unsure |= c == KH_NO_FULL_SCAN || c == KH_CUT_OFF;
	j->creep[p] = pok && (c == KH_FULL || c == KH_NONE_SETTLED);
	j->factor[p] = factor;
	snprintf(key, sizeof(key), "mpn=%ld", h->mpn);
	lab_proof(
		r, key,
		"%s: region AnonHugePages %llu of %llu kB after %.0f s, Rss %llu -> %llu kB (%.2fx), VmFlags%s%s",
		what, (unsigned long long)f->ahp, (unsigned long long)full_kb, f->t,
		(unsigned long long)h->rss0, (unsigned long long)f->rss, factor,
		h->vmflags & VMF_HG ? " hg" : " (no hg)",
		consistent ? "" : "; NOT the Rss the collapses explain");
	snprintf(key, sizeof(key), "host-wide mpn=%ld", h->mpn);
	lab_proof(
		r, key,
		"khugepaged/pages_collapsed +%llu, full_scans +%llu; vmstat thp_collapse_alloc +%llu, thp_collapse_alloc_failed +%lld, thp_scan_exceed_none_pte +%lld",
		(unsigned long long)f->collapsed, (unsigned long long)f->full_scans,
		(unsigned long long)f->alloc, (long long)h->alloc_failed,
		(long long)h->exceed_none);
	char tl[192];
	kh_timeline(tl, sizeof(tl), h);
	snprintf(key, sizeof(key), "timeline mpn=%ld", h->mpn);
	lab_proof(r, key, "MiB AnonHugePages at each change: %s", tl);
	if (h->mpn >= none && got)
		kh_rate(r, h, pmds, ctx->pmd_size >> 10);
	lab_fmt(j->vd[p], sizeof(j->vd[p]),
		"max_ptes_none %ld: %s, %llu of %llu PMDs in %.0f s, RSS %.2fx", h->mpn, what,
		(unsigned long long)got, (unsigned long long)pmds, f->t, factor);
}

/* The setup proof; returns NONE, the empty PTEs of each PMD. */
static long kh_setup_proof(const struct lab_ctx *ctx, struct lab_result *r, uint64_t size,
			   bool nohuge_first, uint64_t sleep_ms)
{
	const struct opt_u64 *k = ctx->thp->khp;
	char sz[32];
	lab_fmt_size(sz, sizeof(sz), size);
	uint64_t pmd_pages = ctx->pmd_size / (uint64_t)ctx->page_size;
	/* a PMD is filled in when its empty PTEs do not exceed max_ptes_none */
	long none = (long)(pmd_pages - pmd_pages / STRIDE_PAGES);
	lab_proof(
		r, "setup",
		"touched 1 page in %d of %s (%llu pages)%s, then MADV_HUGEPAGE; khugepaged scan_sleep %llu ms, pages_to_scan %llu; each PMD has %ld of %llu PTEs empty",
		STRIDE_PAGES, sz,
		(unsigned long long)(size / (uint64_t)ctx->page_size / STRIDE_PAGES),
		nohuge_first ? " under MADV_NOHUGEPAGE (an anon size is 'always' here)" : " plain",
		(unsigned long long)sleep_ms, (unsigned long long)k[KHP_PAGES_TO_SCAN].v, none,
		(unsigned long long)pmd_pages);
	return none;
}

/* The region's Rss and AnonHugePages over the phase's samples, for the report's chart. */
static void kh_series(struct lab_result *r, const struct kh_phase *h)
{
	double t[LAB_SERIES_POINTS], rss[LAB_SERIES_POINTS], ahp[LAB_SERIES_POINTS];
	int n = h->n < LAB_SERIES_POINTS ? h->n : LAB_SERIES_POINTS;
	for (int i = 0; i < n; i++) {
		t[i] = h->s[i].t;
		rss[i] = (double)h->s[i].rss / 1024;
		ahp[i] = (double)h->s[i].ahp / 1024;
	}
	char chart[24], name[40];
	snprintf(chart, sizeof(chart), "mpn-%ld", h->mpn);
	snprintf(name, sizeof(name), "Rss (max_ptes_none %ld)", h->mpn);
	lab_series_add(r, chart, name, LAB_SER_LINE, "region memory", "MiB", rss, "time", "s", t,
		       (size_t)n);
	snprintf(name, sizeof(name), "AnonHugePages (max_ptes_none %ld)", h->mpn);
	lab_series_add(r, chart, name, LAB_SER_LINE, "region memory", "MiB", ahp, "time", "s", t,
		       (size_t)n);
}

/* Note in J that the phase at max_ptes_none MPN did not run (WHAT, -errno ERR): undecided. */
static void kh_missing(struct kh_judgement *j, long mpn, const char *what, int err)
{
	j->unsure = true;
	if (!j->missing[0])
		lab_fmt(j->missing, sizeof(j->missing), "max_ptes_none %ld not run: %s (%s)", mpn,
			what, strerror(-err));
}

/* Phase P: its max_ptes_none (after the first), its run, its judgement. -ENOMEM or 0. */
static int kh_phase_run(const struct lab_ctx *ctx, const struct lab_opts *o, struct lab_result *r,
			uint64_t size, struct kh_phase *h, int p, long none, struct kh_judgement *j)
{
	char key[32], v[24];
	bool nohuge_first = faults_huge(ctx);
	snprintf(key, sizeof(key), "mpn=%ld", h->mpn);
	if (h->set) {
		snprintf(v, sizeof(v), "%ld", h->mpn);
		int w = lab_thp_write(KH "/max_ptes_none", v);
		if (w) {
			lab_proof(r, key, "could not set max_ptes_none: %s", strerror(-w));
			r->partial = true;
			kh_missing(j, h->mpn, "could not set it", w);
			return 0;
		}
	}
	h->s = calloc((size_t)o->timeout_s + 1, sizeof(*h->s));
	if (!h->s)
		return -ENOMEM;
	h->err = kh_run(ctx, o, size, nohuge_first, h);
	if (h->err || !h->n) {
		lab_failed(r, key, h->err ? h->err : -EIO);
		kh_missing(j, h->mpn, "the run failed", h->err ? h->err : -EIO);
		free(h->s);
		h->s = NULL;
		return 0;
	}
	kh_judge(ctx, o, r, size, h, p, none, j);
	kh_series(r, h);
	return 0;
}

static int lab_khugepaged(const struct lab_ctx *ctx, const struct lab_opts *o, struct lab_result *r)
{
	uint64_t size;
	if (lab_begin(
		    ctx, o, 256ull << 20, r, &size,
		    "1 page in %d touched, then MADV_HUGEPAGE: khugepaged's collapse and RSS creep",
		    STRIDE_PAGES))
		return 0;
	r->runs = 1;
	if (!strcmp(lab_pmd_policy(ctx), "never")) {
		lab_skip(r, "the PMD size is 'never' here: khugepaged collapses nothing");
		return 0;
	}
	const struct opt_u64 *k = ctx->thp->khp;
	if (!k[KHP_MAX_PTES_NONE].present || !k[KHP_SCAN_SLEEP_MS].present) {
		lab_skip(r, "no khugepaged/max_ptes_none or scan_sleep_millisecs here");
		return 0;
	}
	uint64_t sleep_ms = k[KHP_SCAN_SLEEP_MS].v;
	kh_scan_sleep(ctx, o, r, &sleep_ms);
	struct kh_phase ph[MAX_PHASES];
	int nph = 0;
	memset(ph, 0, sizeof(ph));
	ph[nph++].mpn = (long)k[KHP_MAX_PTES_NONE].v;
	long top = (long)(ctx->pmd_size / (uint64_t)ctx->page_size) - 1;
	if (o->max_ptes_none >= 0 && !ctx->can_write)
		lab_proof(r, "max_ptes_none", "needs root: --max-ptes-none %ld not run",
			  o->max_ptes_none);
	else if (o->max_ptes_none >= 0)
		ph[nph++] = (struct kh_phase){.mpn = o->max_ptes_none, .set = true};
	else if (ctx->can_write) {
		/* the creep: all the way (511) and none (0), both journalled */
		ph[0] = (struct kh_phase){.mpn = top, .set = ph[0].mpn != top};
		ph[nph++] = (struct kh_phase){.mpn = 0, .set = true};
	}
	long none = kh_setup_proof(ctx, r, size, faults_huge(ctx), sleep_ms);
	int col[7];
	static const struct lab_coldef coldefs[7] = {{"t", "s"},
						     {"Rss", "kB"},
						     {"AnonHugePages", "kB"},
						     {"rss_factor", "x"},
						     {"pages_collapsed", "+"},
						     {"thp_collapse_alloc", "+"},
						     {"max_ptes_none", ""}};
	lab_cols_add(r, coldefs, 7, col);
	struct kh_judgement j = {.ok = true};
	for (int p = 0; p < nph; p++)
		if (kh_phase_run(ctx, o, r, size, &ph[p], p, none, &j))
			return -ENOMEM;
	int per = nph > 1 ? LAB_MAX_ROWS / nph : LAB_MAX_ROWS;
	for (int p = 0; p < nph; p++)
		if (ph[p].s)
			kh_rows(r, &ph[p], per, nph > 1, col);
	for (int p = 0; p < nph; p++)
		free(ph[p].s);
	lab_progress_done(o);
	char creep[80] = "";
	if (nph > 1 && j.creep[0] && j.creep[1])
		snprintf(creep, sizeof(creep), "; creep: RSS %.2fx at %ld vs %.2fx at %ld",
			 j.factor[0], ph[0].mpn, j.factor[1], ph[1].mpn);
	/* the clauses of the phases that ran, then why one did not */
	char said[2 * sizeof(j.vd[0]) + 8];
	lab_fmt(said, sizeof(said), "%s%s%s", j.vd[0], j.vd[0][0] && j.vd[1][0] ? "; " : "",
		j.vd[1]);
	lab_verdict(
		r, j.ok && !j.unsure,
		"%s: %s%s%s%s (touching 1 page in %d; proof: region smaps Rss/AnonHugePages, host-wide full_scans)",
		!j.ok	   ? "UNEXPECTED"
		: j.unsure ? "inconclusive"
			   : "as expected",
		said, said[0] && j.missing[0] ? "; " : "", j.missing, creep, STRIDE_PAGES);
	r->inconclusive = j.ok && j.unsure;
	return 0;
}

LAB_EXPERIMENT_DEFINE(
	"khugepaged", 90, lab_khugepaged, "1 page in 8 touched, then khugepaged: RSS creep",
	.in_quick = true, .quick = {.size = (64ull << 20)},
	.opts = {{"--timeout S", "khugepaged: give up after S seconds (default 60)"},
		 {"--scan-sleep MS",
		  "khugepaged: scan_sleep_millisecs for the run (root; default 10 ms)"},
		 {"--max-ptes-none N",
		  "khugepaged: run as found, then with N (root; default 511, then 0)"}},
	.host = {"khugepaged/scan_sleep_millisecs=10 (khugepaged scans every process far more "
		 "often), khugepaged/max_ptes_none 511 then 0",
		 5, 60, false, NULL});
