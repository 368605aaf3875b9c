/* SPDX-License-Identifier: MIT */
/* Renderers of `thpctl advise`. */
#ifndef THPCTL_RENDER_ADVICE_H
#define THPCTL_RENDER_ADVICE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "../model/advice.h"

/* The sentences of the advice (render/advice_words.c), each into OUT (N bytes); each returns OUT. */
const char *advice_setting_reason(const struct adv_setting *s, char *out, size_t n);
const char *advice_setting_by(const struct adv_setting *s, char *out, size_t n);
/* "thpctl VERB KEY=VALUE ..." of the settings that change, "" when none (VERB: set, persist). */
const char *advice_command(const struct advice *a, const char *verb, char *out, size_t n);
const char *advice_lever_what(const struct adv_lever *l, char *out, size_t n);
const char *advice_lever_command(const struct adv_lever *l, char *out, size_t n); /* "" none */
/* The note under its command when the command must run from a directory that could not be
 * read (render/remedy.h run_cwd_note), "" none. */
const char *advice_lever_command_note(const struct adv_lever *l, char *out, size_t n);
const char *advice_lever_alt(const struct adv_lever *l, int i, char *out, size_t n);
const char *advice_lever_reason(const struct adv_lever *l, char *out, size_t n); /* "" none */
const char *advice_note_text(const struct adv_note *n, char *out, size_t len);

void advice_render_text(FILE *f, const struct adv_input *in, const struct advice *a, bool color);
/* The JSON document (caller owns it); NULL on ENOMEM. */
json_t *advice_to_json(const struct adv_input *in, const struct advice *a);

#endif
