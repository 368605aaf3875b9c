// SPDX-License-Identifier: MIT
/*
 * lab allocators: one small program (thpctl-churn) under each heap allocator
 * Debian packages (glibc's malloc; libjemalloc2, libtcmalloc-minimal4 and
 * libmimalloc2.0 by LD_PRELOAD where installed), all at once: 4 threads
 * allocate many small objects, free ~90% at random, keep the rest, and ask
 * their allocator to give free memory back. Measured from each child's smaps
 * and ledger: heap RSS (RSS after minus before) against the live bytes,
 * AnonHugePages, invented (never-written bytes inside its THPs), and the
 * creep after khugepaged's full scans, under enabled=madvise; always (and
 * max_ptes_none 511, then 0); and always with each allocator's own opt-out
 * (MALLOC_CONF=thp:never; MIMALLOC_ALLOW_THP=0 where this mimalloc has
 * allow_thp) or, for those without one (glibc, gperftools, Debian's
 * mimalloc 2.0), the per-process opt-out prctl THP off. Two
 * rounds in reverse order each; a claim is called only when both rounds
 * agree. Each allocator is named by thpctl's own detection in the proofs.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../kernel/parse.h"
#include "../kernel/proc_alloc.h"
#include "../kernel/sysfs.h"
#include "../util/fileio.h"
#include "../model/alloc.h"
#include "allocators_calls.h"
#include "churn.h"
#include "common.h"
#include "guard.h"

enum { A_GLIBC, A_JEMALLOC, A_TCMALLOC, A_MIMALLOC, NA };

/*
 * Each allocator's own THP opt-out, as NAME=VALUE; NULL: none, and the per-process one
 * (prctl(PR_SET_THP_DISABLE)) instead. glibc has none: glibc.malloc.hugetlb=0 is its default
 * (it only takes back the MADV_HUGEPAGE of =1). mimalloc's MIMALLOC_ALLOW_THP exists only in
 * builds whose option table names allow_thp (probed in the library, PROBE); Debian's 2.0.9
 * has none and ignores the variable.
 */
static const struct {
	const char *name, *so;
	const char *knob, *probe; /* PROBE: a string the library must hold for KNOB to exist */
} allocs[NA] = {
	{"glibc", NULL, NULL, NULL},
	{"jemalloc", "libjemalloc.so.2", "MALLOC_CONF=thp:never", NULL},
	{"tcmalloc", "libtcmalloc_minimal.so.4", NULL, NULL},
	{"mimalloc", "libmimalloc.so.2", "MIMALLOC_ALLOW_THP=0", "allow_thp"},
};

enum { M_MADV, M_ALWAYS, M_MPN0, M_KNOB, NM };

static const struct {
	const char *label, *enabled;
	bool mpn0, creep, knob;
} modes[NM] = {
	{"madvise", "madvise", false, false, false},
	{"always", "always", false, true, false},
	{"always mpn=0", "always", true, true, false},
	{"always+knob", "always", false, false, true},
};

enum { C_LIVE, C_HEAP, C_RATIO, C_AHP, C_INV, C_HEAP1, C_CREEP, C_SCANS, C_AHP1, NC };

static const struct lab_coldef cols[NC] = {
	{"live", "kB"},
	{"heap RSS", "kB"},
	{"heap RSS / live", ""},
	{"AnonHugePages", "kB"},
	{"invented", "kB"},
	{"heap RSS after scans", "kB"},
	{"creep", "kB"},
	{"khugepaged full scans", ""},
	{"AnonHugePages after scans", "kB"},
};

/* One child's figures in one mode of one round (-1: not measured). */
struct fig {
	bool have;
	double v[NC];
};

struct al_state {
	char prog[PATH_MAX];
	char so[NA][PATH_MAX]; /* "" glibc or not installed */
	bool avail[NA];
	const char *knob[NA];	/* the opt-out in force for always+knob (allocs[].knob or NULL) */
	char knob_note[NA][96]; /* why not allocs[].knob, "" when it is */
	struct churn_spec spec;
	long mpn_max; /* pages per PMD - 1 */
	int rounds, timeout_s;
	struct fig f[AL_MAX_ROUNDS][NM][NA];
	bool named[NA];
	/* measurements that failed: "always mimalloc round 1", and how many (the proof gives the
	 * count first: a list too long for it ends in "...", never cut silently) */
	char missing[1024];
	int nmissing;
};

/* The allocator libraries beside this process's own libc.so.6. */
static void find_libs(const struct lab_ctx *ctx, struct al_state *s)
{
	static struct alloc_raw raw;
	s->avail[A_GLIBC] = true;
	if (proc_alloc_read(ctx->sr, getpid(), &raw))
		return;
	for (int i = 0; i < raw.nlibs; i++) {
		if (raw.libs[i].kind != AK_GLIBC)
			continue;
		char dir[PATH_MAX];
		snprintf(dir, sizeof(dir), "%s", raw.libs[i].path);
		char *d = dirname(dir);
		for (int a = 1; a < NA; a++) {
			snprintf(s->so[a], sizeof(s->so[a]), "%s/%s", d, allocs[a].so);
			s->avail[a] = access(s->so[a], R_OK) == 0;
		}
		return;
	}
}

/* The opt-out each allocator gets in always+knob: its own where this build has it, else prctl. */
static void find_knobs(struct al_state *s)
{
	for (int a = 0; a < NA; a++) {
		s->knob[a] = allocs[a].knob;
		s->knob_note[a][0] = '\0';
		if (!allocs[a].probe || !s->avail[a])
			continue;
		bool has = false; /* the option's name, NUL-terminated, in its table of names */
		int e = file_has_bytes(AT_FDCWD, s->so[a], allocs[a].probe,
				       strlen(allocs[a].probe) + 1, 64ull << 20, &has);
		if (e)
			lab_fmt(s->knob_note[a], sizeof(s->knob_note[a]),
				"not known whether this %s has %s (%s)", allocs[a].name,
				allocs[a].probe, strerror(-e));
		else if (!has)
			lab_fmt(s->knob_note[a], sizeof(s->knob_note[a]),
				"no knob in this %s: no %s option", allocs[a].name,
				allocs[a].probe);
		if (e || !has)
			s->knob[a] = NULL;
	}
}

/* Host settings of mode M, read back. 0 or -errno (R says why). */
static int set_mode(const struct lab_ctx *ctx, const struct al_state *s, int m,
		    struct lab_result *r)
{
	char mpn[24];
	snprintf(mpn, sizeof(mpn), "%ld", modes[m].mpn0 ? 0L : s->mpn_max);
	int e = lab_set_enabled(ctx, modes[m].enabled);
	if (!e)
		e = lab_thp_write("khugepaged/max_ptes_none", mpn);
	uint64_t back = 0;
	if (!e && (thp_knob_u64(ctx->sr, "khugepaged/max_ptes_none", &back) ||
		   back != strtoull(mpn, NULL, 10)))
		e = -EIO;
	if (e)
		lab_proof(r, modes[m].label, "settings failed: %s", strerror(-e));
	return e;
}

/* Which allocator child K is, by thpctl's own detection, as a proof (once per allocator). */
static void name_child(const struct lab_ctx *ctx, struct al_state *s, int a, const struct churn *c,
		       struct lab_result *r)
{
	static struct alloc_raw raw;
	static struct alloc_fact f;
	if (s->named[a] || proc_alloc_read(ctx->sr, c->pid, &raw))
		return;
	alloc_decide(&raw, NULL, 0, false, &f);
	char key[48];
	snprintf(key, sizeof(key), "%s child", allocs[a].name);
	lab_proof(r, key, "named %s %s by thpctl (%s%s%s); gave memory back with %s",
		  alloc_kind_name(f.kind), f.version[0] ? f.version : "(version unknown)",
		  alloc_evidence_name(f.evidence), f.path[0] ? " " : "", f.path, c->release);
	s->named[a] = true;
}

/* Wait for khugepaged/full_scans to advance by 2 (at most TIMEOUT_S); the advance. */
static double wait_scans(const struct lab_ctx *ctx, const struct lab_opts *o, int timeout_s,
			 const char *label)
{
	uint64_t fs0 = 0, fs = 0;
	thp_knob_u64(ctx->sr, "khugepaged/full_scans", &fs0);
	for (int i = 0; i < timeout_s * 10; i++) {
		struct timespec ts = {0, 100000000};
		nanosleep(&ts, NULL);
		fs = fs0;
		thp_knob_u64(ctx->sr, "khugepaged/full_scans", &fs);
		if (fs >= fs0 + 2)
			break;
		if (i % 10 == 0)
			lab_progress(o, "allocators %s: khugepaged full scans %llu of 2, %d s",
				     label, (unsigned long long)(fs - fs0), i / 10);
	}
	return (double)(fs - fs0);
}

/* Measure every child of round RD into F (AT 0: after the churn; AT 1: after the scans). */
static void measure_all(const struct lab_ctx *ctx, struct al_state *s, int rd, int m,
			struct churn *c, const double *rss0, struct fig *f, int at)
{
	long mpn = modes[m].mpn0 ? 0 : s->mpn_max;
	for (int a = 0; a < NA; a++) {
		struct churn_meas cm;
		if (!c[a].pid)
			continue;
		if (churn_measure(ctx, c[a].pid, modes[m].enabled, mpn, &cm) || cm.rss_kb < 0 ||
		    rss0[a] < 0) {
			size_t k = strlen(s->missing);
			s->nmissing++;
			lab_catf(s->missing, sizeof(s->missing), &k, "%s%s %s round %d%s",
				 k ? ", " : "", modes[m].label, allocs[a].name, rd + 1,
				 at ? " after the scans" : "");
			continue;
		}
		double heap = (double)cm.rss_kb - rss0[a];
		if (at == 0) {
			f[a].have = true;
			f[a].v[C_LIVE] = (double)c[a].live_bytes / 1024;
			f[a].v[C_HEAP] = heap;
			f[a].v[C_RATIO] = f[a].v[C_LIVE] > 0 ? heap / f[a].v[C_LIVE] : -1;
			f[a].v[C_AHP] = (double)cm.ahp_kb;
			f[a].v[C_INV] = (double)cm.invented_kb;
		} else {
			f[a].v[C_HEAP1] = heap;
			f[a].v[C_CREEP] = heap - f[a].v[C_HEAP];
			f[a].v[C_AHP1] = (double)cm.ahp_kb;
		}
	}
}

/* Mode M of round RD: children, churn, measure, (scans, measure), stop. 0 or -errno with WHY. */
static int run_mode(const struct lab_ctx *ctx, const struct lab_opts *o, struct al_state *s, int rd,
		    int m, struct lab_result *r, char *why, size_t n)
{
	struct fig *f = s->f[rd][m];
	for (int a = 0; a < NA; a++)
		for (int k = 0; k < NC; k++)
			f[a].v[k] = -1;
	int e = set_mode(ctx, s, m, r);
	if (e)
		return e;
	struct churn c[NA] = {0};
	double rss0[NA];
	for (int a = 0; a < NA && !e; a++) {
		rss0[a] = -1;
		if (!s->avail[a])
			continue;
		char pre[PATH_MAX + 16];
		const char *env[3] = {NULL, NULL, NULL};
		int k = 0;
		if (allocs[a].so) {
			snprintf(pre, sizeof(pre), "LD_PRELOAD=%s", s->so[a]);
			env[k++] = pre;
		}
		bool nothp = modes[m].knob && !s->knob[a];
		if (modes[m].knob && s->knob[a])
			env[k++] = s->knob[a];
		e = churn_start(&c[a], s->prog, &s->spec, env, nothp, why, n);
		struct churn_meas cm;
		if (!e && !churn_measure(ctx, c[a].pid, modes[m].enabled, 511, &cm))
			rss0[a] = (double)cm.rss_kb;
	}
	for (int a = 0; a < NA && !e; a++)
		if (c[a].pid)
			e = churn_go(&c[a], 120000, why, n);
	if (!e) {
		measure_all(ctx, s, rd, m, c, rss0, f, 0);
		for (int a = 0; a < NA; a++)
			if (c[a].pid)
				name_child(ctx, s, a, &c[a], r);
		if (modes[m].creep) {
			double scans = wait_scans(ctx, o, s->timeout_s, modes[m].label);
			measure_all(ctx, s, rd, m, c, rss0, f, 1);
			for (int a = 0; a < NA; a++)
				if (f[a].have)
					f[a].v[C_SCANS] = scans;
		}
	}
	for (int a = 0; a < NA; a++)
		churn_stop(&c[a]);
	return e;
}

/* One row per mode and allocator, its cells over the rounds. */
static void rows(struct lab_result *r, const struct al_state *s)
{
	for (int m = 0; m < NM; m++)
		for (int a = 0; a < NA; a++) {
			if (!s->avail[a])
				continue;
			char label[40];
			snprintf(label, sizeof(label), "%s %s", modes[m].label, allocs[a].name);
			int row = lab_row_add(r, label);
			for (int k = 0; k < NC && row >= 0; k++) {
				double v[AL_MAX_ROUNDS];
				size_t nv = 0;
				for (int rd = 0; rd < s->rounds; rd++)
					if (s->f[rd][m][a].have && s->f[rd][m][a].v[k] > -1)
						v[nv++] = s->f[rd][m][a].v[k];
				if (nv)
					lab_cell_set(r, row, k, v, nv);
			}
		}
}

/* Heap RSS of allocator A in mode M over mode BASE, per round, into V (-1 when either is missing). */
static void ratios(const struct al_state *s, int a, int m, int base, int col, double *v)
{
	for (int rd = 0; rd < s->rounds; rd++) {
		const struct fig *x = &s->f[rd][m][a], *y = &s->f[rd][base][a];
		v[rd] = x->have && y->have && x->v[col] > 0 && y->v[C_HEAP] > 0
				? x->v[col] / y->v[C_HEAP]
				: -1;
	}
}

/* What always+knob used per allocator: its own opt-out, or prctl and why. */
static void knobs_proof(struct lab_result *r, const struct al_state *s)
{
	static const char *const none[NA] = {
		[A_GLIBC] = "glibc has no THP opt-out: glibc.malloc.hugetlb=0 is its default",
		[A_TCMALLOC] = "gperftools has no THP setting"};
	char t[640] = "";
	size_t k = 0;
	lab_catf(t, sizeof(t), &k,
		 "always+knob: each allocator's own THP opt-out, else the per-process one, "
		 "prctl(PR_SET_THP_DISABLE) as thpctl run --thp=off does: ");
	for (int a = 0; a < NA; a++) {
		const char *why = s->knob_note[a][0] ? s->knob_note[a] : none[a];
		lab_catf(t, sizeof(t), &k, "%s%s %s%s%s%s", a ? "; " : "", allocs[a].name,
			 s->knob[a] ? s->knob[a] : "prctl", why ? " (" : "", why ? why : "",
			 why ? ")" : "");
	}
	lab_proof(r, "knobs", "%s", t);
}

/* The run's setup as proofs. */
static void setup_proofs(const struct lab_ctx *ctx, struct lab_result *r, const struct al_state *s,
			 uint64_t size)
{
	char sz[32];
	lab_fmt_size(sz, sizeof(sz), size);
	lab_proof(r, "setup",
		  "%s, kernel %s: %u threads x %lu objects of %u..%u bytes (%s per child), each "
		  "written, %u%% freed at random, then the allocator's own call to give free "
		  "memory back; %d rounds (mode order reversed in the second); heap RSS = RSS "
		  "after - RSS before the churn",
		  s->prog, ctx->feat->release, s->spec.threads, s->spec.objects, s->spec.min,
		  s->spec.max, sz, 100 - s->spec.keep / 10, s->rounds);
	char libs[512] = "";
	size_t k = 0;
	for (int a = 0; a < NA; a++)
		lab_catf(libs, sizeof(libs), &k, "%s%s: %s", k ? "; " : "", allocs[a].name,
			 a == A_GLIBC  ? "libc.so.6 (no preload)"
			 : s->avail[a] ? s->so[a]
				       : "not installed (scripts/install-deps --workloads)");
	lab_proof(r, "allocators", "%s", libs);
	knobs_proof(r, s);
	lab_proof(r, "khugepaged",
		  "creep: heap RSS after khugepaged/full_scans advanced by 2 (at most %d s) minus "
		  "before; max_ptes_none %ld (always) and 0 (always mpn=0)",
		  s->timeout_s, s->mpn_max);
}

/* A claim's words: the claim, its source, and why it was confirmed, contradicted or neither. */
struct al_words {
	const char *claim, *source, *yes, *no, *open;
};

/*
 * Claim W called CALL on what was seen (HERE) into R, with WHY when the rounds
 * gave one, else "libjemalloc2 not installed" (not INSTALLED) or W's words for
 * CALL. Returns CALL.
 */
static enum claim_call al_claim(struct lab_result *r, const struct al_words *w, const char *here,
				enum claim_call call, const char *why, bool installed)
{
	if (!why[0])
		why = !installed		   ? "libjemalloc2 not installed"
		      : call == CLAIM_CONFIRMED	   ? w->yes
		      : call == CLAIM_CONTRADICTED ? w->no
						   : w->open;
	lab_claim(r, w->claim, w->source, here, call, "%s", why);
	return call;
}

/* Claim: jemalloc's RSS multiplied under enabled=always (ergo-node). */
static enum claim_call claim_ergo(struct lab_result *r, const struct al_state *s)
{
	double f[AL_MAX_ROUNDS], lr[AL_MAX_ROUNDS];
	enum claim_call c[AL_MAX_ROUNDS];
	ratios(s, A_JEMALLOC, M_ALWAYS, M_MADV, C_HEAP, f);
	char why[200] = "", fr[64], rr[64];
	for (int rd = 0; rd < s->rounds; rd++) {
		const struct fig *x = &s->f[rd][M_ALWAYS][A_JEMALLOC];
		lr[rd] = x->have ? x->v[C_RATIO] : -1;
		c[rd] = al_bloat_round(f[rd], -1, 2.0, x->have && x->v[C_AHP] > 0);
	}
	enum claim_call call = s->avail[A_JEMALLOC]
				       ? al_rounds_agree(c, s->rounds, why, sizeof(why))
				       : CLAIM_INCONCLUSIVE;
	al_fmt_range(fr, sizeof(fr), f, s->rounds, "x");
	al_fmt_range(rr, sizeof(rr), lr, s->rounds, "x");
	char here[160];
	lab_fmt(here, sizeof(here), "jemalloc heap RSS always/madvise %s; RSS/live under always %s",
		fr, rr);
	static const struct al_words w = {
		"jemalloc under enabled=always: RSS a multiple of what is allocated (4x)",
		"ergo-node v0.4.2 (jemalloc, THP always)",
		"every round: always >= 2x madvise, AnonHugePages > 0",
		"every round: always within 5% of madvise",
		"a round neither >= 2x nor within 5%, or no AnonHugePages under always"};
	return al_claim(r, &w, here, call, why, s->avail[A_JEMALLOC]);
}

/* Claim: max_ptes_none=0 prevents khugepaged's creep (YugabyteDB, tcmalloc). */
static enum claim_call claim_yb(struct lab_result *r, const struct al_state *s)
{
	int a = s->avail[A_TCMALLOC] ? A_TCMALLOC : s->avail[A_JEMALLOC] ? A_JEMALLOC : A_GLIBC;
	double g5[AL_MAX_ROUNDS], g0[AL_MAX_ROUNDS];
	enum claim_call c[AL_MAX_ROUNDS];
	ratios(s, a, M_ALWAYS, M_ALWAYS, C_HEAP1, g5);
	ratios(s, a, M_MPN0, M_MPN0, C_HEAP1, g0);
	for (int rd = 0; rd < s->rounds; rd++) {
		bool scans = s->f[rd][M_ALWAYS][a].v[C_SCANS] >= 2 &&
			     s->f[rd][M_MPN0][a].v[C_SCANS] >= 2;
		c[rd] = al_creep_round(g5[rd], g0[rd], scans);
	}
	char why[200] = "", r5[64], r0[64], here[160];
	enum claim_call call = al_rounds_agree(c, s->rounds, why, sizeof(why));
	al_fmt_range(r5, sizeof(r5), g5, s->rounds, "x");
	al_fmt_range(r0, sizeof(r0), g0, s->rounds, "x");
	lab_fmt(here, sizeof(here), "%s heap RSS after/before 2 full scans: %s at %ld, %s at 0",
		allocs[a].name, r5, s->mpn_max, r0);
	static const struct al_words w = {
		"RSS 2.2x from khugepaged, fixed by max_ptes_none=0",
		"YugabyteDB TA-26440 (tcmalloc)",
		"every round: +20% or more at 511, at most +5% at 0",
		"every round: +20% or more even at max_ptes_none=0",
		"no round had creep to prevent (< +20% at 511), or khugepaged did not finish 2 full "
		"scans in time"};
	return al_claim(r, &w, here, call, why, true);
}

/* Claim: Ingens' Redis bloat under THP (69%) gone with the fix (< 1%), scaled down. */
static enum claim_call claim_ingens(struct lab_result *r, const struct al_state *s)
{
	double f[AL_MAX_ROUNDS], k[AL_MAX_ROUNDS];
	enum claim_call c[AL_MAX_ROUNDS];
	ratios(s, A_JEMALLOC, M_ALWAYS, M_MADV, C_HEAP, f);
	ratios(s, A_JEMALLOC, M_KNOB, M_MADV, C_HEAP, k);
	for (int rd = 0; rd < s->rounds; rd++)
		c[rd] = al_bloat_round(f[rd], k[rd] > 0 ? k[rd] : 99, 1.3,
				       s->f[rd][M_ALWAYS][A_JEMALLOC].v[C_AHP] > 0);
	char why[200] = "", fr[64], kr[64], here[160];
	enum claim_call call = s->avail[A_JEMALLOC]
				       ? al_rounds_agree(c, s->rounds, why, sizeof(why))
				       : CLAIM_INCONCLUSIVE;
	al_fmt_range(fr, sizeof(fr), f, s->rounds, "x");
	al_fmt_range(kr, sizeof(kr), k, s->rounds, "x");
	lab_fmt(here, sizeof(here), "jemalloc heap RSS over madvise: always %s, thp:never %s", fr,
		kr);
	static const struct al_words w = {
		"Redis bloat under THP 69% -> <1% with the fix (scaled down)",
		"Ingens (OSDI'16), Redis on jemalloc",
		"every round: bloat >= 30%, thp:never within 5%",
		"every round: always within 5% of madvise",
		"bloat < 30% or thp:never not within 5% in a round, or no AnonHugePages"};
	return al_claim(r, &w, here, call, why, s->avail[A_JEMALLOC]);
}

/* The calls, then the verdict: THP proven at fault under always, in every round. */
static void claims_and_verdict(struct lab_result *r, const struct al_state *s)
{
	enum claim_call c1 = claim_ergo(r, s), c2 = claim_yb(r, s), c3 = claim_ingens(r, s);
	bool proven = true;
	char ahp[160] = "", unmeasured[80] = "";
	size_t k = 0, ku = 0;
	for (int rd = 0; rd < s->rounds; rd++) {
		double any = -1; /* no child measured under always this round: "-", not 0 kB */
		for (int a = 0; a < NA; a++)
			if (s->f[rd][M_ALWAYS][a].have && s->f[rd][M_ALWAYS][a].v[C_AHP] > any)
				any = s->f[rd][M_ALWAYS][a].v[C_AHP];
		proven &= any > 0;
		char v[24];
		lab_catf(ahp, sizeof(ahp), &k, "%s%s kB", rd ? ", " : "",
			 lab_fmt_num(v, sizeof(v), any, 0));
		if (any < 0)
			lab_catf(unmeasured, sizeof(unmeasured), &ku, "%s%d", ku ? ", " : "",
				 rd + 1);
	}
	r->inconclusive = unmeasured[0] != '\0';
	if (r->inconclusive)
		lab_verdict(
			r, false,
			"inconclusive: no child measured under always in round %s (see the "
			"proofs): THP at fault not shown (largest AnonHugePages per round: %s); "
			"ergo-node claim %s, YugabyteDB claim %s, Ingens claim %s",
			unmeasured, ahp, claim_call_name(c1), claim_call_name(c2),
			claim_call_name(c3));
	else
		lab_verdict_ok(r, proven,
			       "THP at fault under always (largest AnonHugePages per round: %s); "
			       "ergo-node claim %s, YugabyteDB claim %s, Ingens claim %s",
			       ahp, claim_call_name(c1), claim_call_name(c2), claim_call_name(c3));
}

static int lab_allocators(const struct lab_ctx *ctx, const struct lab_opts *o, struct lab_result *r)
{
	static struct al_state s;
	memset(&s, 0, sizeof(s));
	if (churn_find(s.prog, sizeof(s.prog))) {
		lab_skip(r, "thpctl-churn not found beside thpctl, one directory up, or in "
			    "../libexec/thpctl (make build/thpctl-churn; make install)");
		r->optional = true;
		return 0;
	}
	uint64_t size;
	if (lab_begin_write(ctx, o, "set enabled and max_ptes_none", 256ull << 20, r, &size,
			    "heap allocators under THP: RSS against live bytes, invented, creep"))
		return 0;
	find_libs(ctx, &s);
	find_knobs(&s);
	uint64_t sleep_ms = 0;
	if (!thp_knob_u64(ctx->sr, "khugepaged/scan_sleep_millisecs", &sleep_ms) && sleep_ms > 10 &&
	    lab_thp_write("khugepaged/scan_sleep_millisecs", "10") == 0)
		sleep_ms = 10; /* a full scan in seconds, not minutes (journalled, put back) */
	s.mpn_max = (long)(ctx->pmd_size / (uint64_t)ctx->page_size) - 1;
	s.spec = (struct churn_spec){.threads = 4, .min = 32, .max = 512, .keep = 100, .seed = 1};
	s.spec.objects = (unsigned long)(size / 272 / s.spec.threads); /* mean object 272 bytes */
	s.rounds = o->quick		     ? 2
		   : o->runs < 2	     ? 2
		   : o->runs > AL_MAX_ROUNDS ? AL_MAX_ROUNDS
					     : o->runs;
	s.timeout_s = o->quick ? 20 : 60;
	r->runs = s.rounds;
	lab_cols_add(r, cols, NC, NULL);
	setup_proofs(ctx, r, &s, size);
	for (int rd = 0; rd < s.rounds; rd++)
		for (int mm = 0; mm < NM; mm++) {
			int m = rd % 2 ? NM - 1 - mm : mm; /* ABCD DCBA: drift hits both sides */
			char why[200] = "";
			lab_progress_run(o, "allocators", size, modes[m].label, rd, s.rounds);
			int e = run_mode(ctx, o, &s, rd, m, r, why, sizeof(why));
			if (e) {
				char key[48];
				snprintf(key, sizeof(key), "%s round %d", modes[m].label, rd + 1);
				lab_proof(r, key, "failed: %s", why[0] ? why : strerror(-e));
				r->partial = true;
			}
		}
	lab_progress_done(o);
	if (s.missing[0])
		lab_proof(r, "not measured",
			  "%d measurement%s (the child's smaps could not be read): %s", s.nmissing,
			  s.nmissing == 1 ? "" : "s", s.missing);
	lab_proof(r, "scan_sleep", "khugepaged/scan_sleep_millisecs %llu ms for the run",
		  (unsigned long long)sleep_ms);
	rows(r, &s);
	claims_and_verdict(r, &s);
	bool any = false; /* a figure from some child in some mode: else a failed run (exit 1) */
	for (int rd = 0; rd < s.rounds; rd++)
		for (int m = 0; m < NM; m++)
			for (int a = 0; a < NA; a++)
				any |= s.f[rd][m][a].have;
	return any ? 0 : -EIO;
}

LAB_EXPERIMENT_DEFINE(
	"allocators", 250, lab_allocators,
	"glibc, jemalloc, tcmalloc, mimalloc under THP: RSS vs live, invented, creep, "
	"knobs",
	.quick = {.size = (32ull << 20)}, .workload = true,
	.host = {"enabled=always for its always modes, khugepaged/max_ptes_none=0 for one, "
		 "khugepaged/scan_sleep_millisecs=10",
		 20, 60, true, NULL});
