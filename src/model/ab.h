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

struct ab_run {
	double wall_s, user_s, sys_s;
	uint64_t maxrss_kb, minflt;
	int64_t ahp_peak_kb;  /* max AnonHugePages of the tree over the samples, -1: none taken */
	int64_t anon_peak_kb; /* its Anonymous at that sample */
	int samples;
	int64_t delta[AC_N]; /* host-wide, -1 unknown */
	double metric[AB_MAX_METRICS];
	bool metric_ok[AB_MAX_METRICS];
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
	bool failed; /* a run failed: the mode stopped */
	int nruns;
	struct ab_run runs[AB_MAX_RUNS];
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

struct ab_summary {
	struct ab_stat wall, user, sys, maxrss, minflt, ahp, share, metric[AB_MAX_METRICS];
	int64_t delta_med[AC_N]; /* medians, -1 unknown */
	struct ratio_ci ci;	 /* wall of this mode / wall of the first */
	enum ab_verdict verdict;
	struct ratio_ci metric_ci[AB_MAX_METRICS];
	enum ci_call metric_call[AB_MAX_METRICS];
	bool proof_contradicts; /* the intent (less/more THP) not shown by AnonHugePages */
	bool proof_unknown;	/* no AnonHugePages sample */
	/* memory, a verdict of its own: what THP costs beside what it buys */
	struct ratio_ci rss_ci;	     /* peak RSS (MAXRSS) of this mode / the base's */
	enum ab_verdict mem_verdict; /* AV_FASTER: less memory, AV_SLOWER: more (see ab_mem_name) */
};

#define AB_SAME_WITHIN 0.03 /* a ratio within 3% is "no difference" */

/* Summaries of the N modes M (S[i] for M[i]); the first run mode is the base. */
void ab_summarize(const struct ab_mode *m, int n, int nmetrics, struct ab_summary *s);

/* Parse a --modes word into M (name, kind, arg). Returns 0 or -EINVAL. */
int ab_mode_parse(const char *word, struct ab_mode *m);

const char *ab_verdict_name(enum ab_verdict v);
/* The memory verdict's name: "base", "less-memory", "more-memory", "no-difference", ... */
const char *ab_mem_name(enum ab_verdict v);

#endif
