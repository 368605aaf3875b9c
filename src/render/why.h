/* SPDX-License-Identifier: MIT */
/* Renderers of `thpctl why PID`. */
#ifndef THPCTL_RENDER_WHY_H
#define THPCTL_RENDER_WHY_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "../model/why.h"

void why_render_text(FILE *f, const struct why_input *in, const struct why_report *r, bool color);
/* The JSON document (caller owns it); NULL on ENOMEM. */
json_t *why_to_json(const struct why_input *in, const struct why_report *r);

#endif
