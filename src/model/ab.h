/* SPDX-License-Identifier: MIT */
/*
 * `thpctl ab`: a command's runs under THP modes, and what they show. Pure:
 * the command (cmd/ab.c) fills the runs, ab_summarize() computes medians,
 * the interval of each mode's ratio to the first mode (util/stats.h:
 * Hodges-Lehmann with exact Mann-Whitney bounds) and a verdict that can
 * fail, and whether each mode's proof (AnonHugePages) matches its intent.
 */
#ifndef THPCTL_MODEL_AB_H
#define THPCTL_MODEL_AB_H

#include <stdbool.h>
#include <stdint.h>

#include "../util/stats.h"

#define AB_MAX_MODES 8
#define AB_MAX_RUNS STATS_MW_MAX
#define AB_MAX_METRICS 4
#define AB_NAME_LEN 128

enum ab_kind {
	AB_HOST,	   /* no change: the host as it is */
	AB_OFF,		   /* prctl(PR_SET_THP_DISABLE) */
	AB_EXCEPT_ADVISED, /* prctl(PR_SET_THP_DISABLE, 1, PR_THP_DISABLE_EXCEPT_ADVISED), 6.18+ */
	AB_GLIBC,	   /* GLIBC_TUNABLES=glibc.malloc.hugetlb=1 */
	AB_ENV,		   /* env:K=V */
	AB_SET,		   /* host:KEY=VALUE,...: host settings for the run (root, journalled) */
	AB_SWEEP,	   /* sweep:P: LD_PRELOAD thpctl-sweep.so, THPCTL_SWEEP_PERCENT=P */
};

/* What a mode means for huge pages: the direction its proof must show. */
enum ab_intent { AI_NONE, AI_LESS, AI_MORE };

enum ab_intent ab_kind_intent(enum ab_kind k, const char *arg);

/* Host-wide /proc/vmstat counters whose per-run deltas are kept. */
enum ab_counter {
	AC_FAULT_ALLOC,
	AC_FAULT_FALLBACK,
	AC_COMPACT_STALL,
	AC_SPLIT_PMD,
	AC_COLLAPSE_ALLOC,
	AC_N
};
const char *ab_counter_name(enum ab_counter c);

/* What one run's output gave a --metric. */
enum ab_metric_got {
	AM_NO_MATCH,   /* its regex matched nothing in the output */
	AM_VALUE,      /* a number: metric[k] */
	AM_NOT_NUMBER, /* it matched, but the match (its first group) does not read as a number */
	AM_UNREAD,     /* the output could not be read (larger than AB_OUTPUT_MAX, or an error) */
};

#define AB_OUTPUT_MAX (64u << 20) /* bytes of a run's output searched for the metrics */

/* How a mode stopped (its first failed run). */
enum ab_fail {
	AF_NONE,
	AF_EXIT,	/* exited with a non-zero status: code */
	AF_SIGNAL,	/* killed by a signal: code */
	AF_TIMEOUT,	/* ran past --timeout, killed */
	AF_NOT_STARTED, /* could not be started: code, an errno */
};

struct ab_run {
	double wall_s, user_s, sys_s;
	uint64_t maxrss_kb, minflt;
	int64_t ahp_peak_kb;  /* max AnonHugePages of the tree over the samples, -1: none taken */
	int64_t anon_peak_kb; /* its Anonymous at that sample */
	int64_t anon_max_kb;  /* max Anonymous of the tree over the samples, -1: none taken */
	int samples;
	int64_t delta[AC_N]; /* host-wide, -1 unknown */
	double metric[AB_MAX_METRICS];
	enum ab_metric_got metric_got[AB_MAX_METRICS];
	int status; /* wait status */
	bool ok;    /* exited 0 */
};

struct ab_metric {
	char name[32];
	bool higher_better;
	char regex[160];
};

struct ab_mode {
	char name[AB_NAME_LEN]; /* as given: "off", "glibc", "env:K=V", "host:enabled=always" */
	enum ab_kind kind;
	const char *arg; /* after the colon, for env and host */
	bool skipped;
	char skip_reason[200];
	bool failed;	   /* a run failed: the mode stopped */
	enum ab_fail fail; /* how (AF_NONE when it did not) */
	int fail_code;	   /* the exit status, the signal, or the errno (AF_NOT_STARTED) */
	int fail_run;	   /* which run, 0-based, warm-up runs counted first */
	int percent;	   /* sweep:P: P (0..100), else -1 */
	bool sweep_point;  /* in the sweep's fit: sweep:P, or a host setting standing in for it */
	int nruns;
	struct ab_run runs[AB_MAX_RUNS];
	uint64_t
		pmd_kb; /* the host's PMD size (kB), 0 unknown: anon memory below it shows no THP */
};

enum ab_verdict {
	AV_BASE,	  /* the first mode: what the others are compared with */
	AV_FASTER,	  /* interval wholly below 1 (less wall time) */
	AV_SLOWER,	  /* wholly above 1 */
	AV_NO_DIFFERENCE, /* spans 1, within +-3% */
	AV_INCONCLUSIVE,  /* spans 1 and reaches past 3%: too noisy */
	AV_TOO_FEW,	  /* too few runs for an interval */
	AV_NOT_RUN,	  /* skipped or failed */
};

struct ab_stat {
	bool ok;
	double med, min, max;
};

/* Median, min and max of the N values V (finite; V is sorted in place); ok false when N is 0. */
void ab_stat_of(double *v, int n, struct ab_stat *s);

/* Why a mode's metric has no value (AMW_KNOWN: it has one). */
enum ab_metric_why {
	AMW_KNOWN,
	AMW_NO_RUN,	/* no good run */
	AMW_NO_MATCH,	/* the regex matched the output of none of the good runs */
	AMW_NOT_NUMBER, /* it matched, but never a number */
	AMW_UNREAD,	/* some output could not be read, and no other gave a number */
};

/* Over a mode's good runs: how many gave metric K a value, and why not when none did. */
struct ab_metric_count {
	int runs;			 /* good runs */
	int matched, not_number, unread; /* of them: AM_VALUE, AM_NOT_NUMBER, AM_UNREAD */
	enum ab_metric_why why;
};

struct ab_summary {
	struct ab_stat wall, user, sys, maxrss, minflt, ahp, share, metric[AB_MAX_METRICS];
	int64_t delta_med[AC_N]; /* medians, -1 unknown */
	struct ratio_ci ci;	 /* wall of this mode / wall of the first */
	enum ab_verdict verdict;
	struct ratio_ci metric_ci[AB_MAX_METRICS];
	enum ci_call metric_call[AB_MAX_METRICS];
	/* why a metric has no ratio interval (metric_call CI_TOO_FEW): too few values, none
	 * in the base, or a value <= 0 (a ratio needs positive values) */
	enum ab_noratio { ANR_FEW, ANR_BASE_NONE, ANR_NOT_POSITIVE } metric_noratio[AB_MAX_METRICS];
	struct ab_metric_count metric_n[AB_MAX_METRICS];
	bool proof_contradicts; /* the intent (less/more THP) not shown by AnonHugePages */
	bool proof_unknown;	/* no AnonHugePages sample */
	/* more THP intended, none shown, and none could be: in every good run the command's peak
	 * RSS (wait4: its largest process) and its tree's sampled Anonymous stayed under one PMD
	 * size (mode's pmd_kb); the largest of those peak RSSes, kB (-1 when not moot) */
	bool proof_moot;
	int64_t moot_rss_kb;
	/* memory, a verdict of its own: what THP costs beside what it buys */
	struct ratio_ci rss_ci;	     /* peak RSS (MAXRSS) of this mode / the base's */
	enum ab_verdict mem_verdict; /* AV_FASTER: less memory, AV_SLOWER: more (see ab_mem_name) */
};

#define AB_SAME_WITHIN 0.03 /* a ratio within 3% is "no difference" */

/*
 * The huge-backed fraction of RUN (0..1): peak AnonHugePages over peak
 * Anonymous of its process tree (smaps_rollup, sampled); -1 when no sample or
 * no anonymous memory was seen.
 */
double ab_run_fraction(const struct ab_run *run);

#define AB_SWEEP_MIN_SPREAD 0.5 /* measured fractions must span this much for a slope */
#define AB_SWEEP_MAX_POINTS AB_MAX_MODES

/* What the sweep's fit says (ab_sweep_decide). */
enum ab_sweep_call {
	AS_NONE,      /* no sweep modes */
	AS_FASTER,    /* sensitive: huge-backed runs take less wall time (interval below 1) */
	AS_SLOWER,    /* sensitive: huge-backed runs take more (interval above 1) */
	AS_FLAT,      /* the interval within +-AB_SAME_WITHIN: no difference beyond it */
	AS_NOISY,     /* the interval spans 1 and reaches past the resolution, or unbounded */
	AS_NO_SPREAD, /* the measured fractions span less than AB_SWEEP_MIN_SPREAD */
	AS_TOO_FEW,   /* fewer than 3 runs with a measured fraction */
};

/* One sweep point: a sweep:P mode's runs. */
struct ab_sweep_point {
	int mode;    /* index into the modes */
	int percent; /* requested; -1 for a host setting (by_settings) */
	int runs;    /* good runs with a measured fraction */
	struct ab_stat frac, wall;
};

/* The sweep: wall time against the measured huge-backed fraction over every run. */
struct ab_sweep {
	enum ab_sweep_call call;
	int n;			   /* runs in the fit */
	double frac_min, frac_max; /* of the runs in the fit */
	bool extrapolated;   /* the runs did not reach both 0 and 1 (below 0.1, above 0.9): the
			    * 0%-to-100% figure is the line's, beyond what was measured */
	struct linfit fit;   /* wall_s = a + b * fraction */
	struct ratio_ci rel; /* fitted wall at fraction 1 over at 0 (Fieller, 95%) */
	int npoints;
	struct ab_sweep_point points[AB_SWEEP_MAX_POINTS];
	bool by_settings; /* some points are host settings (host:...), not the helper's shares */
};

/*
 * Fit and call the sweep from N runs' measured fractions FRAC (0..1) and wall
 * times WALL (s): least squares, the Fieller interval of the fitted 100%/0%
 * ratio, classified by stats_ci_call at AB_SAME_WITHIN; no slope when the
 * fractions do not spread (AS_NO_SPREAD). Fills OUT's call, n, frac range,
 * fit and rel (not the points). Pure.
 */
void ab_sweep_decide(const double *frac, const double *wall, int n, struct ab_sweep *out);

/* The sweep of the N modes M: the points of its sweep:P modes and ab_sweep_decide over their
 * good runs (OUT->call AS_NONE when no mode is a sweep). Pure. */
void ab_sweep_fit(const struct ab_mode *m, int n, struct ab_sweep *out);

const char *ab_sweep_call_name(enum ab_sweep_call c);

/* Summaries of the N modes M (S[i] for M[i]); the first run mode is the base. */
void ab_summarize(const struct ab_mode *m, int n, int nmetrics, struct ab_summary *s);

/*
 * Split a --modes LIST at its commas into at most MAX mode words in OUT: a
 * piece after a host: mode that is no mode of its own (KEY=VALUE) belongs to
 * that host: mode, so "host:enabled=always,defrag=always,off" is two modes.
 * Returns the count, -EINVAL for an empty list or an empty piece, or a word
 * longer than AB_NAME_LEN, -E2BIG for more than MAX. Pure.
 */
int ab_modes_split(const char *list, char (*out)[AB_NAME_LEN], int max);

/* Parse a --modes word into M (name, kind, arg). Returns 0 or -EINVAL. */
int ab_mode_parse(const char *word, struct ab_mode *m);

const char *ab_verdict_name(enum ab_verdict v);
/* "no-match", "not-a-number", "output-unread", "no-good-run"; NULL for AMW_KNOWN. */
const char *ab_metric_why_name(enum ab_metric_why w);
/* "exit", "signal", "timeout", "not-started"; NULL for AF_NONE. */
const char *ab_fail_name(enum ab_fail f);
/*
 * The call of metric K of a mode against the base, as a word: "better", "worse",
 * "no-difference", "inconclusive", "too-few-values" (S's metric_call and the metric's
 * direction HIGHER_BETTER); NULL for the base or a mode not compared.
 */
const char *ab_metric_call_name(const struct ab_summary *s, int k, bool higher_better);
/* The memory verdict's name: "base", "less-memory", "more-memory", "no-difference", ... */
const char *ab_mem_name(enum ab_verdict v);

#endif
