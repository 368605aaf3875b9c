/* SPDX-License-Identifier: MIT */
/* `thpctl cgroups`: the text table and the JSON document (model/cgroups.h). */
#ifndef THPCTL_RENDER_CGROUPS_H
#define THPCTL_RENDER_CGROUPS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "../model/cgroups.h"

/* The table of R's shown rows, the host-wide fallback line and the flags, to F. */
void cg_render_text(FILE *f, const struct cg_report *r, bool color);

/* R as JSON (sizes in *_bytes keys, unknown as null); NULL on ENOMEM. */
json_t *cg_to_json(const struct cg_report *r);

#endif
