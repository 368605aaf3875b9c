// SPDX-License-Identifier: MIT
#include "ab.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../util/names.h"
#include "../util/str.h"

/*
 * The value of the top-level key "enabled" in a host: mode's KEY=VALUE,... list ARG, into
 * V (up to its size); false when ARG does not set it. Only that key moves AnonHugePages
 * one way for every program: defrag decides who stalls, not whether THP is allocated;
 * shmem_enabled is not anonymous memory; a per-size hugepages-<size>kB/enabled is mTHP,
 * which AnonHugePages does not count (PMD size only, and the model does not know which
 * size that is).
 */
static bool set_enabled(const char *arg, char *v, size_t len)
{
	for (const char *p = arg; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
		if (strncmp(p, "enabled=", 8) != 0)
			continue;
		size_t n = strcspn(p + 8, ",");
		if (n >= len)
			return false;
		memcpy(v, p + 8, n);
		v[n] = '\0';
		return true;
	}
	return false;
}

enum ab_intent ab_kind_intent(enum ab_kind k, const char *arg)
{
	char v[16];
	switch (k) {
	case AB_OFF:
		return AI_LESS;
	case AB_EXCEPT_ADVISED:
		/*
		 * No direction: the mode leaves THP where CMD asks for it
		 * (MADV_HUGEPAGE) and disables it elsewhere. A CMD that madvises
		 * all of its memory gets 100% huge-backed, exactly as intended;
		 * one that madvises nothing gets 0%. AnonHugePages is a total over
		 * the tree and cannot tell advised regions from the rest, so no
		 * share, nor a share beside host's (whose sampled peak may be
		 * lower by noise, or which may not be among the modes), can
		 * contradict the mode: never flagged.
		 */
		return AI_NONE;
	case AB_GLIBC:
		return AI_MORE;
	case AB_SET: /* enabled=always: more; enabled=never: less; any other key: no direction */
		if (!set_enabled(arg, v, sizeof(v)))
			return AI_NONE;
		return strcmp(v, "always") == 0	 ? AI_MORE
		       : strcmp(v, "never") == 0 ? AI_LESS
						 : AI_NONE;
	case AB_ENV: /* allocator opt-ins: MALLOC_CONF=thp:always, MIMALLOC_ALLOW_THP=1 */
		return arg && (strstr(arg, "thp:always") || strstr(arg, "hugetlb=1") ||
			       strstr(arg, "ALLOW_THP=1"))
			       ? AI_MORE
			       : AI_NONE;
	default:
		return AI_NONE;
	}
}

const char *ab_counter_name(enum ab_counter c)
{
	static const char *const names[] = {[AC_FAULT_ALLOC] = "thp_fault_alloc",
					    [AC_FAULT_FALLBACK] = "thp_fault_fallback",
					    [AC_COMPACT_STALL] = "compact_stall",
					    [AC_SPLIT_PMD] = "thp_split_pmd",
					    [AC_COLLAPSE_ALLOC] = "thp_collapse_alloc"};
	return ENUM_NAME(names, c, "?");
}

const char *ab_verdict_name(enum ab_verdict v)
{
	static const char *const names[] = {[AV_BASE] = "base",
					    [AV_FASTER] = "faster",
					    [AV_SLOWER] = "slower",
					    [AV_NO_DIFFERENCE] = "no-difference",
					    [AV_INCONCLUSIVE] = "inconclusive",
					    [AV_TOO_FEW] = "too-few-runs",
					    [AV_NOT_RUN] = "not-run"};
	return ENUM_NAME(names, v, "?");
}

const char *ab_metric_why_name(enum ab_metric_why w)
{
	static const char *const names[] = {[AMW_KNOWN] = NULL,
					    [AMW_NO_RUN] = "no-good-run",
					    [AMW_NO_MATCH] = "no-match",
					    [AMW_NOT_NUMBER] = "not-a-number",
					    [AMW_UNREAD] = "output-unread"};
	return ENUM_NAME(names, w, NULL);
}

const char *ab_fail_name(enum ab_fail f)
{
	static const char *const names[] = {[AF_NONE] = NULL,
					    [AF_EXIT] = "exit",
					    [AF_SIGNAL] = "signal",
					    [AF_TIMEOUT] = "timeout",
					    [AF_NOT_STARTED] = "not-started"};
	return ENUM_NAME(names, f, NULL);
}

const char *ab_metric_call_name(const struct ab_summary *s, int k, bool higher_better)
{
	if (s->verdict == AV_BASE || s->verdict == AV_NOT_RUN)
		return NULL;
	switch (s->metric_call[k]) {
	case CI_TOO_FEW:
		return s->metric_noratio[k] == ANR_BASE_NONE	  ? "base-unknown"
		       : s->metric_noratio[k] == ANR_NOT_POSITIVE ? "no-ratio"
								  : "too-few-values";
	case CI_WITHIN:
		return "no-difference";
	case CI_TOO_WIDE:
		return "inconclusive";
	default:
		return (s->metric_call[k] == CI_ABOVE) == higher_better ? "better" : "worse";
	}
}

/* ab_verdict_name(), with less and more memory for faster and slower. */
const char *ab_mem_name(enum ab_verdict v)
{
	return v == AV_FASTER ? "less-memory" : v == AV_SLOWER ? "more-memory" : ab_verdict_name(v);
}

/* "0".."100" (digits only) into *P. 0 or -EINVAL. */
static int sweep_percent(const char *s, int *p)
{
	int v = 0, k = 0;
	for (; s[k]; k++) {
		if (s[k] < '0' || s[k] > '9' || k >= 3)
			return -EINVAL;
		v = v * 10 + (s[k] - '0');
	}
	if (!k || v > 100)
		return -EINVAL;
	*p = v;
	return 0;
}

int ab_mode_parse(const char *word, struct ab_mode *m)
{
	memset(m, 0, sizeof(*m));
	if (!str_copy(m->name, sizeof(m->name), word))
		return -EINVAL;
	const char *colon = strchr(m->name, ':');
	if (!strcmp(word, "host"))
		m->kind = AB_HOST;
	else if (!strcmp(word, "off"))
		m->kind = AB_OFF;
	else if (!strcmp(word, "except-advised"))
		m->kind = AB_EXCEPT_ADVISED;
	else if (!strcmp(word, "glibc"))
		m->kind = AB_GLIBC;
	else if (!strncmp(word, "env:", 4) && colon[1] && strchr(colon + 1, '=') &&
		 strchr(colon + 1, '=') != colon + 1)
		m->kind = AB_ENV;
	else if (!strncmp(word, "host:", 5) && colon[1] && strchr(colon + 1, '='))
		m->kind = AB_SET;
	else if (!strncmp(word, "sweep:", 6) && sweep_percent(colon + 1, &m->percent) == 0)
		m->kind = AB_SWEEP;
	else
		return -EINVAL;
	if (m->kind != AB_SWEEP)
		m->percent = -1;
	m->sweep_point = m->kind == AB_SWEEP;
	m->arg = colon ? colon + 1 : NULL;
	return 0;
}

/* Whether the piece W of a --modes list starts a mode (else it continues a host: mode). */
static bool starts_mode(const char *w)
{
	static const char *const words[] = {"host", "off", "except-advised", "glibc"};
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(w, words[i]))
			return true;
	return !strncmp(w, "env:", 4) || !strncmp(w, "host:", 5) || !strncmp(w, "sweep:", 6) ||
	       !strchr(w, '=');
}

int ab_modes_split(const char *list, char (*out)[AB_NAME_LEN], int max)
{
	int n = 0;
	const char *p = list;
	if (!*list)
		return -EINVAL;
	for (;;) {
		size_t len = strcspn(p, ",");
		char w[AB_NAME_LEN];
		if (!len || len >= sizeof(w))
			return -EINVAL;
		memcpy(w, p, len);
		w[len] = '\0';
		if (n > 0 && !strncmp(out[n - 1], "host:", 5) && !starts_mode(w)) {
			size_t have = strlen(out[n - 1]);
			if (have + 1 + len >= AB_NAME_LEN)
				return -EINVAL;
			out[n - 1][have] = ',';
			memcpy(out[n - 1] + have + 1, w, len + 1);
		} else {
			if (n >= max)
				return -E2BIG;
			memcpy(out[n++], w, len + 1);
		}
		if (!p[len])
			return n;
		p += len + 1;
	}
}

void ab_stat_of(double *v, int n, struct ab_stat *s)
{
	memset(s, 0, sizeof(*s));
	if (n <= 0)
		return;
	struct summary sum;
	summarize(v, (size_t)n, &sum);
	s->ok = true;
	s->med = sum.median;
	s->min = sum.min;
	s->max = sum.max;
}

static enum ab_verdict verdict_of(const struct ratio_ci *ci)
{
	switch (stats_ci_call(ci, AB_SAME_WITHIN)) {
	case CI_BELOW:
		return AV_FASTER;
	case CI_ABOVE:
		return AV_SLOWER;
	case CI_WITHIN:
		return AV_NO_DIFFERENCE;
	case CI_TOO_WIDE:
		return AV_INCONCLUSIVE;
	default:
		return AV_TOO_FEW;
	}
}

/* The measures of M's runs, one array each. */
static void summarize_mode(const struct ab_mode *m, int nmetrics, struct ab_summary *s)
{
	double w[AB_MAX_RUNS], u[AB_MAX_RUNS], y[AB_MAX_RUNS], r[AB_MAX_RUNS], f[AB_MAX_RUNS],
		a[AB_MAX_RUNS], sh[AB_MAX_RUNS];
	int n = 0, na = 0, ns = 0;
	for (int i = 0; i < m->nruns; i++) {
		const struct ab_run *x = &m->runs[i];
		if (!x->ok)
			continue;
		w[n] = x->wall_s;
		u[n] = x->user_s;
		y[n] = x->sys_s;
		r[n] = (double)x->maxrss_kb;
		f[n] = (double)x->minflt;
		n++;
		if (x->ahp_peak_kb >= 0) {
			a[na++] = (double)x->ahp_peak_kb;
			if (x->anon_peak_kb > 0)
				sh[ns++] = (double)x->ahp_peak_kb / (double)x->anon_peak_kb;
		}
	}
	ab_stat_of(w, n, &s->wall);
	ab_stat_of(u, n, &s->user);
	ab_stat_of(y, n, &s->sys);
	ab_stat_of(r, n, &s->maxrss);
	ab_stat_of(f, n, &s->minflt);
	ab_stat_of(a, na, &s->ahp);
	ab_stat_of(sh, ns, &s->share);
	s->proof_unknown = na == 0;
	s->moot_rss_kb = -1;
	for (int c = 0; c < AC_N; c++) {
		double d[AB_MAX_RUNS];
		int nd = 0;
		for (int i = 0; i < m->nruns; i++)
			if (m->runs[i].ok && m->runs[i].delta[c] >= 0)
				d[nd++] = (double)m->runs[i].delta[c];
		struct ab_stat st;
		ab_stat_of(d, nd, &st);
		s->delta_med[c] = st.ok ? (int64_t)(st.med + 0.5) : -1;
	}
	for (int k = 0; k < nmetrics; k++) {
		double v[AB_MAX_RUNS];
		int nv = 0;
		struct ab_metric_count *mc = &s->metric_n[k];
		for (int i = 0; i < m->nruns; i++) {
			const struct ab_run *x = &m->runs[i];
			if (!x->ok)
				continue;
			mc->runs++;
			mc->not_number += x->metric_got[k] == AM_NOT_NUMBER;
			mc->unread += x->metric_got[k] == AM_UNREAD;
			if (x->metric_got[k] == AM_VALUE)
				v[nv++] = x->metric[k];
		}
		mc->matched = nv;
		ab_stat_of(v, nv, &s->metric[k]);
		mc->why = nv		   ? AMW_KNOWN
			  : !mc->runs	   ? AMW_NO_RUN
			  : mc->not_number ? AMW_NOT_NUMBER
			  : mc->unread	   ? AMW_UNREAD
					   : AMW_NO_MATCH;
	}
}

/* The finite values of measure WHICH (0 wall, 1 + k: metric k, -1 peak RSS) of M's good runs. */
static int values(const struct ab_mode *m, int which, double *out)
{
	int n = 0;
	for (int i = 0; i < m->nruns; i++) {
		const struct ab_run *x = &m->runs[i];
		if (!x->ok)
			continue;
		if (which == -1) {
			if (x->maxrss_kb)
				out[n++] = (double)x->maxrss_kb;
		} else if (which == 0)
			out[n++] = x->wall_s;
		else if (x->metric_got[which - 1] == AM_VALUE)
			out[n++] = x->metric[which - 1];
	}
	return n;
}

/*
 * Whether no process of M's good runs could have held a PMD THP: each run's peak RSS (wait4's
 * maxrss, the largest of the command's waited-for processes) and its tree's sampled Anonymous
 * (a sample in every run) under M's PMD size. *RSS: the largest of those peak RSSes, kB.
 */
static bool under_one_pmd(const struct ab_mode *m, int64_t *rss)
{
	int good = 0;
	if (!m->pmd_kb)
		return false;
	for (int i = 0; i < m->nruns; i++) {
		const struct ab_run *x = &m->runs[i];
		if (!x->ok)
			continue;
		if (x->maxrss_kb >= m->pmd_kb || x->anon_max_kb < 0 ||
		    (uint64_t)x->anon_max_kb >= m->pmd_kb)
			return false;
		if ((int64_t)x->maxrss_kb > *rss)
			*rss = (int64_t)x->maxrss_kb;
		good++;
	}
	return good > 0;
}

void ab_summarize(const struct ab_mode *m, int n, int nmetrics, struct ab_summary *s)
{
	int base = -1;
	for (int i = 0; i < n; i++) {
		memset(&s[i], 0, sizeof(s[i]));
		summarize_mode(&m[i], nmetrics, &s[i]);
		bool ran = !m[i].skipped && !m[i].failed && s[i].wall.ok;
		if (!ran) {
			s[i].verdict = s[i].mem_verdict = AV_NOT_RUN;
			continue;
		}
		if (base < 0) {
			base = i;
			s[i].verdict = s[i].mem_verdict = AV_BASE;
			continue;
		}
		double x[AB_MAX_RUNS], y[AB_MAX_RUNS];
		int nx = values(&m[base], 0, x), ny = values(&m[i], 0, y);
		stats_ratio_ci(x, (size_t)nx, y, (size_t)ny, 0.95, &s[i].ci);
		s[i].verdict = verdict_of(&s[i].ci);
		nx = values(&m[base], -1, x);
		ny = values(&m[i], -1, y);
		stats_ratio_ci(x, (size_t)nx, y, (size_t)ny, 0.95, &s[i].rss_ci);
		s[i].mem_verdict = verdict_of(&s[i].rss_ci);
		for (int k = 0; k < nmetrics; k++) {
			nx = values(&m[base], 1 + k, x);
			ny = values(&m[i], 1 + k, y);
			stats_ratio_ci(x, (size_t)nx, y, (size_t)ny, 0.95, &s[i].metric_ci[k]);
			s[i].metric_call[k] = stats_ci_call(&s[i].metric_ci[k], AB_SAME_WITHIN);
			bool pos = true;
			for (int j = 0; j < nx; j++)
				pos &= x[j] > 0;
			for (int j = 0; j < ny; j++)
				pos &= y[j] > 0;
			s[i].metric_noratio[k] = !nx	? ANR_BASE_NONE
						 : !pos ? ANR_NOT_POSITIVE
							: ANR_FEW;
		}
	}
	/* proofs: does AnonHugePages move the way the mode intends? */
	for (int i = 0; i < n; i++) {
		if (s[i].verdict == AV_NOT_RUN || s[i].proof_unknown)
			continue;
		enum ab_intent in = ab_kind_intent(m[i].kind, m[i].arg);
		double mine = s[i].ahp.med;
		if (in == AI_LESS)
			s[i].proof_contradicts = s[i].ahp.max > 0;
		else if (in == AI_MORE)
			s[i].proof_contradicts =
				mine <= 0 || (base >= 0 && base != i && s[base].ahp.ok &&
					      mine <= s[base].ahp.med);
		/* none, and none possible: never a PMD's worth of memory in a process */
		int64_t rss = -1;
		if (in == AI_MORE && s[i].proof_contradicts && mine <= 0 &&
		    under_one_pmd(&m[i], &rss)) {
			s[i].proof_contradicts = false;
			s[i].proof_moot = true;
			s[i].moot_rss_kb = rss;
		}
	}
}
