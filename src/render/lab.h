/* SPDX-License-Identifier: MIT */
/* Renderers of `thpctl lab` results: table, JSON, CSV. */
#ifndef THPCTL_RENDER_LAB_H
#define THPCTL_RENDER_LAB_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "../lab/lab.h"

void lab_render_text(FILE *f, const struct lab_result *r, bool color);
json_t *lab_to_json(const struct lab_result *r);
/* CSV rows "experiment,row,column,unit,median,min,max"; HEADER prints the header line first. */
void lab_render_csv(FILE *f, const struct lab_result *r, bool header);

#endif
