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
/* {"before": [1, 5, 15 min], "after": [...]}: the host's load average around a run. */
json_t *lab_load_json(const double *before, const double *after);
/* R's claims as a JSON array of {claim, source, here, call, why}. */
json_t *lab_claims_json(const struct lab_result *r);
/*
 * `lab workloads`' closing table: N claims C, each beside the EXPERIMENT
 * that tested it (experiment, claim, source, here, call).
 */
void lab_render_claims_table(FILE *f, const char (*experiment)[24], const struct lab_claim *c,
			     int n, bool color);
/* What lab's closing line says (lab_render_closing). */
struct lab_closing {
	const char *name;    /* the experiment or the group ("quick") */
	bool group;	     /* a group: SHOWN and the skipped ones are said */
	int shown;	     /* experiments shown */
	int nskip;	     /* of them skipped (not run here: each one's verdict says why) */
	const char *skipped; /* their names, ", " between them ("" none) */
	double wall_s, cpu_s;
	const double *load_before, *load_after; /* 1-minute load average first; NULL unknown */
};
/*
 * lab's closing line into F, e.g. "lab quick: 9 experiments in 21.9 s wall (19.9 s CPU),
 * 1 skipped (mthp); load average 1.24 before, 1.30 after (1 min, host-wide)".
 */
void lab_render_closing(FILE *f, const struct lab_closing *c);
/* CSV rows "experiment,row,column,unit,median,min,max"; HEADER prints the header line first. */
void lab_render_csv(FILE *f, const struct lab_result *r, bool header);

#endif
