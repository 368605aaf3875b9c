/* SPDX-License-Identifier: MIT */
/* Helpers shared by the experiments. */
#ifndef THPCTL_LAB_COMMON_H
#define THPCTL_LAB_COMMON_H

#include <stdio.h>

#include "lab.h"
#include "proof.h"
#include "region.h"

/* "512 MiB" for B bytes. */
void lab_fmt_size(char *out, size_t n, uint64_t b);
/* A counter delta V as "+N" / "-N" into OUT, or "-" when V is NaN (unknown). Returns OUT. */
const char *lab_fmt_delta(char *out, size_t n, double v);
/*
 * A figure that cannot be negative (kB, ops/s, ms) with PREC decimals into
 * OUT, or "-" when V is NaN or negative: the -1 of a value not read or a
 * mode that did not run, never printed as a number. Returns OUT.
 */
const char *lab_fmt_num(char *out, size_t n, double v, int prec);

/*
 * Why a verdict over NM modes cannot be given, into WHY (N bytes): the
 * modes (LABEL[k]) that gave no figures (HAVE[k] false): 'no figures from
 * "A", "B" (failed: see the proofs)', or 'no mode gave figures (each
 * failed: see its proof)'; then those that did but whose WHAT was not read
 * (READ[k] false): 'WHAT not read for "C"'; joined by "; ". Returns false,
 * WHY "", when every mode gave figures and every WHAT was read (pure).
 */
bool lab_modes_unknown(char *why, size_t n, const char *const *label, int nm, const bool *have,
		       const bool *read, const char *what);

/* A progress line on stderr (unless quiet): "lab touch: madv run 3/5". */
void lab_progress(const struct lab_opts *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The progress line of run I (from 0) of RUNS: "lab NAME 16 MiB: LABEL run 3/5" (SIZE bytes). */
void lab_progress_run(const struct lab_opts *o, const char *name, uint64_t size, const char *label,
		      int i, int runs);

/* Erase the progress line (on a tty). */
void lab_progress_done(const struct lab_opts *o);

/*
 * "order9 (2048kB) x256, order4 (64kB) x3, small pages x12" from folio counts
 * into OUT (N bytes: LAB_FOLIOS_LEN holds every order 1..10 with 7-digit
 * counts; a longer text ends in "...", never cut silently).
 */
#define LAB_FOLIOS_LEN 320
void lab_fmt_folios(char *out, size_t n, const struct folio_counts *fc, long page_size);

/* Effective anon policy of the PMD size at start ("always", "madvise", "never"), or "?". */
const char *lab_pmd_policy(const struct lab_ctx *ctx);

/* The size to use: O->size or DEF, refused (-E2BIG, message in R) above MemAvailable - margin. */
int lab_size(const struct lab_ctx *ctx, const struct lab_opts *o, uint64_t def,
	     struct lab_result *r, uint64_t *size);

/*
 * An experiment's start: the size as lab_size() gives it (its return value),
 * then, when that succeeded, R's title from FMT.
 */
int lab_begin(const struct lab_ctx *ctx, const struct lab_opts *o, uint64_t def,
	      struct lab_result *r, uint64_t *size, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/*
 * Whether the experiment cannot change settings here: then R is skipped with
 * "needs root (and the settings lock) to WHAT; here: WHY" (WHY: ctx->no_write)
 * and true is returned.
 */
bool lab_needs_write(const struct lab_ctx *ctx, struct lab_result *r, const char *what);

/*
 * The start of an experiment that changes host settings: lab_needs_write(WHAT),
 * then lab_begin(). Nonzero (R says why) when the experiment stops there.
 */
int lab_begin_write(const struct lab_ctx *ctx, const struct lab_opts *o, const char *what,
		    uint64_t def, struct lab_result *r, uint64_t *size, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));

/*
 * Why this process gets no THP at fault whatever its advice: a prctl
 * PR_SET_THP_DISABLE inherited from the parent, or enabled=never; "" when
 * neither (then a missing huge page means a fallback).
 */
const char *lab_thp_off_reason(const struct lab_ctx *ctx);

/*
 * The proof "LABEL kpageflags": PREFIX and FC's folio orders (lab_fmt_folios),
 * "unreadable: ..." for FC_ERR (a negative errno), or skipped when not root.
 */
void lab_folio_proof(const struct lab_ctx *ctx, struct lab_result *r, const char *label,
		     const char *prefix, const struct folio_counts *fc, int fc_err);

/* The verdict "as expected: TEXT" (EXPECTED) or "UNEXPECTED: TEXT", TEXT from FMT. */
void lab_verdict_ok(struct lab_result *r, bool expected, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A proof "KEY: failed: <strerror(-ERR)>" (ERR a negative errno), and R marked partial. */
void lab_failed(struct lab_result *r, const char *key, int err);

/* One column of a result table: its name and unit, as lab_col_add takes them. */
struct lab_coldef {
	const char *name;
	const char *unit;
};

/* Add the N columns of DEFS in order; each index (-1 when full) in IDX[i] when IDX is not NULL. */
void lab_cols_add(struct lab_result *r, const struct lab_coldef *defs, int n, int *idx);

/* A "+" (delta) column for each of the N counters NAMES; indexes in IDX when not NULL. */
void lab_delta_cols(struct lab_result *r, const char *const *names, size_t n, int *idx);

/* Copy the values of V[0..N) that were read (>= 0; -1: not read) to OUT; how many. */
size_t lab_values_read(double *out, const double *v, int n);

/*
 * A row LABEL whose first NCOLS columns each get N samples: column c from
 * V + c * STRIDE (a double v[NCOLS][STRIDE] passed as &v[0][0]). Returns the
 * row index as lab_row_add does.
 */
int lab_row_samples(struct lab_result *r, const char *label, const double *v, size_t stride,
		    int ncols, size_t n);

struct frag;
/*
 * Before one measured run: lab_prepare_state(O->state, SIZE), then, under the
 * fragmenter F (NULL: none), sink it again and raise *LEFT_MAX to the free
 * PMD-order blocks it left.
 */
void lab_run_prepare(const struct lab_opts *o, uint64_t size, struct frag *f, uint64_t *left_max);

/*
 * The host's enabled=VALUE ("never", "madvise", "always") through guard_write()
 * (journalled, restored by lab_run), the PMD size's hugepages-<N>kB/enabled
 * too where it does not inherit. 0 or -errno.
 */
int lab_set_enabled(const struct lab_ctx *ctx, const char *value);

/*
 * transparent_hugepage/KEY = VALUE ("defrag", "khugepaged/max_ptes_none",
 * "hugepages-64kB/enabled") through guard_write(). 0 or -errno.
 */
int lab_thp_write(const char *key, const char *value);

/* hugepages-<SIZE_KB>kB/enabled = VALUE through guard_write(). 0 or -errno. */
int lab_size_enabled(uint64_t size_kb, const char *value);

/* vm.drop_caches = 2 (slab, which runs the deferred-split shrinker) through guard_poke(). */
int lab_drop_caches(void);

/*
 * THP off for the programs this process starts until lab_thp_off_end():
 * prctl(PR_SET_THP_DISABLE) here, which fork and exec pass on (3.15+), so a
 * mode "THP never" needs no host-wide enabled=never. Returns what was set
 * before (for lab_thp_off_end), or -errno.
 */
int lab_thp_off_begin(void);

/* Put back the PR_SET_THP_DISABLE state PREV (from lab_thp_off_begin; < 0: nothing). */
void lab_thp_off_end(int prev);

/* The host's enabled (defrag) as found at start ("madvise"), or NULL when unreadable. */
const char *lab_found_enabled(const struct lab_ctx *ctx);
const char *lab_found_defrag(const struct lab_ctx *ctx);

#endif
