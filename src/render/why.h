/* SPDX-License-Identifier: MIT */
/* Renderers of `thpctl why PID`. */
#ifndef THPCTL_RENDER_WHY_H
#define THPCTL_RENDER_WHY_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "../model/why.h"

/* The sentence of line L into OUT (N bytes). Returns OUT. */
const char *why_line_words(const struct why_line *l, char *out, size_t n);
/* The first line's sentence (after "PID N (comm)") of R into OUT. Returns OUT. */
const char *why_summary_words(const struct why_report *r, char *out, size_t n);
/* What hint H does to huge pages. */
const char *why_hint_words(enum why_hint_id h);

void why_render_text(FILE *f, const struct why_input *in, const struct why_report *r, bool color);
/* The JSON document (caller owns it); NULL on ENOMEM. */
json_t *why_to_json(const struct why_input *in, const struct why_report *r);

#endif
