// SPDX-License-Identifier: MIT
#include "faults_table.h"

#include <stdio.h>
#include <math.h>
#include <string.h>

#include "../util/units.h"
#include "common.h"

/* The unit of the table's four latency columns, which every proof and the verdict use too. */
struct lat_unit {
	double div;	  /* ns per unit */
	const char *name; /* "µs", "ms" */
};

/* NS in U as the table prints it ("0.12 ms"): the same number in the table, proof and verdict. */
static void fmt_lat(char *out, size_t n, double ns, const struct lat_unit *u)
{
	char v[32];
	fmt_measured(v, sizeof(v), ns / u->div, 0);
	lab_fmt(out, n, "%s %s", v, u->name);
}

/* V[0..N) as the table's cell: "0.12 (0.11-3.66)" (median, min-max), in U. */
static void fmt_cellv(char *out, size_t n, const double *v, int cnt, const struct lat_unit *u)
{
	double tmp[MAX_RUNS];
	struct summary s;
	for (int i = 0; i < cnt; i++)
		tmp[i] = v[i] / u->div;
	summarize(tmp, (size_t)cnt, &s);
	char m[32], lo[32], hi[32];
	fmt_measured(m, sizeof(m), s.median, 0);
	fmt_measured(lo, sizeof(lo), s.min, 0);
	fmt_measured(hi, sizeof(hi), s.max, 0);
	if (cnt > 1 && s.min != s.max)
		lab_fmt(out, n, "%s %s (%s-%s)", m, u->name, lo, hi);
	else
		lab_fmt(out, n, "%s %s", m, u->name);
}

/* µs unless a row's p99 (the median over its runs) reaches a millisecond. */
static struct lat_unit faults_unit(const enum lab_mode *modes, size_t nmodes,
				   const struct mode_res *res)
{
	double worst = 0;
	for (size_t m = 0; m < nmodes; m++) {
		const struct mode_res *mr = &res[modes[m]];
		if (mr->n && stats_median(mr->st[ST_P99], (size_t)mr->n) > worst)
			worst = stats_median(mr->st[ST_P99], (size_t)mr->n);
	}
	return worst >= 1e6 ? (struct lat_unit){1e6, "ms"} : (struct lat_unit){1e3, "µs"};
}

/* What backed MR's chunks, by the median over its runs of smaps AnonHugePages. */
static const char *faults_backing(const struct mode_res *mr, size_t nch)
{
	double h = stats_median(mr->huge, (size_t)mr->n);
	return h >= (double)nch ? "THP" : h <= 0 ? "base pages" : "mixed";
}

/*
 * MR's proofs, in the table's unit U. The first says what the row is: the
 * backing (smaps AnonHugePages, each run, their median as in the table), the
 * median chunk as the table gives it (each run's median, then the median
 * over the runs, min-max the runs' range). The second pools every chunk of
 * every run: a different statistic, said so; it differs from the first when
 * the runs do (a cold run, a stall).
 */
static void faults_proof(struct lab_result *r, enum lab_mode mode, const struct mode_res *mr,
			 size_t nch, const struct lat_unit *u)
{
	char med[48], p99[48], hm[24] = "-", sm[24] = "-", ev[64] = "", pm[24], pp[24], px[24];
	const char *name = lab_mode_name(mode);
	fmt_cellv(med, sizeof(med), mr->st[ST_MED], mr->n, u);
	fmt_cellv(p99, sizeof(p99), mr->st[ST_P99], mr->n, u);
	if (mr->probed)
		snprintf(ev, sizeof(ev), "; kpageflags: %llu huge in the last run",
			 (unsigned long long)mr->probed_huge);
	lab_proof(r, name,
		  "%s: %.0f of %zu chunks huge by smaps AnonHugePages (the median over %d runs, as "
		  "in the table)%s; median chunk %s and p99 %s: each run's, then the median over "
		  "the %d runs (min-max: the runs')%s",
		  faults_backing(mr, nch), stats_median(mr->huge, (size_t)mr->n), nch, mr->n, ev,
		  med, p99, mr->n,
		  nch < 100 ? "; with under 100 chunks a run's p99 is its slowest chunk" : "");
	if (mr->pooled_huge.n)
		fmt_lat(hm, sizeof(hm), mr->pooled_huge.median, u);
	if (mr->pooled_small.n)
		fmt_lat(sm, sizeof(sm), mr->pooled_small.median, u);
	fmt_lat(pm, sizeof(pm), mr->pooled.median, u);
	fmt_lat(pp, sizeof(pp), mr->pooled.p99, u);
	fmt_lat(px, sizeof(px), mr->pooled.max, u);
	char key[40];
	snprintf(key, sizeof(key), "%s pooled", name);
	lab_proof(r, key,
		  "another statistic: all %zu chunks of the %d runs pooled: median %s, p99 %s, max "
		  "%s%s%s%s%s",
		  mr->pooled.n, mr->n, pm, pp, px,
		  mr->probed ? "; THP chunks (kpageflags) median " : "", mr->probed ? hm : "",
		  mr->probed ? ", base-page chunks " : "", mr->probed ? sm : "");
}

/* MODE's p99 (median over runs) over BASE's, or -1 when either did not run or BASE's is 0. */
static double faults_tail_ratio(const struct mode_res *mr, const struct mode_res *base)
{
	if (!mr->n || !base->n)
		return -1;
	double b = stats_median(base->st[ST_P99], (size_t)base->n);
	return b > 0 ? stats_median(mr->st[ST_P99], (size_t)mr->n) / b : -1;
}

/*
 * The table: four latency columns in unit U, the p99 over the baseline's
 * (nohuge: base pages always), then counts and deltas; a row per mode asked
 * for, in the order asked, with "-" for a mode no run of which completed.
 */
static void faults_rows(struct lab_result *r, const enum lab_mode *modes, size_t nmodes,
			const struct mode_res *res, size_t nch, const struct lat_unit *u)
{
	static const char *const st_name[ST_N] = {"median", "p90", "p99", "max"};
	for (int st = 0; st < ST_N; st++)
		lab_col_add(r, st_name[st], u->name);
	static const struct lab_coldef counts[7] = {
		{"p99 vs nohuge", "x"},	 {"huge", ""},		{"fallback", ""},
		{"compact_stall", "+"},	 {"compact_fail", "+"}, {"thp_fault_fallback", "+"},
		{"thp_fault_alloc", "+"}};
	int col[7];
	lab_cols_add(r, counts, 7, col);
	for (size_t m = 0; m < nmodes; m++) {
		const struct mode_res *mr = &res[modes[m]];
		int row = lab_row_add(r, lab_mode_name(modes[m]));
		if (!mr->n) {
			lab_proof(r, lab_mode_name(modes[m]),
				  "no run completed (see the run proofs)");
			r->partial = true;
			continue;
		}
		for (int st = 0; st < ST_N; st++) {
			double v[MAX_RUNS];
			for (int k = 0; k < mr->n; k++)
				v[k] = mr->st[st][k] / u->div;
			lab_cell_set(r, row, st, v, (size_t)mr->n);
		}
		double tail = faults_tail_ratio(mr, &res[MODE_NOHUGE]);
		if (tail >= 0)
			lab_cell_set1(r, row, col[0], tail);
		const double *cells[6] = {mr->huge, mr->fallback, mr->cs, mr->cf, mr->fb, mr->fa};
		for (int c = 0; c < 6; c++)
			lab_cell_set(r, row, col[c + 1], cells[c], (size_t)mr->n);
		faults_proof(r, modes[m], mr, nch, u);
	}
}

/*
 * "; tail flagged: madv p99 0.42 ms over nohuge's 0.30 ms (1.40x; 95% CI
 * 1.1-1.9x: worse than base pages)" for each mode whose p99 (the table's:
 * the median over runs) is above the baseline's, the interval of the runs'
 * p99s saying whether that is beyond their spread.
 */
static void faults_tail_flags(char *out, size_t n, const struct mode_res *res,
			      const struct lat_unit *u)
{
	const struct mode_res *base = &res[MODE_NOHUGE];
	size_t off = 0;
	out[0] = '\0';
	for (int m = 0; m < MODE_NMODES; m++) {
		double t = m == MODE_NOHUGE ? -1 : faults_tail_ratio(&res[m], base);
		if (t <= 1)
			continue;
		char a[24], b[24], iv[96];
		fmt_lat(a, sizeof(a), stats_median(res[m].st[ST_P99], (size_t)res[m].n), u);
		fmt_lat(b, sizeof(b), stats_median(base->st[ST_P99], (size_t)base->n), u);
		struct ratio_ci ci;
		if (stats_ratio_ci(base->st[ST_P99], (size_t)base->n, res[m].st[ST_P99],
				   (size_t)res[m].n, 0.95, &ci) ||
		    !ci.ok)
			lab_fmt(iv, sizeof(iv), "too few runs for a 95%% interval");
		else
			lab_fmt(iv, sizeof(iv), "95%% CI %.2f-%.2fx: %s", ci.lo, ci.hi,
				ci.lo > 1 ? "worse than base pages" : "within the runs' spread");
		lab_catf(out, n, &off, "; tail flagged: %s p99 %s over nohuge's %s (%.2fx; %s)",
			 lab_mode_name((enum lab_mode)m), a, b, t, iv);
	}
}

/* "madv THP (64/64 huge)", "plain base pages (0/64 huge)", "madv mixed (40/64 huge)". */
static void faults_what(char *out, size_t n, enum lab_mode m, const struct mode_res *mr, size_t nch)
{
	lab_fmt(out, n, "%s %s (%.0f/%zu chunks huge)", lab_mode_name(m), faults_backing(mr, nch),
		stats_median(mr->huge, (size_t)mr->n), nch);
}

/* The expected shape under this host's policy (FRAG: under the fragmenter), in the table's unit U. */
static void faults_verdict(struct lab_result *r, const struct mode_res *res, size_t nch,
			   const char *pol, bool frag, uint64_t left_max, const struct lat_unit *u)
{
	bool always = strcmp(pol, "always") == 0, never = strcmp(pol, "never") == 0;
	const struct mode_res *ma = &res[MODE_MADV], *pl = &res[MODE_PLAIN],
			      *nh = &res[MODE_NOHUGE];
	if (!ma->n || !pl->n || !nh->n) {
		lab_verdict(r, false, "UNEXPECTED: not every mode ran (see the proofs)");
		return;
	}
	size_t na = (size_t)ma->n;
	double mh = stats_median(ma->huge, na), ph = stats_median(pl->huge, (size_t)pl->n),
	       nhh = stats_median(nh->huge, (size_t)nh->n);
	double mcs = stats_median(ma->cs, na), mcf = stats_median(ma->cf, na),
	       mfb = stats_median(ma->fb, na), mfbk = stats_median(ma->fallback, na);
	char a1[24], a2[24], a3[24], a4[24], a5[24], a6[24], wa[64], wp[64], wn[64], tail[384];
	fmt_lat(a1, sizeof(a1), stats_median(ma->st[ST_MED], na), u);
	fmt_lat(a2, sizeof(a2), stats_median(ma->st[ST_P99], na), u);
	fmt_lat(a3, sizeof(a3), stats_median(ma->st[ST_MAX], na), u);
	fmt_lat(a4, sizeof(a4), stats_median(pl->st[ST_MED], (size_t)pl->n), u);
	fmt_lat(a5, sizeof(a5), stats_median(nh->st[ST_MED], (size_t)nh->n), u);
	fmt_lat(a6, sizeof(a6), stats_median(nh->st[ST_P99], (size_t)nh->n), u);
	faults_what(wa, sizeof(wa), MODE_MADV, ma, nch);
	faults_what(wp, sizeof(wp), MODE_PLAIN, pl, nch);
	faults_what(wn, sizeof(wn), MODE_NOHUGE, nh, nch);
	faults_tail_flags(tail, sizeof(tail), res, u);
	char scs[24], scf[24], sfb[24];
	lab_fmt_delta(scs, sizeof(scs), mcs);
	lab_fmt_delta(scf, sizeof(scf), mcf);
	lab_fmt_delta(sfb, sizeof(sfb), mfb);
	if (!frag) {
		bool ok = (never || mh >= (double)nch * 0.9) && (always || ph == 0) && nhh == 0;
		lab_verdict_ok(
			r, ok,
			"%s: median chunk %s, p99 %s; %s, enabled=%s: median %s; %s: median %s, p99 %s%s; madv host-wide compact_stall %s (the table's figures: each run's median and p99 chunk, the median over %zu runs; proof: smaps AnonHugePages, host-wide vmstat deltas)",
			wa, a1, a2, wp, pol, a4, wn, a5, a6, tail, scs, na);
	} else {
		/* fragmented: advised faults either stall in compaction or fall back */
		bool ok = never || mcs > 0 || mfbk > 0;
		bool unread = !ok && isnan(mcs); /* no fallback seen, the stalls unknown */
		lab_verdict(
			r, ok,
			"%s under the fragmenter (%llu free PMD-order blocks by buddyinfo before a run at most): %s: host-wide compact_stall %s, compact_fail %s, p99 %s, max %s (median %s); %.0f/%zu chunks fell back (thp_fault_fallback %s); %s: median %s; %s: median %s, p99 %s%s (the median over %zu runs)",
			ok	 ? "as expected"
			: unread ? "inconclusive: no fallback and compact_stall unread"
				 : "UNEXPECTED: no compaction and no fallback",
			(unsigned long long)left_max, wa, scs, scf, a2, a3, a1, mfbk, nch, sfb, wp,
			a4, wn, a5, a6, tail, na);
		r->inconclusive = unread;
	}
}

void faults_table(struct lab_result *r, const enum lab_mode *modes, size_t nmodes,
		  const struct mode_res *res, size_t nch, const char *policy, bool frag,
		  uint64_t left_max)
{
	struct lat_unit u = faults_unit(modes, nmodes, res);
	faults_rows(r, modes, nmodes, res, nch, &u);
	faults_verdict(r, res, nch, policy, frag, left_max, &u);
}
