/* SPDX-License-Identifier: MIT */
/* Output of `thpctl collapse`: the ranges, results and reasons in words. */
#ifndef THPCTL_RENDER_COLLAPSE_H
#define THPCTL_RENDER_COLLAPSE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "../model/collapse.h"

/* Why a range is skipped, in words. */
const char *crange_skip_text(enum crange_skip s);
/* Why C, a range of R, is skipped, naming its shmem policy (SKIP_SHMEM), into OUT (N bytes).
 * Returns the words (OUT or a constant). */
const char *crange_skip_words(const struct collapse_report *r, const struct crange *c, char *out,
			      size_t n);

/* What -ERR from process_madvise(MADV_COLLAPSE) means, in one sentence. */
const char *collapse_explain(int err);

void collapse_render_text(FILE *f, const struct collapse_report *r, bool color);
json_t *collapse_to_json(const struct collapse_report *r);

#endif
