/* SPDX-License-Identifier: MIT */
/*
 * The words for a --sysroot bundle's skipped members (model/skips.h), one helper for
 * every command that reports them: status, cgroups, ps, advise, hugetlb plan, why.
 */
#ifndef THPCTL_RENDER_SKIPS_H
#define THPCTL_RENDER_SKIPS_H

#include <jansson.h>
#include <stdio.h>

#include "../model/skips.h"

/*
 * "N bundle members skipped (not extracted): A, B, C, D and K more" (one member: "1 bundle
 * member skipped (not extracted): A") into OUT (N bytes, cut to fit). Returns its length.
 */
#define SKIPS_WORDS_MAX (SKIPS_MAX * 140 + 96)
size_t skips_words(char *out, size_t n, const struct bundle_skips *s);

/* When any was skipped: "INDENTpartial: " WHY (NULL: none) and the words, a line to F. */
void skips_note(FILE *f, const char *indent, const char *why, const struct bundle_skips *s);

/* The entries of a "missing" array: "bundle member NAME (skipped)", "K more bundle members
 * (skipped)". */
void skips_json_missing(json_t *arr, const struct bundle_skips *s);

#endif
