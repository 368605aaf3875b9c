// SPDX-License-Identifier: MIT
/*
 * lab fileread: the hugetlb pool, and what the runs show: rows, speed-ups
 * with 95% intervals (stats_ratio_ci: Hodges-Lehmann, Mann-Whitney bounds),
 * the backing each mode should have had, the published claims.
 */
#include <errno.h>
#include <string.h>

#include "../util/stats.h"
#include "common.h"
#include "fileread_int.h"

/* The band around a claimed speed-up, and around a claimed fault reduction (percentage points). */
#define SPEED_TOL 0.10
#define FAULT_TOL 10.0

void fr_pool_get(const struct lab_ctx *ctx, struct fr_run *f, struct lab_result *r)
{
	uint64_t kb = f->pmd >> 10, need = f->size / f->pmd;
	struct lab_pool *p = &f->pool;
	int e = lab_pool_reserve(ctx, kb, need, p);
	if (e) {
		/* the first read of the pool failing: no pool to be had */
		const char *why = e == -ENOENT || (e == -EIO && !p->raised)
					  ? "no hugetlb pool of the PMD size"
					  : p->why;
		f->failed[M_HUGETLB] = f->pool_skip = true;
		lab_proof(r, "hugetlb pool",
			  "MAP_HUGETLB skipped: %s (%llu of %llu %llu kB pages free)", why,
			  (unsigned long long)(e == -ENOMEM ? p->got : 0), (unsigned long long)need,
			  (unsigned long long)kb);
		return;
	}
	lab_proof(
		r, "hugetlb pool",
		"%llu kB pages: nr_hugepages %llu -> %llu through the guard, %llu free for %llu needed; put back after the runs",
		(unsigned long long)kb, (unsigned long long)p->nr0, (unsigned long long)p->nr,
		(unsigned long long)p->got, (unsigned long long)need);
}

void fr_pool_put(struct fr_run *f)
{
	lab_pool_release(&f->pool);
}

/* The 4 KiB mode each mode is compared with. */
static int base_of(int m)
{
	switch (fr_modes[m].kind) {
	case K_FILE:
		return M_FILE_NOHUGE;
	case K_TMPFS:
		return M_TMPFS_NEVER;
	default:
		return M_ANON_4K;
	}
}

/* Whether mode M should be huge (1), small (0), or either (-1: the page cache under enabled=). */
static int want_huge(int m)
{
	if (m == M_FILE_NEVER || m == M_FILE_ALWAYS)
		return -1;
	return !(m == M_FILE_NOHUGE || m == M_TMPFS_NEVER || m == M_ANON_4K);
}

/* What the runs of M show of the backing: smallest and largest proof value (kB), -1 unread. */
static void proof_range(const struct fr_run *f, int m, double *lo, double *hi)
{
	*lo = *hi = -1;
	for (int i = 0; i < f->n[m]; i++) {
		double v = f->v[m][fr_modes[m].proof][i];
		if (v < 0)
			continue;
		if (*lo < 0 || v < *lo)
			*lo = v;
		if (v > *hi)
			*hi = v;
	}
}

/* Whether M ran with the backing it should have: huge over >= 90% of the region, or none. */
static bool proven(const struct fr_run *f, int m)
{
	double lo, hi, full = (double)(f->size >> 10);
	proof_range(f, m, &lo, &hi);
	if (!f->n[m] || lo < 0 || want_huge(m) < 0)
		return false;
	return want_huge(m) ? lo >= full * 0.9 : hi == 0;
}

/* Speed-up of M over B (B ns / M ns): interval into CI. */
static void speedup_vs(const struct fr_run *f, int m, int b, struct ratio_ci *ci)
{
	memset(ci, 0, sizeof(*ci));
	if (f->n[m] && f->n[b] &&
	    stats_ratio_ci(f->ns[m], (size_t)(f->n[m] * f->passes), f->ns[b],
			   (size_t)(f->n[b] * f->passes), 0.95, ci))
		memset(ci, 0, sizeof(*ci));
}

/* Speed-up of M over its 4 KiB base. */
static void speedup(const struct fr_run *f, int m, struct ratio_ci *ci)
{
	speedup_vs(f, m, base_of(m), ci);
}

/* "1.32x (95% CI 1.21..1.47)" from CI, or "-" without an interval. */
static const char *ci_words(char *out, size_t n, const struct ratio_ci *ci)
{
	if (ci->ok)
		lab_fmt(out, n, "%.2fx (95%% CI %.2f..%.2f)", ci->est, ci->lo, ci->hi);
	else
		lab_fmt(out, n, "-");
	return out;
}

/* One row per measured mode. */
static void rows(const struct fr_run *f, struct lab_result *r)
{
	for (int m = 0; m < FR_NM; m++) {
		if (!f->n[m])
			continue;
		int row = lab_row_add(r, f->label[m]);
		for (int c = 0; c < FR_NV; c++) {
			double s[FR_MAX_RUNS];
			size_t ns = 0;
			for (int i = 0; i < f->n[m]; i++)
				if (f->v[m][c][i] >= 0)
					s[ns++] = f->v[m][c][i];
			if (c != V_SPEED && c != V_NS && c != V_RPS)
				lab_cell_set(r, row, c, s, ns);
		}
		/* ns/read and reads/s over every pass of every run */
		size_t np = (size_t)(f->n[m] * f->passes);
		double rps[FR_MAX_NS];
		for (size_t i = 0; i < np; i++)
			rps[i] = 1e9 / f->ns[m][i];
		lab_cell_set(r, row, V_NS, f->ns[m], np);
		lab_cell_set(r, row, V_RPS, rps, np);
		struct ratio_ci ci;
		speedup(f, m, &ci);
		if (m == base_of(m))
			lab_cell_set1(r, row, V_SPEED, 1.0);
		else if (ci.ok)
			lab_cell_set1(r, row, V_SPEED, ci.est);
	}
}

/* "always 1.52x (1.48..1.57)" for M into OUT+*OFF. */
static void speed_words(const struct fr_run *f, int m, const char *name, char *out, size_t n,
			size_t *off)
{
	struct ratio_ci ci;
	speedup(f, m, &ci);
	if (ci.ok)
		lab_catf(out, n, off, "%s%s %.2fx (%.2f..%.2f)", *off ? ", " : "", name, ci.est,
			 ci.lo, ci.hi);
	else
		lab_catf(out, n, off, "%s%s -", *off ? ", " : "", name);
}

/* The speed-up proofs, one per family, 95% intervals. */
static void speed_proofs(const struct fr_run *f, struct lab_result *r)
{
	static const struct {
		const char *key, *vs;
		int m[3];
		const char *name[3];
	} fam[] = {
		{"speed-up page cache",
		 "MADV_NOHUGEPAGE",
		 {M_FILE_NEVER, M_FILE_ALWAYS, -1},
		 {"never", "always"}},
		{"speed-up tmpfs",
		 "huge=never",
		 {M_TMPFS_ALWAYS, M_TMPFS_WITHIN, -1},
		 {"always", "within_size"}},
		{"speed-up anon/hugetlb",
		 "anon MADV_NOHUGEPAGE",
		 {M_ANON_ALWAYS, M_ANON_MADV, M_HUGETLB},
		 {"always", "madvise", "hugetlb"}},
	};
	for (size_t i = 0; i < sizeof(fam) / sizeof(fam[0]); i++) {
		char text[192] = "";
		size_t off = 0;
		for (int k = 0; k < 3 && fam[i].m[k] >= 0; k++)
			speed_words(f, fam[i].m[k], fam[i].name[k], text, sizeof(text), &off);
		lab_proof(r, fam[i].key, "%s vs %s (base ns / ns, HL estimate, 95%% CI)", text,
			  fam[i].vs);
	}
	/* the page cache against the other 4 KiB baselines: what its PTE mapping already saves */
	struct ratio_ci a, t;
	speedup_vs(f, M_FILE_NEVER, M_ANON_4K, &a);
	speedup_vs(f, M_FILE_NEVER, M_TMPFS_NEVER, &t);
	char wa[48], wt[48];
	lab_proof(r, "speed-up page cache, other bases",
		  "%s vs anon MADV_NOHUGEPAGE %s, vs tmpfs huge=never %s", f->label[M_FILE_NEVER],
		  ci_words(wa, sizeof(wa), &a), ci_words(wt, sizeof(wt), &t));
}

/* WITHIN, OUTSIDE or ACROSS: how a band claim called C lies against its band. */
static const char *call_verb(enum claim_call c, const char *within, const char *outside,
			     const char *across)
{
	return c == CLAIM_CONFIRMED ? within : c == CLAIM_CONTRADICTED ? outside : across;
}

/* A claim of the field report into R: CLAIM, what was seen HERE, the call C and WHY. */
static void report_claim(struct lab_result *r, const char *claim, const char *here,
			 enum claim_call c, const char *why)
{
	lab_claim(r, claim, "mmap random 4 KiB reads, 4K vs THP vs hugetlb (field report)", here, c,
		  "%s", why);
}

/* The fewest and most minor faults of M's runs into *MN and *MX (-1 and 0 without a run). */
static void fault_range(const struct fr_run *f, int m, double *mn, double *mx)
{
	*mn = -1;
	*mx = 0;
	for (int i = 0; i < f->n[m]; i++) {
		double v = f->v[m][V_FAULTS][i];
		*mn = *mn < 0 || v < *mn ? v : *mn;
		*mx = v > *mx ? v : *mx;
	}
}

/* Claim: M's speed-up over anon 4 KiB is CLAIMED (band +-SPEED_TOL). */
static void speed_claim(const struct fr_run *f, struct lab_result *r, int m, const char *claim,
			double claimed)
{
	struct ratio_ci ci;
	speedup(f, m, &ci);
	bool ok = proven(f, m) && proven(f, M_ANON_4K);
	char here[160];
	char w[48];
	lab_fmt(here, sizeof(here), "%s: %s vs anon MADV_NOHUGEPAGE", f->label[m],
		ci_words(w, sizeof(w), &ci));
	/* every claim stands on two rounds or more (lab_claim_call's rule), as fault_claim's */
	bool rounds = f->n[m] >= 2 && f->n[M_ANON_4K] >= 2;
	enum claim_call c = ok && ci.ok && rounds ? fr_band_call(ci.lo, ci.hi, claimed, SPEED_TOL)
						  : CLAIM_INCONCLUSIVE;
	char why[160];
	if (!f->n[m])
		lab_fmt(why, sizeof(why), "not measured here");
	else if (!ok)
		lab_fmt(why, sizeof(why), "the backing was not proven (see the proofs)");
	else if (!ci.ok)
		lab_fmt(why, sizeof(why), "too few runs for a 95%% interval");
	else if (!rounds)
		lab_fmt(why, sizeof(why),
			"one round: its passes ran back to back, so a load change is not told "
			"apart from the mode (2+ rounds: --runs 2)");
	else
		lab_fmt(why, sizeof(why), "the 95%% CI %s the band %.2f..%.2fx (claim +-%.2f)",
			call_verb(c, "lies within", "lies wholly outside",
				  "reaches across an edge of"),
			claimed - SPEED_TOL, claimed + SPEED_TOL, SPEED_TOL);
	report_claim(r, claim, here, c, why);
}

/* Claim: M's minor faults are CLAIMED % fewer than anon 4 KiB's (band +-FAULT_TOL points). */
static void fault_claim(const struct fr_run *f, struct lab_result *r, int m, const char *claim,
			double claimed)
{
	const int b = M_ANON_4K;
	double bmin, bmax, mmin, mmax;
	fault_range(f, b, &bmin, &bmax);
	fault_range(f, m, &mmin, &mmax);
	bool ok = proven(f, m) && proven(f, b) && bmin > 0 && mmin >= 0;
	double lo = ok ? (1 - mmax / bmin) * 100 : 0, hi = ok ? (1 - mmin / bmax) * 100 : 0;
	char here[160];
	if (ok)
		snprintf(
			here, sizeof(here),
			"faults to map + read once: anon 4K %.0f..%.0f, %s %.0f..%.0f: -%.1f..-%.1f%%",
			bmin, bmax, f->label[m], mmin, mmax, lo, hi);
	else
		lab_fmt(here, sizeof(here), "faults to map + read once: -");
	/* every claim stands on two rounds or more (lab_claim_call's rule) */
	bool rounds = f->n[m] >= 2 && f->n[b] >= 2;
	enum claim_call c =
		ok && rounds ? fr_band_call(lo, hi, claimed, FAULT_TOL) : CLAIM_INCONCLUSIVE;
	char why[160];
	if (!ok)
		lab_fmt(why, sizeof(why), "not measured, or the backing was not proven");
	else if (!rounds)
		lab_fmt(why, sizeof(why), "one round: a run of each mode is not two that agree");
	else
		snprintf(
			why, sizeof(why),
			"every run's reduction %s -%.0f..-%.0f%% (claim +-%.0f points); the region's faults, not a whole program's",
			call_verb(c, "lies within", "lies outside",
				  "does not all lie in or out of"),
			claimed - FAULT_TOL, claimed + FAULT_TOL, FAULT_TOL);
	report_claim(r, claim, here, c, why);
}

/* The hand run's claim on this host: 1.47-1.58x, ext4 large folios PMD-mapped under never. */
static void hand_claim(const struct fr_run *f, struct lab_result *r)
{
	struct ratio_ci ci;
	speedup(f, M_FILE_NEVER, &ci);
	double lo, hi, full = (double)(f->size >> 10);
	proof_range(f, M_FILE_NEVER, &lo, &hi);
	bool base = proven(f, M_FILE_NOHUGE), pmd = lo >= full * 0.9, none = hi == 0;
	char here[160], w[48], pm[64] = "-";
	if (lo >= 0)
		snprintf(pm, sizeof(pm), "%.0f..%.0f kB of %.0f", lo, hi, full);
	lab_fmt(here, sizeof(here), "%s: %s vs MADV_NOHUGEPAGE; FilePmdMapped %s",
		f->label[M_FILE_NEVER], ci_words(w, sizeof(w), &ci), pm);
	enum claim_call c = CLAIM_INCONCLUSIVE;
	if (f->n[M_FILE_NEVER] && none)
		c = CLAIM_CONTRADICTED;
	else if (base && pmd && ci.ok && f->n[M_FILE_NEVER] >= 2 && f->n[M_FILE_NOHUGE] >= 2)
		c = fr_band_call(ci.lo, ci.hi, 1.525, 0.155); /* two rounds, as every claim */
	lab_claim(
		r, "1.47-1.58x; ext4 large folios PMD-mapped whatever enabled says",
		"hand run on this host: mmap of an ext4 file, random reads", here, c, "%s",
		c == CLAIM_CONTRADICTED && none ? "no FilePmdMapped under enabled=never"
		: !base || !pmd || !ci.ok
			? "the 4K baseline or the PMD mapping not proven, too few runs, or one round"
		: c == CLAIM_CONFIRMED
			? "PMD-mapped under never; the 95% CI lies within 1.37..1.68x (the range +-0.10)"
		: c == CLAIM_CONTRADICTED
			? "PMD-mapped under never, but the 95% CI lies wholly outside 1.37..1.68x (the range +-0.10)"
			: "PMD-mapped under never; the 95% CI reaches across an edge of 1.37..1.68x (the range +-0.10)");
}

void fr_report(const struct lab_ctx *ctx, const struct fr_run *f, struct lab_result *r)
{
	r->size = f->size;
	rows(f, r);
	speed_proofs(f, r);
	lab_proof(
		r, "setup",
		"%s file, %zu pages, %s; a dependent 8-byte load per random 4 KiB page; faults: map (anon: fill) + 1 pass; ns/read: %d passes a run; kernel %s",
		f->fs, f->npages, f->dir.path, f->passes, ctx->feat->release);
	speed_claim(f, r, M_ANON_ALWAYS, "THP always 1.19x the speed of 4K pages", 1.19);
	speed_claim(f, r, M_ANON_MADV, "THP madvise 1.18x the speed of 4K pages", 1.18);
	speed_claim(f, r, M_HUGETLB, "hugetlb 1.22x the speed of 4K pages", 1.22);
	fault_claim(f, r, M_ANON_ALWAYS, "minor faults -63% (THP)", 63);
	fault_claim(f, r, M_HUGETLB, "minor faults -82% (hugetlb)", 82);
	hand_claim(f, r);
	/* the verdict: every mode with an expectation had its backing; MAP_HUGETLB may be skipped */
	bool ok = true;
	char bad[FR_NM * (sizeof(f->label[0]) + 2)] = "";
	size_t off = 0;
	for (int m = 0; m < FR_NM; m++) {
		if (want_huge(m) < 0 || (m == M_HUGETLB && f->pool_skip) || proven(f, m))
			continue;
		ok = false;
		lab_catf(bad, sizeof(bad), &off, "%s%s", off ? ", " : "", f->label[m]);
	}
	double nlo, nhi, alo, ahi;
	proof_range(f, M_FILE_NEVER, &nlo, &nhi);
	proof_range(f, M_FILE_ALWAYS, &alo, &ahi);
	const char *en = nlo < 0 || alo < 0	? "not measured"
			 : nhi == 0 && alo > 0	? "matters"
			 : nlo > 0 && alo > 0	? "does not matter (PMD-mapped under never too)"
			 : nhi == 0 && ahi == 0 ? "not seen: no PMD mapping under either"
						: "mixed (see the rows)";
	char pn[24] = "-", pa[24] = "-";
	if (nlo >= 0)
		snprintf(pn, sizeof(pn), "%.0f kB", nlo);
	if (alo >= 0)
		snprintf(pa, sizeof(pa), "%.0f kB", alo);
	lab_verdict_ok(
		r, ok,
		"%s%s; enabled for the %s page cache: %s (FilePmdMapped %s never, %s always)",
		ok ? "backing proven in every mode (region smaps)" : "backing NOT as intended: ",
		bad, f->fs, en, pn, pa);
}
