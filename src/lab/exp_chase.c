// SPDX-License-Identifier: MIT
/*
 * lab chase: a dependent random pointer chase over S, one 8-byte slot per
 * 64-byte cache line, all slots linked in one random cycle (Sattolo's
 * algorithm, fixed seed). The same cycle is laid out in a MADV_HUGEPAGE
 * region and in a MADV_NOHUGEPAGE one; the backing of both is checked in
 * their own smaps before anything is timed. Each run times huge and small
 * twice, in the order ABBA (the next run BAAB), so that drift on a shared
 * machine hits both alike. On a random walk over more memory than the TLB
 * covers, PMD mappings save most page walks, so huge should be faster, the
 * more so the larger S. The verdict comes from a 95% interval of the ratio
 * small/huge over all pairs of measurements (stats_ratio_ci: Hodges-Lehmann
 * with Mann-Whitney bounds), not from a point estimate.
 *
 * Timing is the walking thread's own CPU time (CLOCK_THREAD_CPUTIME_ID), not
 * the wall clock: on a shared 2-CPU guest a wall-clock measurement counts the
 * time the thread waited for a CPU, and one preempted measurement was enough
 * for "huge 90% faster by the medians" and "host too noisy" in one verdict.
 * The wall clock is kept for a proof of how much waiting there was. Both
 * cycles are walked once, untimed, before the first measurement (TLB, caches
 * and page tables warm; the step count is calibrated from that walk unless
 * --steps is given). Without --runs the runs are sequential: the interval
 * is looked at after SEQ_MIN_RUNS runs and each time the runs have doubled,
 * up to the cap (4, 8, 16: three looks), each look at 1 - 0.05 / looks so
 * that the whole stays >= 95%. Looking after every run (14 looks at 99.64%)
 * made each interval so wide that on this guest, where huge is 5-20% faster
 * and one measurement varies by +-15% (the other vCPU's work), the full run
 * ended undecided as often as not, and a quiet run called a 1..8% gap "no
 * difference": an interval that excludes 0 now decides the direction
 * (lab_faster_call), and an undecided one says whether more runs would do.
 */
#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "tlb_run.h"
#include "../kernel/uapi_compat.h"
#include "../kernel/virt.h"
#include "../util/stats.h"
#include "chase_verdict.h"
#include "common.h"
#include "pmu_proof.h"

#define MAX_RUNS (STATS_MW_MAX / 2) /* two measurements per backing per run */
#define CHASE_LINE 64
#define CHASE_SEED 0x74687063746cull /* "thpctl": the same cycle every run */
/* Dependent loads per measurement with --steps: the most; without, calibrated below. */
#define CHASE_DEFAULT_STEPS 20000000ull
/* Without --steps: the CPU time the slower backing takes per measurement, ms */
#define CHASE_TARGET_MS 150
#define CHASE_QUICK_TARGET_MS 60
#define CHASE_MIN_STEPS 100000ull
/* Walks per measurement, its value their median (chase_time) */
#define CHASE_SUBWALKS 8
#define CHASE_CALIBRATE_STEPS 200000ull
/* Sequential runs (no --runs): the first look (then each doubling), and the most runs */
#define SEQ_MIN_RUNS 4
#define SEQ_CAP_QUICK 8
#define SEQ_CAP 16
/* the smallest change in ns/access that matters: an interval within +-10% spanning 0 is "none" */
#define CHASE_RESOLUTION 0.10
/* Default size: the effect at 256 MiB was within this host's noise (-14.6% .. +40.9%) */
#define CHASE_DEFAULT_SIZE (1ull << 30)

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline void **chase_slot(char *base, size_t i)
{
	return (void **)(base + i * CHASE_LINE);
}

/*
 * One random cycle through all N slots of BASE, written in place: slot i
 * holds the address of its successor. Sattolo's algorithm (j < i, never
 * j == i) gives a single cycle of length N. Also faults every page in.
 */
static void chase_build(char *base, size_t n)
{
	uint64_t seed = CHASE_SEED;
	for (size_t i = 0; i < n; i++)
		*chase_slot(base, i) = chase_slot(base, i);
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = (size_t)(splitmix64(&seed) % i);
		void **a = chase_slot(base, i), **b = chase_slot(base, j), *t = *a;
		*a = *b;
		*b = t;
	}
}

/* The same cycle in DST: every pointer rebased from SRC (sequential). */
static void chase_copy(char *dst, const char *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		*chase_slot(dst, i) = dst + ((char *)*chase_slot((char *)src, i) - src);
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Page faults of this thread so far (minor and major): 0 across a walk of populated memory. */
static long thread_faults(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_THREAD, &ru))
		return 0;
	return ru.ru_minflt + ru.ru_majflt;
}

/*
 * ns per access of one measurement (this thread's CPU time): the median of
 * CHASE_SUBWALKS walks of STEPS / CHASE_SUBWALKS loads each; *POS moves on
 * along the cycle. On this guest one sub-walk in 10-20 ran 2-3x slower
 * than its neighbours (the host took the vCPU or the other vCPU's work
 * flushed the caches: CPU time cannot tell), and a mean carried each such
 * spike into the measurement: the median of the sub-walks halved the spread
 * of one backing's measurements (sd of log ns 0.125 -> 0.083) at no cost.
 */
static double chase_time(void **pos, uint64_t steps, double *wall_ns, double *cpu_ns, long *faults)
{
	double sub[CHASE_SUBWALKS];
	uint64_t each = steps / CHASE_SUBWALKS, w0 = mono_ns();
	if (!each)
		each = 1;
	for (int i = 0; i < CHASE_SUBWALKS; i++) {
		/* the faults of the walk alone: a first write to the results array is not timed */
		long f0 = thread_faults();
		uint64_t t0 = thread_cpu_ns();
		*pos = tlb_walk(*pos, each);
		uint64_t t1 = thread_cpu_ns();
		*faults += thread_faults() - f0;
		double ns = (double)(t1 - t0);
		*cpu_ns += ns;
		sub[i] = ns / (double)each;
	}
	*wall_ns += (double)(mono_ns() - w0);
	return stats_median(sub, CHASE_SUBWALKS);
}

struct backing {
	const char *name;
	enum lab_mode mode;
	struct region reg;
	struct region_smaps rs;
	bool ok;	/* the backing is what the name says */
	bool collapsed; /* huge only through MADV_COLLAPSE */
	void *pos;
};

/* Read the region's smaps and judge its backing: huge ~S, small 0. */
static int backing_check(const struct lab_ctx *ctx, struct backing *b)
{
	int rc = region_smaps_read(ctx->sr, 0, (uintptr_t)b->reg.p, b->reg.len, &b->rs);
	uint64_t full_kb = b->reg.len >> 10, ahp = b->rs.t.kb[SM_ANON_HUGE];
	b->ok = !rc && (b->mode == MODE_MADV ? ahp >= full_kb * 95 / 100 : ahp == 0);
	return rc;
}

static void backing_proof(const struct lab_ctx *ctx, struct lab_result *r, const char *szname,
			  struct backing *b, bool folios)
{
	char key[64], fol[LAB_FOLIOS_LEN] = "";
	const char *off = lab_thp_off_reason(ctx);
	struct folio_counts fc;
	if (folios && ctx->root &&
	    region_folios(ctx->sr, (uintptr_t)b->reg.p, b->reg.len, ctx->page_size, &fc) == 0)
		lab_fmt_folios(fol, sizeof(fol), &fc, ctx->page_size);
	snprintf(key, sizeof(key), "%s %s", szname, b->name);
	lab_proof(r, key,
		  "%s before timing: smaps AnonHugePages %llu of %llu kB, VmFlags%s%s%s%s%s%s%s",
		  b->ok ? "verified" : "NOT AS INTENDED",
		  (unsigned long long)b->rs.t.kb[SM_ANON_HUGE],
		  (unsigned long long)(b->reg.len >> 10), b->rs.vmflags & VMF_HG ? " hg" : "",
		  b->rs.vmflags & VMF_NH ? " nh" : "",
		  b->collapsed ? " (huge by MADV_COLLAPSE: no THP at fault)" : "",
		  !b->ok && off[0] ? "; " : "", !b->ok ? off : "", fol[0] ? "; kpageflags: " : "",
		  fol);
}

/* How many runs and steps: fixed (--runs, --steps) or sequential and calibrated. */
struct chase_plan {
	uint64_t steps; /* --steps, or 0: calibrate to TARGET_MS */
	int target_ms;
	bool seq; /* no --runs: stop once the interval is decisive */
	int min_runs, max_runs;
	double conf; /* per look: 0.95 fixed, 1 - 0.05 / looks sequential */
	int looks;
};

/* Whether the sequential plan looks at the interval after RUNS runs: the first look, doublings, the cap. */
static bool chase_looks_at(const struct chase_plan *pl, int runs)
{
	if (runs == pl->max_runs)
		return true;
	for (int k = pl->min_runs; k < pl->max_runs; k *= 2)
		if (runs == k)
			return true;
	return false;
}

/* The interval over N samples per backing into the row's CI cells, the call and clause into SR. */
static void chase_judge(struct lab_result *r, int row, const int *cols,
			const double (*t)[2 * MAX_RUNS], size_t n, double conf,
			struct chase_size_res *sr)
{
	struct ratio_ci ci;
	sr->huge = r->rows[row].c[cols[0]].median;
	sr->small = r->rows[row].c[cols[1]].median;
	bool bad = stats_ratio_ci(t[0], n, t[1], n, conf, &ci) != 0; /* a zero time */
	struct faster_in in = {.ci = bad ? NULL : &ci,
			       .per_side = n,
			       .conf = conf,
			       .huge_ns = sr->huge,
			       .small_ns = sr->small,
			       .r = CHASE_RESOLUTION,
			       .runs = sr->runs,
			       .max_runs = MAX_RUNS};
	sr->call = lab_faster_clause(sr->clause, sizeof(sr->clause), &in);
	lab_cell_set1(r, row, cols[2], (sr->small - sr->huge) / sr->small * 100);
	if (!bad && ci.ok) {
		lab_cell_set1(r, row, cols[3], (1 - 1 / ci.lo) * 100);
		lab_cell_set1(r, row, cols[4], (1 - 1 / ci.hi) * 100);
	}
}

/* Whether the CONF interval over N samples per backing already decides (sequential stop). */
static bool chase_decided(const double (*t)[2 * MAX_RUNS], size_t n, double conf)
{
	struct ratio_ci ci;
	if (stats_ratio_ci(t[0], n, t[1], n, conf, &ci) || !ci.ok)
		return false;
	enum faster_call c = lab_faster_call(&ci, CHASE_RESOLUTION);
	return c == FASTER_YES || c == FASTER_SLOWER || c == FASTER_SAME;
}

/*
 * One untimed walk of each cycle (TLB, caches and page tables warm), and the
 * steps per measurement: PL's, or what makes the slower backing take about
 * its target in CPU time.
 */
static uint64_t chase_warm(struct backing *b, const struct chase_plan *pl)
{
	double ns[2], w = 0, c = 0;
	long f = 0;
	for (int k = 0; k < 2; k++)
		ns[k] = chase_time(&b[k].pos, CHASE_CALIBRATE_STEPS, &w, &c, &f);
	if (pl->steps)
		return pl->steps;
	double slow = ns[0] > ns[1] ? ns[0] : ns[1];
	double steps = slow > 0 ? pl->target_ms * 1e6 / slow : (double)CHASE_DEFAULT_STEPS;
	if (steps < (double)CHASE_MIN_STEPS)
		steps = (double)CHASE_MIN_STEPS;
	if (steps > (double)CHASE_DEFAULT_STEPS)
		steps = (double)CHASE_DEFAULT_STEPS;
	return (uint64_t)steps;
}

/*
 * Runs of ABBA/BAAB pairs into T until PL says stop; returns the samples per
 * backing, *FAULTS the page faults taken inside the timed walks.
 */
static size_t chase_runs(const struct lab_opts *o, const char *sz, struct backing *b,
			 uint64_t steps, const struct chase_plan *pl, double (*t)[2 * MAX_RUNS],
			 double *wall, double *cpu, int *runs_done, long *faults)
{
	size_t m = 0;
	int i;
	for (i = 0; i < pl->max_runs; i++) {
		/* ABBA, then BAAB: a linear drift on the host hits both alike */
		for (int j = 0; j < 4; j++) {
			int k = (i + (j == 1 || j == 2)) % 2;
			lab_progress(o, "chase %s: %s run %d/%s%d (%llu steps)", sz, b[k].name,
				     i + 1, pl->seq ? "<=" : "", pl->max_runs,
				     (unsigned long long)steps);
			t[k][m + (j >= 2)] = chase_time(&b[k].pos, steps, &wall[k], cpu, faults);
		}
		m += 2;
		if (pl->seq && chase_looks_at(pl, i + 1) && chase_decided(t, m, pl->conf)) {
			i++;
			break;
		}
	}
	*runs_done = i;
	return m;
}

/* How the timing went: runs (and why it stopped), steps, faults, CPU time vs wall. */
static void chase_timing_proof(struct lab_result *r, const char *sz, const struct chase_plan *pl,
			       int runs, uint64_t steps, const double (*t)[2 * MAX_RUNS], size_t m,
			       const double *wall, double cpu, long faults)
{
	char key[48], why[96], looks[64] = "";
	size_t lo = 0;
	for (int k = 1; pl->seq && k <= pl->max_runs; k++)
		if (chase_looks_at(pl, k))
			lab_catf(looks, sizeof(looks), &lo, "%s%d", lo ? ", " : "", k);
	double w = wall[0] + wall[1];
	if (!pl->seq)
		lab_fmt(why, sizeof(why), "--runs %d", pl->max_runs);
	else if (runs < pl->max_runs || chase_decided(t, m, pl->conf))
		lab_fmt(why, sizeof(why), "sequential: stopped at the first decisive look");
	else
		lab_fmt(why, sizeof(why), "sequential: the cap, still not decisive");
	snprintf(key, sizeof(key), "%s timing", sz);
	lab_proof(
		r, key,
		"%d run%s (%s; %s%s%s at %.4g%%%s), %llu loads per measurement (%s; its value the median of %d walks), %ld page fault%s inside the timed walks, this thread's CPU time: the wall clock ran %.0f%% longer (waiting for a CPU)",
		runs, runs == 1 ? "" : "s", why, pl->seq ? "looks after " : "one look", looks,
		pl->seq ? " runs" : "", pl->conf * 100,
		pl->looks > 1 ? " each: >= 95% overall" : "", (unsigned long long)steps,
		pl->steps ? "--steps" : "calibrated on an untimed walk", CHASE_SUBWALKS, faults,
		faults == 1 ? "" : "s", cpu > 0 ? (w - cpu) / cpu * 100 : 0);
}

/*
 * What populating the regions cost, per 4 KiB (CPU ns of this thread): a
 * small region far slower than the warm-up's pages got memory the VM had
 * handed back to its host, which then walks slower too (seen: 2.4-8.9 us per
 * access against 0.6-0.8 us warm). WARM_NS < 0: no warm-up (--state STATE).
 */
static void chase_memory_proof(struct lab_result *r, const char *sz, uint64_t size, double warm_ns,
			       const char *state, const double *pop_ns)
{
	char key[48], w[64] = "", when[64];
	double pages = (double)size / 4096;
	if (warm_ns >= 0) {
		lab_fmt(w, sizeof(w), " (warm-up: %.0f ns)", warm_ns / (2 * pages + 16384));
		lab_fmt(when, sizeof(when), "right after the warm-up");
	} else {
		lab_fmt(when, sizeof(when), "with no warm-up (--state %s)", state);
	}
	snprintf(key, sizeof(key), "%s memory", sz);
	lab_proof(r, key,
		  "populated %s, CPU ns per 4 KiB: small %.0f%s, huge %.0f "
		  "(zeroing whole PMDs, compaction included)",
		  when, pop_ns[1] / pages, w, pop_ns[0] / pages);
}

/* Measure one size; fills a row. Returns 0 or -errno (proof says why). */
static int chase_one(const struct lab_ctx *ctx, const struct lab_opts *o, struct lab_result *r,
		     uint64_t size, const struct chase_plan *pl, const int *cols, bool folios,
		     struct chase_size_res *sr)
{
	char sz[32];
	lab_fmt_size(sz, sizeof(sz), size);
	size_t n = size / CHASE_LINE;
	struct backing b[2] = {{.name = "huge", .mode = MODE_MADV},
			       {.name = "small", .mode = MODE_NOHUGE}};
	int rc = 0;
	uint64_t w0 = thread_cpu_ns();
	lab_prepare_state(o->state, 2 * size);
	double warm_ns = (double)(thread_cpu_ns() - w0);
	for (int k = 0; k < 2 && !rc; k++)
		if (!(rc = region_map(&b[k].reg, size, ctx->pmd_size)))
			rc = region_advise(&b[k].reg, b[k].mode);
	if (rc) {
		lab_proof(r, sz, "failed to map: %s", strerror(-rc));
		goto out;
	}
	/*
	 * Both backings populated at once, right after the warm-up (5.14+;
	 * before, the build and the copy fault them in): the cycle takes
	 * seconds to build, and a region first touched after that got memory
	 * this VM had handed back to its host meanwhile. Such a small region
	 * measured 8949 ns per access against 843 ns warm (CPU time, load 13).
	 */
	double pop_ns[2];
	for (int k = 0; k < 2; k++) {
		uint64_t p0 = thread_cpu_ns();
		madvise(b[k].reg.p, size, MADV_POPULATE_WRITE);
		pop_ns[k] = (double)(thread_cpu_ns() - p0);
	}
	chase_memory_proof(r, sz, size, o->state == STATE_WARM ? warm_ns : -1,
			   lab_state_name(o->state), pop_ns);
	lab_progress(o, "chase %s: building a random cycle of %zu slots", sz, n);
	chase_build(b[0].reg.p, n);
	chase_copy(b[1].reg.p, b[0].reg.p, n);
	for (int k = 0; k < 2 && !rc; k++)
		rc = backing_check(ctx, &b[k]);
	/* enabled=never: MADV_HUGEPAGE faulted no THP; MADV_COLLAPSE still can */
	if (!rc && !b[0].ok && ctx->feat->madv_collapse != TRI_NO &&
	    region_collapse(&b[0].reg) == 0) {
		b[0].collapsed = true;
		rc = backing_check(ctx, &b[0]);
	}
	if (rc) {
		lab_proof(r, sz, "smaps unreadable: %s", strerror(-rc));
		goto out;
	}
	for (int k = 0; k < 2; k++) {
		backing_proof(ctx, r, sz, &b[k], folios);
		b[k].pos = b[k].reg.p;
	}
	uint64_t steps = chase_warm(b, pl);
	static double t[2][2 * MAX_RUNS];
	double wall[2] = {0, 0}, cpu = 0;
	int runs = 0;
	long faults = 0;
	size_t m = chase_runs(o, sz, b, steps, pl, t, wall, &cpu, &runs, &faults);
	chase_timing_proof(r, sz, pl, runs, steps, (const double(*)[2 * MAX_RUNS]) t, m, wall, cpu,
			   faults);
	sr->runs = runs;
	sr->faults = faults;
	if (runs > r->runs)
		r->runs =
			runs; /* each row says its own runs; lab_runs_of() says whether they agree */
	/* still the same backing after timing? */
	for (int k = 0; k < 2; k++) {
		uint64_t before = b[k].rs.t.kb[SM_ANON_HUGE];
		if (backing_check(ctx, &b[k]) == 0 && b[k].rs.t.kb[SM_ANON_HUGE] != before) {
			char key[64];
			snprintf(key, sizeof(key), "%s %s after", sz, b[k].name);
			lab_proof(r, key, "AnonHugePages changed during timing: %llu -> %llu kB",
				  (unsigned long long)before,
				  (unsigned long long)b[k].rs.t.kb[SM_ANON_HUGE]);
		}
	}
	int row = lab_row_add(r, sz);
	if (row >= 0)
		r->rows[row].runs = runs;
	lab_cell_set(r, row, cols[0], t[0], m);
	lab_cell_set(r, row, cols[1], t[1], m);
	lab_cell_set1(r, row, cols[5], (double)b[0].rs.t.kb[SM_ANON_HUGE]);
	lab_cell_set1(r, row, cols[6], (double)b[1].rs.t.kb[SM_ANON_HUGE]);
	if (row >= 0) {
		chase_judge(r, row, cols, (const double(*)[2 * MAX_RUNS]) t, m, pl->conf, sr);
		sr->ran = true;
	}
	sr->verified = b[0].ok && b[1].ok;
out:
	region_unmap(&b[0].reg);
	region_unmap(&b[1].reg);
	return rc;
}

/* ns/access per size, huge and small (the medians of each size), for the report's line chart. */
static void chase_series(struct lab_result *r, const struct chase_size_res *res, int nsizes)
{
	double x[LAB_MAX_SIZES], y[2][LAB_MAX_SIZES];
	size_t n = 0;
	for (int i = 0; i < nsizes; i++) {
		if (!res[i].ran)
			continue;
		x[n] = (double)res[i].size / (1 << 20);
		y[0][n] = res[i].huge;
		y[1][n++] = res[i].small;
	}
	lab_series_add(r, "chase", "huge", LAB_SER_LINE, "ns per access", "ns", y[0], "size", "MiB",
		       x, n);
	lab_series_add(r, "chase", "small", LAB_SER_LINE, "ns per access", "ns", y[1], "size",
		       "MiB", x, n);
}

static int lab_chase(const struct lab_ctx *ctx, const struct lab_opts *o, struct lab_result *r)
{
	uint64_t sizes[LAB_MAX_SIZES];
	int nsizes = o->nsizes;
	if (nsizes > 0)
		memcpy(sizes, o->sizes, (size_t)nsizes * sizeof(sizes[0]));
	else {
		sizes[0] = CHASE_DEFAULT_SIZE;
		nsizes = 1;
	}
	struct chase_plan pl = {.steps = o->steps,
				.target_ms = o->quick ? CHASE_QUICK_TARGET_MS : CHASE_TARGET_MS,
				.seq = !o->runs_given,
				.conf = 0.95,
				.looks = 1};
	if (pl.seq) {
		pl.min_runs = SEQ_MIN_RUNS;
		pl.max_runs = o->quick ? SEQ_CAP_QUICK : SEQ_CAP;
		pl.looks = 0;
		for (int k = 1; k <= pl.max_runs; k++)
			pl.looks += chase_looks_at(&pl, k);
		pl.conf = 1 - 0.05 / pl.looks;
	} else {
		pl.min_runs = pl.max_runs = o->runs > MAX_RUNS ? MAX_RUNS : o->runs;
	}
	snprintf(r->title, sizeof(r->title),
		 "dependent random pointer chase, one slot per 64-byte line: huge vs small");
	int cols[7];
	static const struct lab_coldef coldefs[7] = {
		{"huge", "ns"},	  {"small", "ns"},    {"huge faster", "%"}, {"CI low", "%"},
		{"CI high", "%"}, {"huge AHP", "kB"}, {"small AHP", "kB"}};
	lab_cols_add(r, coldefs, 7, cols);

	struct chase_size_res res[LAB_MAX_SIZES];
	memset(res, 0, sizeof(res));
	static struct lab_result scratch;
	uint64_t biggest = 0;
	int nran = 0;
	r->runs = 0; /* sequential runs stop at the first decisive look: counted as they are made */
	for (int i = 0; i < nsizes; i++) {
		/* both backings are mapped side by side: the size check is for 2 S */
		uint64_t s = (sizes[i] + ctx->pmd_size - 1) / ctx->pmd_size * ctx->pmd_size;
		struct lab_opts so = *o;
		uint64_t both;
		so.size = 2 * s;
		memset(&scratch, 0, sizeof(scratch));
		char sz[32];
		lab_fmt_size(sz, sizeof(sz), s);
		if (lab_size(ctx, &so, 2 * s, &scratch, &both)) {
			lab_proof(r, sz, "skipped: huge and small side by side: %s",
				  scratch.verdict);
			continue;
		}
		if (s / CHASE_LINE > UINT32_MAX) {
			lab_proof(r, sz, "skipped: more than 2^32 slots");
			continue;
		}
		res[i].size = s;
		chase_one(ctx, o, r, s, &pl, cols, i == 0, &res[i]);
		if (res[i].ran) {
			nran++;
			if (s > biggest)
				biggest = s;
		}
	}
	lab_progress_done(o);
	r->size = biggest;
	if (!ctx->root)
		lab_proof(r, "kpageflags", "skipped: not root (/proc/kpageflags is root-only)");
	/* dTLB counters: where a PMU has none, the proof says so and names the setting (issue 26) */
	if (pmu_probe())
		lab_pmu_proof(ctx, r, "pmu", NULL, 0);
	lab_proof(
		r, "method",
		"2 measurements per backing per run (ABBA); huge faster = (small - huge) / small of the medians; CI: Hodges-Lehmann small/huge, Mann-Whitney bounds; runs that would decide: an estimate, the interval narrowing as 1/sqrt(runs)");
	if (!nran) {
		lab_skip(r, "no size could be measured (see proof)");
		r->expected = false;
		return 0;
	}

	chase_series(r, res, nsizes);
	struct virt_info vi;
	bool guest = virt_read(ctx->sr, &vi) == 0 &&
		     (vi.guest || (vi.env != VIRT_BARE && vi.env != VIRT_UNKNOWN));
	chase_verdict(r, res, nsizes, nran, guest);
	return 0;
}

LAB_EXPERIMENT_DEFINE(
	"chase", 30, lab_chase, "dependent random pointer chase: ns/access on huge vs small pages",
	.in_quick = true, .quick = {.size = (1ull << 30)}, .size_list = true,
	.opts = {
		{"--steps N",
		 "chase: dependent loads per measurement (default: ~150 ms of CPU, quick ~60 ms)"}});
