/* SPDX-License-Identifier: MIT */
/* Renderers of `thpctl hugetlb plan`. */
#ifndef THPCTL_RENDER_HUGETLB_PLAN_H
#define THPCTL_RENDER_HUGETLB_PLAN_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "../model/hugetlb_plan.h"

void hp_render_text(FILE *f, const struct hp_plan_input *in, const struct hp_plan *p, bool color);
/* The JSON document (caller owns it); NULL on ENOMEM. */
json_t *hp_to_json(const struct hp_plan_input *in, const struct hp_plan *p);

#endif
