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

/* A progress line on stderr (unless quiet): "lab touch: madv run 3/5". */
void lab_progress(const struct lab_opts *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Erase the progress line (on a tty). */
void lab_progress_done(const struct lab_opts *o);

/* "order9 x256, order4 x3" from folio counts ("" when none). */
void lab_fmt_folios(char *out, size_t n, const struct folio_counts *fc, long page_size);

/* Effective anon policy of the PMD size at start ("always", "madvise", "never"), or "?". */
const char *lab_pmd_policy(const struct lab_ctx *ctx);

/* The size to use: O->size or DEF, refused (-E2BIG, message in R) above MemAvailable - margin. */
int lab_size(const struct lab_ctx *ctx, const struct lab_opts *o, uint64_t def,
	     struct lab_result *r, uint64_t *size);

/*
 * Why this process gets no THP at fault whatever its advice: a prctl
 * PR_SET_THP_DISABLE inherited from the parent, or enabled=never; "" when
 * neither (then a missing huge page means a fallback).
 */
const char *lab_thp_off_reason(const struct lab_ctx *ctx);

#endif
