/* SPDX-License-Identifier: MIT */
/* Renderers of `thpctl advise`. */
#ifndef THPCTL_RENDER_ADVICE_H
#define THPCTL_RENDER_ADVICE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "../model/advice.h"

void advice_render_text(FILE *f, const struct adv_input *in, const struct advice *a, bool color);
/* The JSON document (caller owns it); NULL on ENOMEM. */
json_t *advice_to_json(const struct adv_input *in, const struct advice *a);

#endif
