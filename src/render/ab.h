/* SPDX-License-Identifier: MIT */
/* `thpctl ab` in words, a table, CSV and JSON. */
#ifndef THPCTL_RENDER_AB_H
#define THPCTL_RENDER_AB_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "../model/ab.h"

struct ab_report {
	const struct ab_mode *modes;
	const struct ab_summary *sum;
	int n;
	const struct ab_metric *metrics;
	int nmetrics;
	char *const *cmd;
	int runs, warmup;
};

void ab_render_text(FILE *f, const struct ab_report *r, bool color);
void ab_render_csv(FILE *f, const struct ab_report *r);
json_t *ab_to_json(const struct ab_report *r);

#endif
