/* SPDX-License-Identifier: MIT */
/* `thpctl advise`'s Workloads section (render/advice_workloads.c). */
#ifndef THPCTL_RENDER_ADVICE_WORKLOADS_H
#define THPCTL_RENDER_ADVICE_WORKLOADS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "../model/advice.h"

/* The Workloads block to F: each active workload, its PIDs, version (or each process's when
 * they differ). */
void advice_workloads_text(FILE *f, const struct adv_input *in, const struct advice *a, bool color);
/* The "workloads" array of advise --json (caller owns it). */
json_t *advice_workloads_json(const struct adv_input *in, const struct advice *a);

#endif
