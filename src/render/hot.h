/* SPDX-License-Identifier: MIT */
/* The words and JSON of `why PID --hot SECONDS`. */
#ifndef THPCTL_RENDER_HOT_H
#define THPCTL_RENDER_HOT_H

#include <jansson.h>
#include <stdio.h>

#include "../model/hot.h"

struct hot_report {
	int pid;
	int seconds;
	const struct hot_sum *s;
	const struct hot_verdict *v;
	const struct tlb_record *rec;  /* NULL: none */
	int rec_err;		       /* tlb_record_read's result */
	const struct hot_probe *probe; /* the accessed-bit probe of the window */
};

/* The block printed after why's own lines. */
void hot_render_text(FILE *f, const struct hot_report *h);

/* The "hot" object of why --json. */
json_t *hot_to_json(const struct hot_report *h);

#endif
