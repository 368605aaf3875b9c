/* SPDX-License-Identifier: MIT */
/*
 * One measured touch of a fresh region, the shape the experiments repeat:
 * map, advise, touch (timed, minor faults counted, vmstat around it), measure
 * (the region's smaps, kpageflags folios as root), unmap. The experiment
 * turns the shot into cells and proofs.
 */
#ifndef THPCTL_LAB_SHOT_H
#define THPCTL_LAB_SHOT_H

#include <stdbool.h>
#include <stddef.h>

#include "lab.h"
#include "proof.h"
#include "region.h"

/* What to do. */
struct shot_spec {
	size_t size;	    /* bytes (whole PMDs) */
	enum lab_mode mode; /* advice before the touch; MODE_COLLAPSE: MADV_COLLAPSE after it */
	size_t stride;	    /* one write every STRIDE bytes (when TOUCH is NULL) */
	bool snaps;	    /* vmstat + per-size stats snapshots right around the touch */
	bool folios;	    /* kpageflags folios afterwards (root) */
	/* instead of the strided write (its time still measured around it) */
	void (*touch)(struct region *reg, void *arg);
	/* after smaps, before the unmap: look at the region once more */
	void (*inspect)(struct region *reg, void *arg);
	void *arg;
};

/* What happened. */
struct shot {
	int err;	  /* 0, or -errno of the step that failed */
	bool smaps_err;	  /* ERR came from reading smaps (the touch itself ran) */
	int thp_enabled;  /* 1 unless PR_SET_THP_DISABLE was set in the toucher */
	double ms;	  /* the touch (and the collapse for MODE_COLLAPSE) */
	long faults;	  /* minor faults during it */
	size_t touches;	  /* strided writes */
	struct snap a, b; /* with SNAPS: before and after the touch */
	struct region_smaps rs;
	struct folio_counts fc;
	int fc_err; /* -ENODATA when FOLIOS was not asked */
};

/* Take one shot of SP into OUT (free with shot_free). Returns OUT->err. */
int shot_take(const struct lab_ctx *ctx, const struct shot_spec *sp, struct shot *out);

/* Free the snapshots of S. */
void shot_free(struct shot *s);

/* The vmstat delta of counter NAME across the touch: NAN (unknown) when absent or not taken. */
double shot_delta(const struct shot *s, const char *name);

/* A failed shot as R's proof LABEL ("smaps: ..." or "failed: ..."); marks R partial. */
void shot_fail_proof(struct lab_result *r, const char *label, const struct shot *s);

/*
 * shot_take(), and when it fails, OUT as R's proof LABEL (shot_fail_proof)
 * and freed. Returns OUT->err.
 */
int shot_take_or_fail(const struct lab_ctx *ctx, const struct shot_spec *sp, struct shot *out,
		      struct lab_result *r, const char *label);

struct frag;
/* How shot_runs() repeats one mode's shot. */
struct shot_runs {
	const char *name;   /* the experiment, for the progress line */
	int max_runs;	    /* at most this many runs (O->runs) */
	struct frag *f;	    /* the fragmenter, sunk again before each run; NULL: none */
	uint64_t *left_max; /* most free PMD-order blocks F left before a run */
	void (*record)(void *arg, const struct shot *s); /* each shot that worked */
	void *arg;
};

/*
 * Up to RS->max_runs (O->runs) shots of SP, each after a progress line
 * "NAME SIZE[ fragmented]: MODE run I/N" and lab_run_prepare(); RS->record
 * gets each shot; stops at the first that fails (its proof in R).
 */
void shot_runs(const struct lab_ctx *ctx, const struct lab_opts *o, struct lab_result *r,
	       const struct shot_spec *sp, const struct shot_runs *rs);

/* Free OUT's snapshots and keep the rest (smaps, folios, counts) in *LAST, for the proofs. */
void shot_keep(struct shot *last, struct shot *out);

#endif
