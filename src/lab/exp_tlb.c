// SPDX-License-Identifier: MIT
/*
 * lab tlb: this host's translation cost, calibrated (lmbench tlb(8)'s
 * method). Per page size, a sparse random cycle touching one 64-byte line
 * per page of that size over N pages, against a dense cycle over the same N
 * lines packed in PMD-mapped THP (almost no TLB entries): the cache
 * footprint is the same N lines, so the sparse chain's excess ns/access is
 * translation. As N grows past the TLB's entries the excess steps up: the
 * last N before the step times the page size is the reach, the gap after it
 * the miss cost. The step is found by tlb_step_find (model/tlbstep.c) from
 * 95% intervals over interleaved measurements; no step is an answer ("no
 * step up to N"), never a made-up reach. Sizes: 4 KiB (MADV_NOHUGEPAGE),
 * 64 KiB mTHP (root: set to always for the run, region without advice,
 * proven by kpageflags), 2 MiB THP (MADV_HUGEPAGE, proven by
 * AnonHugePages), and hugetlb pages of 2 MiB and 1 GiB where the kernel has
 * those pools (root: nr_hugepages raised for the run through the guard,
 * proven by the pool's free count; the 2 MiB hugetlb row exercises the same
 * path as 1 GiB on hosts without 1 GiB pages).
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>

#include "../kernel/sysfs.h"
#include "../kernel/tlb_record.h"
#include "../kernel/virt.h"
#include "../util/fileio.h"
#include "common.h"
#include "guard.h"
#include "hugetlb_pool.h"
#include "pmu_proof.h"
#include "tlb_run.h"

#define RECORD_DIR "/var/lib/thpctl"
#define RECORD_PATH RECORD_DIR "/lab-tlb"
/* a point is raised when its excess interval lies wholly this far above the first point's:
 * above an L2 TLB hit (~2 ns on this host's sweeps), so the step is the page walk */
#define TLB_MIN_NS 5.0
#define MTHP_KB 64
#define GIB_KB (1024 * 1024)
#define NSIZES 5 /* 4K, 64K, 2M THP, 2M hugetlb, 1G hugetlb */

struct tsize {
	const char *label;    /* "4K" */
	uint64_t page;	      /* bytes */
	enum lab_mode mode;   /* advice of the sparse region */
	bool mthp;	      /* hugepages-64kB at always for the run */
	bool hugetlb;	      /* MAP_HUGETLB pages of PAGE bytes, reserved for the run */
	uint64_t first, last; /* N swept, powers of two */
};

struct tres {
	bool ran, backed;
	int npt;
	struct tlb_point pt[TLB_MAX_POINTS];
	double sparse[TLB_MAX_POINTS], dense[TLB_MAX_POINTS];
	struct tlb_step st;
};

enum { C_REACH, C_REACH_HI, C_GAP, C_GAP_LO, C_GAP_HI, C_PEN, C_PEN_LO, C_PEN_HI, C_N };

static const struct lab_coldef coldefs[C_N] = {
	{"reach", "MiB"},   {"step by", "MiB"}, {"gap", "ns"},	   {"gap low", "ns"},
	{"gap high", "ns"}, {"penalty", "ns"},	{"pen low", "ns"}, {"pen high", "ns"}};

/* Whether the sparse region is backed as its size says (and proof of it). */
static bool backing_ok(const struct lab_ctx *ctx, struct lab_result *r, const struct tsize *z,
		       struct region *reg)
{
	struct region_smaps rs;
	char key[48];
	snprintf(key, sizeof(key), "%s sparse", z->label);
	int e = region_smaps_read(ctx->sr, 0, (uintptr_t)reg->p, reg->len, &rs);
	if (e) {
		lab_failed(r, key, e);
		return false;
	}
	uint64_t ahp = rs.t.kb[SM_ANON_HUGE], full = reg->len >> 10;
	bool ok = z->mode == MODE_MADV ? ahp >= full * 95 / 100 : ahp == 0;
	char fol[LAB_FOLIOS_LEN] = "";
	struct folio_counts fc;
	uint64_t want = reg->len / z->page;
	if (z->mthp) {
		ok = false;
		if (ctx->root &&
		    region_folios(ctx->sr, (uintptr_t)reg->p, reg->len, ctx->page_size, &fc) == 0) {
			lab_fmt_folios(fol, sizeof(fol), &fc, ctx->page_size);
			ok = ahp == 0 && fc.by_order[4] * 100 >= want * 95;
		}
	}
	lab_proof(r, key, "%s before timing: smaps AnonHugePages %llu of %llu kB%s%s",
		  ok ? "verified" : "NOT AS INTENDED", (unsigned long long)ahp,
		  (unsigned long long)full, fol[0] ? "; kpageflags: " : "", fol);
	return ok;
}

/*
 * Z's hugetlb region into REG (POOL reserved for it, released by the caller), each page
 * faulted; whether the pool's free count fell by every page (the proof). -errno: not mapped.
 */
static int hugetlb_map(const struct lab_ctx *ctx, struct lab_result *r, const struct tsize *z,
		       struct lab_pool *pool, struct region *reg, bool *backed)
{
	char key[48];
	uint64_t n = z->last, kb = z->page >> 10;
	snprintf(key, sizeof(key), "%s pool", z->label);
	int e = lab_pool_reserve(ctx, kb, n, pool);
	if (e) {
		lab_proof(r, key, "not reserved: %s (%llu of %llu %llu kB pages free)", pool->why,
			  (unsigned long long)pool->got, (unsigned long long)n,
			  (unsigned long long)kb);
		return e;
	}
	int shift = __builtin_ctzll(z->page);
	void *p =
		mmap(NULL, n * z->page, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | (shift << MAP_HUGE_SHIFT), -1, 0);
	if (p == MAP_FAILED) {
		e = -errno;
		lab_proof(r, key, "MAP_HUGETLB of %llu %llu kB pages failed: %s",
			  (unsigned long long)n, (unsigned long long)kb, strerror(-e));
		return e;
	}
	reg->p = p;
	reg->len = n * z->page;
	int64_t before = lab_pool_free(ctx, kb);
	for (uint64_t i = 0; i < n; i++)
		((volatile char *)p)[i * z->page] = 1;
	int64_t after = lab_pool_free(ctx, kb);
	*backed = before >= 0 && after >= 0 && before - after == (int64_t)n;
	lab_proof(r, key,
		  "%s before timing: nr_hugepages %llu -> %llu for the run (put back after), free "
		  "%lld -> %lld after faulting %llu pages",
		  *backed ? "verified" : "NOT AS INTENDED", (unsigned long long)pool->nr0,
		  (unsigned long long)pool->nr, (long long)before, (long long)after,
		  (unsigned long long)n);
	return 0;
}

/* Sweep one size into T: the sparse region mapped, advised and faulted once. */
static void sweep(const struct lab_ctx *ctx, const struct lab_opts *o, struct lab_result *r,
		  const struct tsize *z, char *dense, int runs, uint64_t steps, struct tres *t)
{
	struct region reg = {0};
	struct lab_pool pool = {0};
	uint64_t len = z->last * z->page;
	int e;
	if (z->hugetlb) {
		e = hugetlb_map(ctx, r, z, &pool, &reg, &t->backed);
		if (e) {
			lab_pool_release(&pool);
			return;
		}
	} else {
		e = region_map(&reg, len, ctx->pmd_size);
		if (!e && z->mode != MODE_PLAIN)
			e = region_advise(&reg, z->mode);
		if (e) {
			lab_failed(r, z->label, e);
			region_unmap(&reg);
			return;
		}
		region_touch(&reg, 0,
			     z->page < (uint64_t)ctx->page_size ? (size_t)ctx->page_size
								: (size_t)z->page);
		t->backed = backing_ok(ctx, r, z, &reg);
	}
	for (uint64_t n = z->first; n <= z->last && t->npt < TLB_MAX_POINTS; n *= 2) {
		lab_progress(o, "tlb %s: %llu pages", z->label, (unsigned long long)n);
		if (tlb_measure(reg.p, z->page, dense, n, runs, steps, &t->pt[t->npt],
				&t->sparse[t->npt], &t->dense[t->npt])) {
			lab_failed(r, z->label, -ENOMEM);
			break;
		}
		t->npt++;
	}
	if (z->hugetlb) {
		munmap(reg.p, reg.len);
		lab_pool_release(&pool);
	} else {
		region_unmap(&reg);
	}
	t->ran = t->npt >= 3 && !tlb_step_find(t->pt, t->npt, TLB_MIN_NS, &t->st);
}

/* The row, series and proofs of one size. */
static void report(struct lab_result *r, const struct tsize *z, const struct tres *t)
{
	double mib = (double)z->page / (1 << 20);
	int row = lab_row_add(r, z->label);
	const struct tlb_step *s = &t->st;
	/* every point: a proof value's room (a longer one ends in "...", never cut silently) */
	char sw[sizeof(r->proofs[0].value)] = "";
	size_t off = 0;
	double x[TLB_MAX_POINTS], ex[TLB_MAX_POINTS];
	for (int i = 0; i < t->npt; i++) {
		x[i] = (double)t->pt[i].pages * mib;
		ex[i] = stats_median(t->pt[i].excess, t->pt[i].n);
		lab_catf(sw, sizeof(sw), &off, "%s%llu:%.1f", i ? " " : "",
			 (unsigned long long)t->pt[i].pages, ex[i]);
	}
	char key[48];
	snprintf(key, sizeof(key), "%s sweep", z->label);
	lab_proof(r, key, "pages:excess ns (sparse - dense, median) %s", sw);
	lab_series_add(r, "tlb", z->label, LAB_SER_LINE, "sparse - dense", "ns", ex, "footprint",
		       "MiB", x, (size_t)t->npt);
	if (row < 0 || s->call == TLB_STEP_UNDECIDED)
		return;
	lab_cell_set1(r, row, C_REACH, (double)s->reach_pages * mib);
	if (s->call == TLB_STEP_FOUND)
		lab_cell_set1(r, row, C_REACH_HI, (double)s->reach_hi_pages * mib);
	lab_cell_set1(r, row, C_GAP, s->gap_ns);
	if (s->gap_ok) {
		lab_cell_set1(r, row, C_GAP_LO, s->gap_lo);
		lab_cell_set1(r, row, C_GAP_HI, s->gap_hi);
	}
	if (s->call == TLB_STEP_FOUND && s->gap_ok) {
		lab_cell_set1(r, row, C_PEN, s->penalty_ns);
		lab_cell_set1(r, row, C_PEN_LO, s->penalty_lo);
		lab_cell_set1(r, row, C_PEN_HI, s->penalty_hi);
	}
}

/* "4K: reach 8 MiB (step by 16 MiB), penalty 31.0 ns (28.2..33.9)" into OUT. */
static void size_clause(char *out, size_t n, const struct tsize *z, const struct tres *t)
{
	char a[32], b[32];
	const struct tlb_step *s = &t->st;
	if (!t->ran || !t->backed) {
		lab_fmt(out, n, "%s: %s", z->label,
			!t->backed && t->npt ? "backing not as intended" : "not measured");
		return;
	}
	lab_fmt_size(a, sizeof(a), s->reach_pages * z->page);
	if (s->call == TLB_STEP_UNDECIDED)
		lab_fmt(out, n, "%s: inconclusive (too few samples for intervals)", z->label);
	else if (s->call == TLB_STEP_NONE)
		lab_fmt(out, n, "%s: no step found up to %s", z->label, a);
	else {
		lab_fmt_size(b, sizeof(b), s->reach_hi_pages * z->page);
		lab_fmt(out, n, "%s: reach %s (step by %s), penalty ~%.1f ns (%.1f..%.1f)%s",
			z->label, a, b, s->penalty_ns, s->penalty_lo, s->penalty_hi,
			s->blips ? " after a blip" : "");
	}
}

/* The calibration kept for `why --hot` (root; a quick sweep does not replace a full one). */
static void record(const struct lab_ctx *ctx, const struct lab_opts *o, struct lab_result *r,
		   const struct tsize *zs, const struct tres *ts, int nz, bool guest)
{
	struct tlb_record rec = {0}, old;
	if (!ctx->root) {
		lab_proof(r, "record", "not written: not root");
		return;
	}
	if (o->quick && tlb_record_read(ctx->sr, &old) == 0 && !old.quick) {
		lab_proof(r, "record", "%s kept: a full sweep of %s is not replaced by --quick",
			  RECORD_PATH, old.time);
		return;
	}
	snprintf(rec.kernel, sizeof(rec.kernel), "%s", ctx->feat->release);
	time_t now = time(NULL);
	strftime(rec.time, sizeof(rec.time), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	rec.guest = guest;
	rec.quick = o->quick;
	for (int i = 0; i < nz && rec.n < TLB_RECORD_MAX; i++) {
		const struct tlb_step *s = &ts[i].st;
		/* why --hot compares with the reach of the pages a process can get: base and THP */
		if (zs[i].hugetlb || !ts[i].ran || !ts[i].backed || s->call == TLB_STEP_UNDECIDED)
			continue;
		bool f = s->call == TLB_STEP_FOUND;
		rec.c[rec.n++] = (struct tlb_calib){zs[i].page >> 10,
						    f,
						    s->reach_pages * zs[i].page,
						    f ? s->reach_hi_pages * zs[i].page : 0,
						    f ? s->penalty_ns : 0,
						    f ? s->penalty_lo : 0,
						    f ? s->penalty_hi : 0};
	}
	struct buf b = {0};
	int e = rec.n ? tlb_record_format(&rec, &b) : -ENODATA;
	if (!e && mkdir(RECORD_DIR, 0755) && errno != EEXIST)
		e = -errno;
	if (!e)
		e = write_file_atomic(RECORD_PATH, b.p, b.len, 0644);
	buf_free(&b);
	lab_proof(r, "record", "%s%s%s", RECORD_PATH,
		  e ? ": not written: " : " (why --hot reads it)",
		  e == -ENODATA ? "no size decided"
		  : e		? path_err_str(e)
				: "");
}

/*
 * The two published claims about 1 GiB pages: inconclusive here. Without a 1 GiB pool,
 * nothing to measure; with one, the sweep gives 1 GiB's reach and penalty, but not the
 * claims' own measurement (a whole random chase over 4 GiB, 1 GiB against 2 MiB pages).
 */
static void claims(struct lab_result *r, bool have_1g, bool ran_1g)
{
	const char *why = !have_1g ? "no 1 GiB page size here (no hugepages-1048576kB: CPU flag "
				     "pdpe1gb or the kernel's hugetlb lacks it)"
			  : ran_1g
				  ? "the 1G hugetlb row gives 1 GiB pages' reach and penalty here; "
				    "the claims' whole 4 GiB random chase (1 GiB against 2 MiB "
				    "pages) is not run by lab tlb"
				  : "1 GiB hugetlb pages could not be swept here (see the 1G "
				    "hugetlb proofs)";
	lab_claim(r, "1 GiB PUD THP ~34% faster than 2 MiB on a 4 GiB random chase",
		  "1 GiB PUD-THP RFC (linux-mm), random pointer chase over 4 GiB", "not measured",
		  CLAIM_INCONCLUSIVE, "%s", why);
	lab_claim(r, "1 GiB pages +18% over 2 MiB (Trident; hugetlb 1 GiB as the stand-in)",
		  "Trident (ISCA 2021), 1 GiB pages for application memory", "not measured",
		  CLAIM_INCONCLUSIVE, "%s", why);
}

/* The sizes this host offers, swept with QUICK's ranges. Returns how many. */
static int sizes(const struct lab_ctx *ctx, bool quick, struct tsize *zs, struct lab_result *r)
{
	int n = 0;
	zs[n++] = (struct tsize){.label = "4K",
				 .page = 4096,
				 .mode = MODE_NOHUGE,
				 .first = 16,
				 .last = quick ? 16384 : 65536};
	const struct thp_size *m = thp_size_find(ctx->thp, MTHP_KB);
	if (!m || !m->enabled.present)
		lab_proof(r, "64K", "skipped: this kernel offers no 64 KiB anonymous mTHP size");
	else if (!ctx->can_write)
		lab_proof(r, "64K", "skipped: %s (hugepages-64kB/enabled set for the run)",
			  ctx->no_write);
	else
		zs[n++] = (struct tsize){.label = "64K",
					 .page = MTHP_KB << 10,
					 .mode = MODE_PLAIN,
					 .mthp = true,
					 .first = 16,
					 .last = quick ? 4096 : 16384};
	zs[n++] = (struct tsize){.label = "2M",
				 .page = ctx->pmd_size,
				 .mode = MODE_MADV,
				 .first = 4,
				 .last = quick ? 512 : 4096};
	/* hugetlb: the pools the kernel has (root: nr_hugepages is raised for the run) */
	const struct {
		const char *label;
		uint64_t kb, first, last_quick, last;
	} ht[] = {{"2M hugetlb", ctx->pmd_size >> 10, 4, 512, 4096},
		  {"1G hugetlb", GIB_KB, 1, 4, 8}};
	for (size_t i = 0; i < sizeof(ht) / sizeof(ht[0]); i++) {
		char rel[128], key[48];
		uint64_t nr;
		snprintf(key, sizeof(key), "%s", ht[i].label);
		if (hugetlb_pool_rel(rel, sizeof(rel), ht[i].kb, "nr_hugepages") ||
		    sysfs_u64(ctx->sr, rel, &nr))
			lab_proof(r, key, "skipped: no hugetlb pool of %llu kB pages here",
				  (unsigned long long)ht[i].kb);
		else if (!ctx->can_write)
			lab_proof(r, key, "skipped: %s (nr_hugepages raised for the run)",
				  ctx->no_write);
		else
			zs[n++] = (struct tsize){.label = ht[i].label,
						 .page = ht[i].kb << 10,
						 .mode = MODE_PLAIN,
						 .hugetlb = true,
						 .first = ht[i].first,
						 .last = quick ? ht[i].last_quick : ht[i].last};
	}
	return n;
}

/* Cap Z's sweep to what the host can spare now; false when not even 3 points fit. */
static bool fits(const struct lab_ctx *ctx, const struct lab_opts *o, struct tsize *z,
		 struct lab_result *r)
{
	static struct lab_result scratch;
	while (z->last >= z->first * 4) {
		struct lab_opts so = *o;
		uint64_t got;
		so.size = z->last * z->page;
		memset(&scratch, 0, sizeof(scratch));
		if (!lab_size(ctx, &so, so.size, &scratch, &got))
			return true;
		z->last /= 2;
	}
	lab_proof(r, z->label, "skipped: %s", scratch.verdict);
	return false;
}

/* 64K alone at always (and the PMD size not at always) for its sweep. */
static int mthp_on(const struct lab_ctx *ctx, struct lab_result *r)
{
	int e = 0;
	if (!strcmp(lab_pmd_policy(ctx), "always"))
		e = lab_set_enabled(ctx, "madvise");
	if (!e)
		e = lab_size_enabled(64, "always");
	if (e)
		lab_failed(r, "64K", e);
	return e;
}

static int lab_tlb(const struct lab_ctx *ctx, const struct lab_opts *o, struct lab_result *r)
{
	struct virt_info vi;
	virt_read(ctx->sr, &vi);
	bool guest = vi.guest || (vi.env != VIRT_BARE && vi.env != VIRT_UNKNOWN);
	snprintf(r->title, sizeof(r->title),
		 "TLB reach and miss penalty per page size (lmbench tlb method)%s",
		 guest ? ", guest" : "");
	lab_cols_add(r, coldefs, C_N, NULL);
	int runs = o->runs > STATS_MW_MAX / 2 ? STATS_MW_MAX / 2 : o->runs;
	if (o->quick && runs > 3)
		runs = 3;
	uint64_t steps = o->steps ? o->steps : o->quick ? 100000 : 400000;
	struct tsize zs[NSIZES];
	static struct tres ts[NSIZES];
	memset(ts, 0, sizeof(ts));
	int nz = sizes(ctx, o->quick, zs, r);
	char rel1g[128];
	uint64_t nr1g;
	bool have_1g = hugetlb_pool_rel(rel1g, sizeof(rel1g), GIB_KB, "nr_hugepages") == 0 &&
		       sysfs_u64(ctx->sr, rel1g, &nr1g) == 0,
	     ran_1g = false;
	struct region dense = {0};
	int e = region_map(&dense, 2 * ctx->pmd_size, ctx->pmd_size);
	if (!e)
		e = region_advise(&dense, MODE_MADV);
	if (e) {
		lab_failed(r, "dense", e);
		lab_skip(r, "the dense region could not be mapped");
		return 0;
	}
	region_touch(&dense, 0, (size_t)ctx->page_size);
	struct region_smaps drs;
	bool dense_huge = !region_smaps_read(ctx->sr, 0, (uintptr_t)dense.p, dense.len, &drs) &&
			  drs.t.kb[SM_ANON_HUGE] >= dense.len >> 10;
	if (!dense_huge &&
	    region_collapse(&dense) == 0) /* enabled=never: MADV_COLLAPSE still may */
		dense_huge = !region_smaps_read(ctx->sr, 0, (uintptr_t)dense.p, dense.len, &drs) &&
			     drs.t.kb[SM_ANON_HUGE] >= dense.len >> 10;
	lab_proof(r, "dense", "%s: the dense chain's lines packed in %s",
		  dense_huge ? "verified PMD-mapped THP (smaps AnonHugePages)"
			     : "NOT huge (4 KiB pages: its own TLB misses shrink the gap, so "
			       "no gap or penalty is decided or recorded)",
		  "one 4 MiB region");
	for (int i = 0; i < nz; i++) {
		if (!fits(ctx, o, &zs[i], r))
			continue;
		if (zs[i].mthp && mthp_on(ctx, r))
			continue;
		sweep(ctx, o, r, &zs[i], dense.p, runs, steps, &ts[i]);
		report(r, &zs[i], &ts[i]);
	}
	region_unmap(&dense);
	lab_progress_done(o);
	for (int i = 0; i < nz; i++)
		ran_1g |= zs[i].hugetlb && zs[i].page >> 10 == GIB_KB && ts[i].ran && ts[i].backed;
	lab_proof(r, "machine", "%s%s%s%s", virt_env_name(vi.env), vi.vendor[0] ? " (DMI " : "",
		  vi.vendor, vi.vendor[0] ? ")" : "");
	lab_proof(
		r, "method",
		"%d runs x 2 interleaved measurements per N (ABBA), %llu loads each; reach: "
		"measured (largest N before the step x page size); gap: measured at the largest N "
		"over the smallest, 95%% CI Hodges-Lehmann; penalty: estimate, gap / (1 - reach/N)",
		runs, (unsigned long long)steps);
	lab_pmu_proof(ctx, r, "pmu", NULL, 0);
	claims(r, have_1g, ran_1g);
	if (dense_huge)
		record(ctx, o, r, zs, ts, nz, guest);
	else
		lab_proof(r, "record", "not written: the dense reference region was not huge");
	char parts[NSIZES * (128 + 2)] = "", c[128];
	/* the verdict holds every clause whole (a cut one read "1G hugetlb: no step") */
	_Static_assert(sizeof(parts) + 32 <= sizeof(r->verdict), "lab_result.verdict too small");
	size_t off = 0;
	bool ok = true, any = false;
	for (int i = 0; i < nz; i++) {
		size_clause(c, sizeof(c), &zs[i], &ts[i]);
		ok &= dense_huge && ts[i].ran && ts[i].backed &&
		      ts[i].st.call != TLB_STEP_UNDECIDED;
		any |= ts[i].ran;
		lab_catf(parts, sizeof(parts), &off, "%s%s", off ? "; " : "", c);
	}
	if (!any) {
		lab_skip(r, "no page size could be swept (see proof)");
		return 0;
	}
	lab_verdict(r, ok, "%s%s%s%s", ok ? "" : "partly inconclusive: ", guest ? "guest: " : "",
		    parts, dense_huge ? "" : "; the dense reference was not huge (see proof)");
	r->inconclusive = !ok; /* as its text says */
	return 0;
}

LAB_EXPERIMENT_DEFINE(
	"tlb", 32, lab_tlb,
	"TLB reach and miss penalty per page size (lmbench tlb method; calibrates why --hot)",
	.quick = {.steps = 100000},
	.opts = {{"--steps N", "tlb: loads per measurement (default 400k; quick: 100k)"}},
	.host = {"hugepages-64kB/enabled=always for its 64K sweep; nr_hugepages raised for its "
		 "hugetlb sweeps",
		 10, 60, true, NULL});
