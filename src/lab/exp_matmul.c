// SPDX-License-Identifier: MIT
/*
 * lab matmul: dgemm through Debian's python3-numpy (whatever BLAS the
 * libblas.so.3 alternative points at: the one mapped in the child is named)
 * on three N x N double matrices, in four modes: the child's THP off (prctl
 * PR_SET_THP_DISABLE before exec, as `thpctl run --thp=off`, the host as
 * found); enabled=madvise with nothing advising (the control); madvise
 * with GLIBC_TUNABLES=glibc.malloc.hugetlb=1 (glibc advises its mmapped
 * chunks); enabled=always. The child's smaps_rollup AnonHugePages, read while
 * the matrices are live, proves the backing; dTLB misses where a PMU exists.
 * Two rounds (ABCD DCBA; --quick: one), so that a claim stands only when
 * both rounds give it; only the always mode changes the host.
 */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "../kernel/proc_read.h"
#include "../kernel/proc_thp.h"
#include "../kernel/exe.h"
#include "../util/buf.h"
#include "../util/stats.h"
#include "common.h"
#include "matmul_run.h"

#define NMODES 4
#define NV 6
#define MAX_R 2

enum { M_OFF, M_MADV, M_GLIBC, M_ALWAYS };

static const char *const mode_label[NMODES] = {"THP off (prctl)", "madvise (control)",
					       "madvise, glibc hugetlb=1", "always"};
/* The host's enabled= per mode; NULL: as found (the child's prctl turns THP off) */
static const char *const mode_host[NMODES] = {NULL, "madvise", "madvise", "always"};

enum { V_GFLOPS, V_BEST, V_AHP, V_RSS, V_SHARE, V_MISS };

static const struct lab_coldef cols[NV] = {
	{"GFLOP/s", ""}, {"best", "GFLOP/s"}, {"AnonHugePages", "kB"},
	{"Rss", "kB"},	 {"huge share", "%"}, {"dTLB read miss", "%"},
};

/* One mode's run. */
struct mode_out {
	bool ok;
	double gflops[MATMUL_MAX_REPS];
	int nt;
	double v[NV]; /* -1: not measured */
	int dtlb_err; /* 0 or -errno of the counters */
};

/* The BLAS mapped in PID into OUT ("?" when unreadable), with its Debian package. */
static void blas_of(const struct lab_ctx *ctx, pid_t pid, char *out, size_t n)
{
	struct proc_info pi = {0};
	char path[256], pkg[64];
	lab_fmt(out, n, "?");
	if (!proc_read(ctx->sr, pid, PROC_MAPS, &pi) && !pi.maps_err &&
	    matmul_blas_path(pi.maps.p, pi.maps.len, path, sizeof(path)))
		lab_fmt(out, n, "%s (%s)", path,
			dpkg_owner(ctx->sr, path, pkg, sizeof(pkg)) ? "package unknown" : pkg);
	proc_info_free(&pi);
}

/* Mode K: host setting, child, rollup while live, the dgemm calls. 0 or -errno (WHY). */
static int run_mode(const struct lab_ctx *ctx, int k, const struct matmul_spec *base,
		    struct mode_out *m, char *blas, size_t bn, char *why, size_t n)
{
	*m = (struct mode_out){.dtlb_err = -ENODATA};
	for (int c = 0; c < NV; c++)
		m->v[c] = -1;
	const char *host = mode_host[k] ? mode_host[k] : lab_found_enabled(ctx);
	int rc = host ? lab_set_enabled(ctx, host) : 0;
	if (rc) {
		lab_fmt(why, n, "enabled=%s: %s", host, strerror(-rc));
		return rc;
	}
	struct matmul_spec sp = *base;
	sp.thp_off = k == M_OFF;
	sp.glibc_thp = k == M_GLIBC;
	struct matmul_child c;
	if ((rc = matmul_start(&c, &sp, why, n)))
		return rc;
	struct buf b = {0};
	static struct proc_thp p;
	int err = 0;
	if (proc_thp_collect(ctx->sr, c.pid, true, &b, &p, &err) == PT_OK) {
		m->v[V_AHP] = (double)p.t.kb[SM_ANON_HUGE];
		m->v[V_RSS] = (double)p.t.kb[SM_RSS];
		if (m->v[V_RSS] > 0)
			m->v[V_SHARE] = 100 * m->v[V_AHP] / m->v[V_RSS];
	}
	buf_free(&b);
	if (!blas[0] || blas[0] == '?')
		blas_of(ctx, c.pid, blas, bn);
	double t[MATMUL_MAX_REPS], acc, miss;
	m->dtlb_err = c.dtlb_err;
	rc = matmul_finish(&c, t, &m->nt, &acc, &miss, why, n);
	matmul_stop(&c);
	if (rc)
		return rc;
	double flop = 2.0 * sp.n * (double)sp.n * sp.n;
	for (int i = 0; i < m->nt; i++) {
		m->gflops[i] = flop / t[i] / 1e9;
		if (m->gflops[i] > m->v[V_BEST])
			m->v[V_BEST] = m->gflops[i];
	}
	if (acc > 0 && miss >= 0)
		m->v[V_MISS] = 100 * miss / acc;
	m->ok = true;
	return 0;
}

/* Round I's median GFLOP/s of mode K (-1 when it did not run). */
static double round_med(const struct mode_out (*m)[NMODES], int i, int k)
{
	return m[i][k].ok && m[i][k].nt ? stats_median(m[i][k].gflops, (size_t)m[i][k].nt) : -1;
}

/*
 * The two claims from the NR rounds M[round][mode]; CALLS gets their calls.
 * THP: the always row proven huge, the off row not.
 */
static void claims(struct lab_result *r, const struct mode_out (*m)[NMODES], int nr,
		   const double *med, bool thp, bool openblas, enum claim_call *calls)
{
	char here[160], why[200];
	double q[MAX_R];
	for (int i = 0; i < nr; i++) {
		double off = round_med(m, i, M_OFF), al = round_med(m, i, M_ALWAYS);
		q[i] = thp && off > 0 && al >= 0 ? al / off : -1;
	}
	double ratio = thp && med[M_OFF] > 0 ? med[M_ALWAYS] / med[M_OFF] : -1;
	calls[0] = lab_claim_call(q, nr, false, 1.10, 1.03, why, sizeof(why));
	if (!thp || !openblas)
		calls[0] = CLAIM_INCONCLUSIVE;
	lab_fmt(here, sizeof(here), "%.2f (always) vs %.2f GFLOP/s (THP off): %+.1f%%",
		med[M_ALWAYS], med[M_OFF], ratio > 0 ? 100 * (ratio - 1) : 0.0);
	if (!thp)
		lab_claim(r, "always +18% throughput",
			  "OpenBLAS dgemm via numpy, THP always vs off", here, calls[0],
			  "THP not proven (always row huge, THP-off row none)");
	else if (!openblas)
		lab_claim(
			r, "always +18% throughput", "OpenBLAS dgemm via numpy, THP always vs off",
			here, calls[0],
			"the BLAS here is not OpenBLAS (blas proof): %.2fx measures another dgemm",
			ratio);
	else
		lab_claim(r, "always +18% throughput",
			  "OpenBLAS dgemm via numpy, THP always vs off", here, calls[0], "%s", why);
	const struct mode_out *l = m[nr - 1];
	double mo = l[M_OFF].v[V_MISS], ma = l[M_ALWAYS].v[V_MISS];
	bool pmu = mo >= 0 && ma >= 0;
	for (int i = 0; i < nr; i++) {
		double o = m[i][M_OFF].v[V_MISS], a = m[i][M_ALWAYS].v[V_MISS];
		q[i] = pmu && thp && o > 0 && a >= 0 ? a / o : -1;
	}
	calls[1] = lab_claim_call(q, nr, true, 0.3, 0.7, why, sizeof(why));
	if (!pmu || !thp || !(mo > 0))
		calls[1] = CLAIM_INCONCLUSIVE;
	if (pmu)
		lab_fmt(here, sizeof(here), "dTLB read miss %.2f%% (off) -> %.2f%% (always)", mo,
			ma);
	else
		lab_fmt(here, sizeof(here), "-");
	if (!pmu)
		lab_claim(r, "dTLB miss rate 8.2% -> 1.1%", "OpenBLAS dgemm, THP off vs always",
			  here, calls[1], "no PMU: perf_event_open: %s",
			  strerror(-(l[M_ALWAYS].dtlb_err ? l[M_ALWAYS].dtlb_err : -ENODATA)));
	else if (!thp || !(mo > 0))
		lab_claim(r, "dTLB miss rate 8.2% -> 1.1%", "OpenBLAS dgemm, THP off vs always",
			  here, calls[1], "%s",
			  thp ? "no misses counted with THP off" : "THP not proven");
	else
		lab_claim(r, "dTLB miss rate 8.2% -> 1.1%", "OpenBLAS dgemm, THP off vs always",
			  here, calls[1], "%s", why);
}

/*
 * Rows (GFLOP/s pooled over the NR rounds, the rest from the last),
 * proofs, claims and the verdict; MAT_KB the three matrices' size (kB).
 */
static void finish(struct lab_result *r, const struct mode_out (*mr)[NMODES], int nr, double mat_kb,
		   bool openblas)
{
	double med[NMODES];
	const struct mode_out *m = mr[nr - 1];
	for (int k = 0; k < NMODES; k++) {
		med[k] = -1;
		if (!m[k].ok)
			continue;
		int row = lab_row_add(r, mode_label[k]);
		if (row < 0)
			continue;
		double g[MAX_R * MATMUL_MAX_REPS];
		size_t ng = 0;
		for (int i = 0; i < nr; i++)
			for (int j = 0; mr[i][k].ok && j < mr[i][k].nt; j++)
				g[ng++] = mr[i][k].gflops[j];
		lab_cell_set(r, row, V_GFLOPS, g, ng);
		med[k] = r->rows[row].c[V_GFLOPS].median;
		for (int c = V_BEST; c < NV; c++)
			if (m[k].v[c] >= 0)
				lab_cell_set1(r, row, c, m[k].v[c]);
		char key[48];
		snprintf(key, sizeof(key), "%s child", mode_label[k]);
		lab_proof(
			r, key,
			"smaps_rollup with the matrices live: AnonHugePages %.0f kB of Rss %.0f kB "
			"(matrices %.0f kB)",
			m[k].v[V_AHP], m[k].v[V_RSS], mat_kb);
	}
	const double half = mat_kb / 2;
	bool off0 = m[M_OFF].ok && m[M_OFF].v[V_AHP] == 0;
	bool madv0 = m[M_MADV].ok && m[M_MADV].v[V_AHP] >= 0 && m[M_MADV].v[V_AHP] <= mat_kb / 20;
	bool glibc = m[M_GLIBC].ok && m[M_GLIBC].v[V_AHP] >= half;
	bool always = m[M_ALWAYS].ok && m[M_ALWAYS].v[V_AHP] >= half;
	enum claim_call c[2];
	claims(r, mr, nr, med, off0 && always, openblas, c);
	lab_verdict(r, off0 && madv0 && glibc && always,
		    "%sAnonHugePages THP off %.0f, madvise control %.0f, glibc hugetlb=1 %.0f, "
		    "always %.0f kB (matrices %.0f kB; expected 0, <= 5%%, >= 50%%, >= 50%%); "
		    "throughput claim %s; dTLB claim %s",
		    off0 && madv0 && glibc && always ? "" : "UNEXPECTED backing: ",
		    m[M_OFF].v[V_AHP], m[M_MADV].v[V_AHP], m[M_GLIBC].v[V_AHP],
		    m[M_ALWAYS].v[V_AHP], mat_kb, claim_call_name(c[0]), claim_call_name(c[1]));
}

static int lab_matmul(const struct lab_ctx *ctx, const struct lab_opts *o, struct lab_result *r)
{
	if (access(MATMUL_PYTHON, X_OK)) {
		lab_skip_missing(
			r,
			"%s not found: install with scripts/install-deps --workloads (Debian: "
			"python3-numpy)",
			MATMUL_PYTHON);
		return 0;
	}
	uint64_t size;
	if (lab_begin_write(ctx, o, "set enabled=madvise/always", 128ull << 20, r, &size,
			    "numpy dgemm: THP off (prctl) vs madvise vs glibc hugetlb=1 vs always"))
		return 0;
	struct matmul_spec sp = {.n = (int)sqrt((double)size / 8), .reps = 3, .count_dtlb = true};
	int nr = o->quick ? 1 : MAX_R;
	r->runs = nr;
	lab_cols_add(r, cols, NV, NULL);
	static struct mode_out m[MAX_R][NMODES];
	memset(m, 0, sizeof(m));
	char blas[320] = "";
	for (int i = 0; i < nr * NMODES; i++) {
		int kk = i % NMODES, rd = i / NMODES;
		int k = rd % 2 ? NMODES - 1 - kk : kk; /* ABCD DCBA: drift hits both sides */
		lab_progress_run(o, "matmul", size, mode_label[k], rd, nr);
		char why[160] = "";
		int rc = run_mode(ctx, k, &sp, &m[rd][k], blas, sizeof(blas), why, sizeof(why));
		if (rc) {
			lab_proof(r, mode_label[k], "failed: %s", why[0] ? why : strerror(-rc));
			r->partial = true;
			if (strstr(why, "numpy missing")) {
				lab_skip_missing(
					r,
					"%s; install with scripts/install-deps --workloads "
					"(Debian: python3-numpy)",
					why);
				return 0;
			}
		}
	}
	lab_progress_done(o);
	lab_proof(r, "setup",
		  "kernel %s, N=%d (3 matrices of %.0f MiB), %d dgemm calls per mode after one "
		  "allocation, %d round%s; numpy's own MADV_HUGEPAGE off",
		  ctx->feat->release, sp.n, (double)sp.n * sp.n * 8 / 1048576, sp.reps, nr,
		  nr == 1 ? "" : "s");
	lab_proof(r, "blas", "%s, mapped in the child", blas);
	finish(r, (const struct mode_out(*)[NMODES])m, nr, 3.0 * sp.n * sp.n * 8 / 1024,
	       strstr(blas, "openblas") != NULL);
	return 0;
}

LAB_EXPERIMENT_DEFINE("matmul", 230, lab_matmul,
		      "numpy dgemm: THP off vs madvise (+glibc hugetlb=1) vs always, GFLOP/s",
		      .quick = {.size = (18ull << 20)}, .workload = true,
		      .host = {"enabled=always for its always mode (THP off uses a prctl)", 5, 20,
			       true, NULL});
