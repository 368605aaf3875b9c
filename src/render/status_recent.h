/* SPDX-License-Identifier: MIT */
/*
 * `thpctl status --sample S`: the "Last S s" section and the JSON "recent"
 * object, from host_derived.recent (model/rates.h host_recent). They print;
 * they open nothing.
 */
#ifndef THPCTL_RENDER_STATUS_RECENT_H
#define THPCTL_RENDER_STATUS_RECENT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "../model/host.h"

/* The section, when D was sampled (D->recent); nothing otherwise. Its '-' noted in *SEEN. */
void status_recent_render_text(FILE *f, const struct host_derived *d, bool color, unsigned *seen);

/* The "recent" object, or JSON null when D was not sampled. */
json_t *status_recent_json(const struct host_derived *d);

/* The "khugepaged CPU, recent" value when D was not sampled: where to get it; "" when sampled. */
const char *status_recent_hint(const struct host_derived *d);

#endif
