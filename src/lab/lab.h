/* SPDX-License-Identifier: MIT */
/*
 * thpctl lab: experiments that allocate, measure, and prove what happened
 * with the region's own smaps entry and /proc/vmstat + per-size stats
 * deltas taken in the same run. Each experiment fills a struct lab_result;
 * renderers print it as a table, JSON or CSV.
 */
#ifndef THPCTL_LAB_H
#define THPCTL_LAB_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../kernel/features.h"
#include "../kernel/kv.h"
#include "../kernel/smaps.h"
#include "../kernel/sysroot.h"
#include "../kernel/thp_settings.h"

/* How a region is prepared before it is touched. */
enum lab_mode {
	MODE_PLAIN,    /* no advice */
	MODE_MADV,     /* MADV_HUGEPAGE */
	MODE_NOHUGE,   /* MADV_NOHUGEPAGE */
	MODE_NOTHP,    /* PR_SET_THP_DISABLE then MADV_HUGEPAGE, in a child */
	MODE_COLLAPSE, /* plain touch, then MADV_COLLAPSE */
	MODE_NMODES
};

const char *lab_mode_name(enum lab_mode m);

/* Memory state before measuring (VMs hand freed memory back to the host). */
enum lab_state {
	STATE_WARM, /* pre-fault and unmap S + 64 MiB right before */
	STATE_COLD, /* wait 6 s for free-page reporting first */
	STATE_ASIS, /* neither */
};

const char *lab_state_name(enum lab_state s);

#define LAB_MAX_SIZES 8

struct lab_opts {
	uint64_t size;		       /* bytes; 0 = the experiment's default */
	uint64_t sizes[LAB_MAX_SIZES]; /* --size A,B,C (chase); nsizes 0 = default */
	int nsizes;
	int runs;	 /* repetitions, default 5 */
	bool runs_given; /* --runs: exactly RUNS (chase: no sequential stopping) */
	enum lab_state state;
	bool state_given;
	bool fragment;		    /* run under the fragmenter (root) */
	bool reclaim;		    /* split: trigger the shrinkers afterwards (root) */
	bool sparse;		    /* collapse: 1 page in 512 present */
	int timeout_s;		    /* khugepaged: give up after this */
	long scan_sleep_ms;	    /* khugepaged: -1 = leave as is */
	long max_ptes_none;	    /* khugepaged: -1 = leave as is */
	uint64_t steps;		    /* chase: dependent loads per measurement, 0 = default (20M) */
	uint64_t mthp_sizes_kb[16]; /* mthp: --sizes; n 0 = every size offered */
	int n_mthp_sizes;
	bool quiet; /* no progress on stderr */
	bool quick; /* `lab quick` or --quick: the experiment's quick sizes (redis: 1 round) */
};

/* What every experiment needs to know about the host. */
struct lab_ctx {
	const struct sysroot *sr; /* live */
	const struct features *feat;
	const struct thp_settings *thp; /* as found at start */
	long page_size;			/* bytes */
	uint64_t pmd_size;		/* bytes */
	bool root;
	bool can_write;	    /* root and the THP files writable: host changes possible */
	char no_write[200]; /* why not, when can_write is false: "needs root", "another
			     * thpctl, pid 1234 (lab quick), is changing settings" */
};

/* One measured value: median with min-max over runs, or a single value. */
struct lab_cell {
	bool present;
	double median, min, max;
	bool range; /* min/max meaningful (more than one run) */
};

struct lab_col {
	char name[32];
	char unit[12]; /* "ms", "ns", "kB", "" for counts */
};

#define LAB_MAX_COLS 12
#define LAB_MAX_ROWS 16
#define LAB_MAX_PROOFS 32
#define LAB_MAX_CLAIMS 6
#define LAB_VERDICT_LEN 4096

/* What this host's run says about a published claim. */
enum claim_call { CLAIM_CONFIRMED, CLAIM_CONTRADICTED, CLAIM_INCONCLUSIVE };

const char *claim_call_name(enum claim_call c); /* "confirmed", "contradicted", "inconclusive" */

/*
 * A published claim beside this host's figure: CLAIM as the report put it,
 * SOURCE naming the report by what it measured ("Redis 7.2, 150k ops/s,
 * kernel 6.8"), HERE this run's figure, CALL, and WHY the evidence behind
 * the call (for inconclusive: what could not decide it).
 */
struct lab_claim {
	char claim[128];
	char source[96];
	char here[320]; /* shrinker: two phases of ~110 bytes; a longer one ends in "..." */
	enum claim_call call;
	char why[320];
};

struct lab_row {
	char label[40];
	struct lab_cell c[LAB_MAX_COLS];
	int runs; /* this row's own runs (chase: one per size); 0: the experiment's, lab_result.runs */
};

struct lab_proof {
	char key[64];
	char value[512]; /* a longer one ends in "..." (lab_proof): never cut silently */
};

/* What a series holds, and so which chart `--report` draws from it. */
enum lab_series_kind {
	LAB_SER_CDF,	 /* y: samples of one distribution (a CDF, log x); x unused */
	LAB_SER_LINE,	 /* (x, y) points in x order (lines) */
	LAB_SER_SAMPLES, /* y: per-run samples of one mode (a strip plot) */
};

#define LAB_MAX_SERIES 12
#define LAB_SERIES_POINTS 256 /* kept per series; a CDF keeps this many quantiles */

/*
 * Numbers behind a chart of `--report`: series with the same CHART id are
 * drawn together. Bounded: a CDF of more than LAB_SERIES_POINTS samples
 * keeps LAB_SERIES_POINTS of them, evenly spaced by rank (the smallest and
 * the largest among them); n_total says how many there were.
 */
struct lab_series {
	char chart[24];	 /* "cdf", "chase": the chart it is drawn on */
	char name[40];	 /* legend: "madv fresh", "huge" */
	char xunit[12];	 /* "MiB", "s" (LINE) */
	char yunit[12];	 /* "ns", "kB" */
	char xlabel[24]; /* axis title: "size", "time" (LINE) */
	char ylabel[32]; /* "fault latency per chunk", "AnonHugePages" */
	enum lab_series_kind kind;
	int n;
	size_t n_total; /* samples before thinning (CDF, SAMPLES) */
	double x[LAB_SERIES_POINTS], y[LAB_SERIES_POINTS];
};

struct lab_result {
	char experiment[24];
	char title[160];
	char state[16];
	uint64_t size; /* bytes */
	int runs;
	int ncols;
	struct lab_col cols[LAB_MAX_COLS];
	int nrows;
	struct lab_row rows[LAB_MAX_ROWS];
	int nproofs;
	struct lab_proof proofs[LAB_MAX_PROOFS];
	char col_scope
		[16]; /* what non-delta columns measure: "" = "region"; "program" (workloads) */
	int nclaims;
	struct lab_claim claims[LAB_MAX_CLAIMS]; /* workloads: published claims vs here */
	int nseries;
	struct lab_series series[LAB_MAX_SERIES];
	/* chase: a clause of up to LAB_CLAUSE_LEN per size, 8 sizes (chase_verdict.c asserts it,
	 * tests/unit/test_chase_verdict.c checks the longest whole); tlb: a clause per page size, up to 5 of ~90 bytes. lab_verdict() ends a longer
	 * one in "...": never cut silently */
	char verdict[LAB_VERDICT_LEN];
	/* workloads: the one line for an operator, from the claim calls ("" none) */
	char advice[240];
	bool expected; /* the result has the expected shape */
	/* the measurements could not decide (too few runs, noise, nothing seen): not expected, and
	 * not "unexpected" either */
	bool inconclusive;
	bool skipped; /* not run here: verdict says why */
	bool optional; /* skipped for a program this host lacks (a workload): fails only when asked alone */
	bool partial; /* some proof could not be read */
	double wall_ms;
	double cpu_ms; /* user + system CPU of thpctl and its waited-for children in the run */
	bool load_ok;  /* sysinfo(2) answered before and after */
	double load_before[3], load_after[3]; /* host load average (1, 5, 15 min) around the run */
};

/* The host's load average (1, 5, 15 min) into L from sysinfo(2). 0 or -errno. */
int lab_loadavg(double l[3]);

/* User + system CPU time (ms) of this process and its waited-for children so far (getrusage). */
double lab_cpu_ms(void);

/*
 * Builders (pure). lab_col_add returns the column index, or -1 when full or
 * when NAME or UNIT does not fit its field (said on stderr: a cut name would
 * be a JSON key no reader expects).
 */
int lab_col_add(struct lab_result *r, const char *name, const char *unit);
/* A new row; returns its index (-1 when full). */
int lab_row_add(struct lab_result *r, const char *label);
/* Cell from N samples (median, min, max); a NaN is unknown: left out, R partial. */
void lab_cell_set(struct lab_result *r, int row, int col, const double *v, size_t n);
/* Cell from one value. */
void lab_cell_set1(struct lab_result *r, int row, int col, double v);
void lab_proof(struct lab_result *r, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * A claim (see struct lab_claim): HERE is this host's figure, WHY_FMT the
 * proof of CALL. Ignored once LAB_MAX_CLAIMS are there.
 */
void lab_claim(struct lab_result *r, const char *claim, const char *source, const char *here,
	       enum claim_call call, const char *why_fmt, ...)
	__attribute__((format(printf, 6, 7)));
/*
 * The call on a claim from the ratio each round gave, RATIO[0..N) (a round:
 * every mode once, in turn; pure). One ratio is called at or beyond YES
 * confirmed, at or within NO contradicted, between them inconclusive
 * (LOWER_CONFIRMS: the claim predicts a small ratio). The claim's call is
 * that call only when there are two rounds or more and every round gives it:
 * one round is inconclusive ("one round": a load change between the modes is
 * not told apart from the mode), rounds that disagree are inconclusive, and
 * a negative ratio (not measured) is. WHY gets the reason with each round's
 * ratio and the bounds (N may be 0).
 */
enum claim_call lab_claim_call(const double *ratio, int n, bool lower_confirms, double yes,
			       double no, char *why, size_t wn);
/* R's verdict (a longer one than LAB_VERDICT_LEN ends in "..."); EXPECTED as said. */
void lab_verdict(struct lab_result *r, bool expected, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * The runs of R as one count: lab_result.runs when every row that says its
 * own runs says that; -1 when rows differ (JSON null: no one row's value
 * stands for the others). *LO and *HI (may be NULL) get the range (pure).
 */
int lab_runs_of(const struct lab_result *r, int *lo, int *hi);
/*
 * vsnprintf into BUF (N bytes) that never cuts silently: a longer text
 * ends in "..." after a whole UTF-8 character. Returns whether it was cut.
 */
bool lab_vfmt(char *buf, size_t n, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
bool lab_fmt(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/*
 * Append FMT to BUF (N bytes, a string) at *OFF, its length: a text that
 * does not fit ends BUF in "..." and sets *OFF to N, so that later appends
 * add nothing; never cut silently. Returns whether BUF is full.
 */
bool lab_catf(char *buf, size_t n, size_t *off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void lab_skip(struct lab_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* lab_skip for what this host lacks (a program, a package): not expected, and optional. */
void lab_skip_missing(struct lab_result *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * A new series on chart CHART (drawn with the others of that id) named NAME,
 * of KIND, Y in YUNIT labelled YLABEL; X (LINE only; NULL otherwise) in
 * XUNIT labelled XLABEL. N values from Y (and X); a CDF or SAMPLES series
 * of more than LAB_SERIES_POINTS values keeps that many, sorted, evenly
 * spaced by rank; a LINE series keeps the first LAB_SERIES_POINTS. Returns
 * its index, or -1 when the result holds LAB_MAX_SERIES already (pure).
 */
int lab_series_add(struct lab_result *r, const char *chart, const char *name,
		   enum lab_series_kind kind, const char *ylabel, const char *yunit,
		   const double *y, const char *xlabel, const char *xunit, const double *x,
		   size_t n);

struct ratio_ci;

/* What an interval of small/huge times says about "huge faster" (lab_faster_call). */
enum faster_call {
	FASTER_YES,    /* the interval lies above 1: huge faster (by less than R or not) */
	FASTER_SLOWER, /* the interval lies below 1: huge slower */
	FASTER_SAME,   /* it spans 1 inside 1/(1+R) .. 1+R: no difference that matters */
	FASTER_FEW,    /* no interval for so few values, or one too wide for the runs made */
	FASTER_NOISY,  /* too wide, and more runs than an interval takes would be needed */
	FASTER_BAD,    /* no interval: a value was not a positive time */
};

/*
 * The call on CI (stats_ratio_ci(huge, small): small/huge) with R the
 * smallest change that matters (0.10: 10%), before the count decides
 * between FASTER_FEW and FASTER_NOISY: an interval that excludes 1 decides
 * the direction even when it lies within R (a gap measured tightly is a gap:
 * "faster, by less than 10%"), FASTER_SAME only spans 1. CI NULL:
 * FASTER_BAD; !CI->ok: FASTER_FEW; spanning 1 past R: FASTER_FEW (pure).
 */
enum faster_call lab_faster_call(const struct ratio_ci *ci, double r);

/*
 * The runs that would make CI (from RUNS runs) decide at the same spread, an
 * estimate: an interval narrows as 1/sqrt(runs), and it decides once its
 * half-width is under the distance from its estimate to 1 (a direction) or
 * to the nearer bound of R (no difference). 0 when CI has no interval or
 * already decides; capped at 10000 (pure).
 */
int lab_runs_to_decide(const struct ratio_ci *ci, int runs, double r);

/* What lab_faster_clause words. */
struct faster_in {
	const struct ratio_ci *ci; /* NULL: a measurement was not a positive time */
	size_t per_side;	   /* measurements per backing */
	double conf;		   /* the interval's confidence: 0.95 for 95% */
	double huge_ns, small_ns;  /* the medians printed beside it, ns */
	double r;		   /* the smallest change that matters: 0.10 */
	int runs;		   /* the runs behind CI */
	int max_runs;		   /* the most runs an interval takes (--runs, the cap) */
};

/*
 * The words of lab_faster_call on IN into OUT (N bytes; LAB_CLAUSE_LEN
 * holds the longest), with the point from the medians (so the percentage
 * agrees with them): "faster (95% CI 10.4%..21.4%): huge 14.9% faster by
 * the medians (165.0 vs 194.0 ns)". Undecided says why: no interval for so
 * few values (how many CONF needs), too few runs for the spread (about how
 * many would decide: lab_runs_to_decide), or a host too noisy (more than
 * MAX_RUNS would be needed). Returns the enum faster_call (pure).
 */
#define LAB_CLAUSE_LEN 320
int lab_faster_clause(char *out, size_t n, const struct faster_in *in);

/* The fewest values per side for which a CONF interval exists (stats_mw_rank), 0 if none. */
size_t lab_mw_min_per_side(double conf);

/* What one mTHP size's runs showed (lab_mthp_call). */
struct mthp_seen {
	bool folios_read; /* the region's kpageflags were read (root) */
	uint64_t folios;  /* folios of the tested size in the region */
	uint64_t expect;  /* region size / tested size */
	double fallback;  /* host-wide anon_fault_fallback delta (median, >= 0) */
	bool stats;	  /* the host-wide per-size stats were read */
	double min_alloc; /* host-wide anon_fault_alloc delta, fewest over runs */
	uint64_t ahp_kb;  /* the region's AnonHugePages */
	bool others_on;	  /* another anon size (the PMD size too) was still at always */
};

enum mthp_call { MTHP_AS_EXPECTED, MTHP_UNEXPECTED, MTHP_NOT_TESTED };

/*
 * The call on one mTHP size (pure). Never "as expected" without a folio of
 * the tested size in the region: no kpageflags, or no folio while another
 * size was at always, is "not tested"; otherwise the region's folios plus
 * the fallbacks cover the region, nothing is PMD-mapped, and the host-wide
 * count is not below the region's.
 */
enum mthp_call lab_mthp_call(const struct mthp_seen *s);

/* What one khugepaged phase showed (lab_kh_call). */
struct kh_seen {
	bool expect_collapse; /* max_ptes_none allows filling the region's PMDs */
	bool full;	      /* AnonHugePages reached the region's size */
	bool settled;	      /* a whole scan began after the last change and changed nothing */
	uint64_t got;	      /* PMDs collapsed in the region */
	uint64_t full_scans;  /* khugepaged/full_scans advance since the region was set up */
};

enum kh_call {
	KH_FULL,	    /* every PMD collapsed: as expected when allowed */
	KH_NONE_SETTLED,    /* nothing collapsed over a full scan: as expected when forbidden */
	KH_PARTIAL_SETTLED, /* some PMDs, then a full scan changed nothing: unexpected */
	KH_NONE_ALLOWED,    /* nothing collapsed over a full scan although allowed: unexpected */
	KH_FORBIDDEN,	    /* collapsed although max_ptes_none forbids it: unexpected */
	KH_NO_FULL_SCAN,    /* fewer than 2 full_scans: inconclusive */
	KH_CUT_OFF,	    /* still collapsing at the timeout: inconclusive */
};

/*
 * The call on one khugepaged phase (pure): nothing is concluded from a
 * region khugepaged has not been over in full (full_scans +2 covers at least
 * one whole pass begun after the setup), except a full collapse.
 */
enum kh_call lab_kh_call(const struct kh_seen *s);

/* An experiment: fills R. Returns 0, or -errno for a hard failure (R says why). */
typedef int (*lab_fn)(const struct lab_ctx *ctx, const struct lab_opts *o, struct lab_result *r);

/* Quick-mode defaults of one experiment (0: its normal default). */
struct lab_quick {
	uint64_t size;	  /* bytes, used when --size is not given */
	uint64_t steps;	  /* chase: --steps when not given */
	uint64_t mthp_kb; /* mthp: the one size tried when --sizes is not given */
};

/* One experiment-specific option, as `lab --help` lists it. */
struct lab_optdoc {
	const char *flag; /* "--fragment", "--steps N" */
	const char *help; /* "faults/fallback: run under the fragmenter (root)" */
};

#define LAB_MAX_OPTDOCS 4

/*
 * What an experiment changes host-wide as root, for the notice (and the
 * question) before the first change: every process on the host sees it
 * while it lasts. Experiments that only advise their own memory or start
 * their programs with a prctl change nothing host-wide and leave WHAT NULL.
 */
struct lab_host_change {
	/* "hugepages-<size>kB/enabled=always, one size at a time"; NULL: nothing */
	const char *what;
	/* about how long the changed settings hold (s): lab quick or --quick, and otherwise (quick:
	 * from the experiment's wall time in bench/results/lab-quick, fresh boot, rounded up) */
	int quick_s, full_s;
	/* it makes every process's anonymous memory eligible (enabled=always, an mTHP size) */
	bool all;
	/* NULL: whenever it runs as root; else only when this says so */
	bool (*only_if)(const struct lab_opts *o);
};

struct lab_experiment;
/* Whether X run with O changes host-wide settings as root (X->host, pure). */
bool lab_changes_host(const struct lab_experiment *x, const struct lab_opts *o);

/*
 * An experiment: one table entry, defined with LAB_EXPERIMENT_DEFINE() at the end of
 * its own src/lab/exp_NAME.c. Nothing else lists experiments: `lab list`,
 * `lab quick`, `lab all` and `lab --help` walk the entries by ORDER, and
 * tests/unit/test_lab_docs.c checks the README and the man page against them.
 */
struct lab_experiment {
	const char *name; /* what `thpctl lab NAME` takes; < 24 chars */
	const char *help; /* one line for `lab list` and `lab --help` */
	lab_fn fn;
	int order;		/* place in list, quick and all: unique, ascending */
	bool in_quick;		/* `lab quick` runs it */
	struct lab_quick quick; /* its `lab quick` defaults */
	bool size_list;		/* --size takes a list (A,B,C) */
	bool all_cold;		/* `lab all` runs it again cold */
	bool workload;		/* a real program's claims: `lab workloads` runs it */
	struct lab_optdoc opts[LAB_MAX_OPTDOCS]; /* its own options (flag NULL ends) */
	struct lab_host_change host; /* what it changes host-wide (what NULL: nothing) */
};

/* Registers X (a static struct lab_experiment) in the table: put it at the end of the file. */
#define LAB_EXPERIMENT(x)                                                                          \
	static const struct lab_experiment *const x##_entry                                        \
		__attribute__((used, section("thpctl_lab"), aligned(sizeof(void *)))) = &(x)

/*
 * Defines the file's entry, `experiment` (NAME, ORDER, FN, HELP, then any other fields as
 * designated initializers: .in_quick, .quick, .size_list, .all_cold, .opts), and registers it
 * with LAB_EXPERIMENT(): one per exp_NAME.c, at its end.
 */
#define LAB_EXPERIMENT_DEFINE(nm, ord, fun, hlp, ...)                                              \
	static const struct lab_experiment experiment = {                                          \
		.name = (nm), .help = (hlp), .fn = (fun), .order = (ord), __VA_ARGS__};            \
	LAB_EXPERIMENT(experiment)

/* The table in ORDER: the first entry, the one after X (NULL at the end), their count. */
const struct lab_experiment *lab_first(void);
const struct lab_experiment *lab_next(const struct lab_experiment *x);
size_t lab_count(void);
/* The entry named NAME, or NULL. */
const struct lab_experiment *lab_find(const char *name);

/* O with X's `lab quick` defaults wherever the command line left a value open (pure). */
struct lab_opts lab_quick_opts(const struct lab_experiment *x, const struct lab_opts *o);

/*
 * Run X into R (cleared first: name, state, runs, wall time and the load
 * average before and after filled in, the load also as the proof "load"),
 * then put back whatever it changed on the host. Returns X's value, or -EIO
 * when a setting could not be restored.
 */
int lab_run(const struct lab_experiment *x, const struct lab_ctx *ctx, const struct lab_opts *o,
	    struct lab_result *r);

#endif
