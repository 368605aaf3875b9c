/* SPDX-License-Identifier: MIT */
/* `thpctl ab` in words, a table, CSV and JSON. */
#ifndef THPCTL_RENDER_AB_H
#define THPCTL_RENDER_AB_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "../model/ab.h"
#include "../model/settings_plan.h"

struct ab_report {
	const struct ab_mode *modes;
	const struct ab_summary *sum;
	int n;
	const struct ab_metric *metrics;
	int nmetrics;
	char *const *cmd;
	int runs, warmup;
	const struct ab_sweep *sweep; /* call AS_NONE: no sweep modes */
};

/*
 * Before the first run, on F (stderr: --json's stdout stays clean): the host-wide settings under
 * THP_DIR that the host:KEY=VALUE modes among the N MODES change (PLANS[i] the plan of mode i,
 * NULL for a mode that changes nothing host-wide), "KEY: OLD -> NEW" under each mode's name, and
 * that each is journalled in JOURNAL and put back after every run of its mode, at exit and on a
 * signal. Wrapped at 80 columns. Nothing when no mode has a plan.
 */
void ab_render_host_notice(FILE *f, const struct ab_mode *modes, struct settings_plan *const *plans,
			   int n, const char *thp_dir, const char *journal);

/*
 * The level CI's interval has, in OUT: "95%", or "96.8%" where the exact
 * Mann-Whitney bounds reach past the asked 95% (few runs: 5 and 5 give
 * 96.8%), rounded down to 0.1 so never more than it is. Returns OUT.
 */
const char *ab_ci_level(char *out, size_t n, const struct ratio_ci *ci);

void ab_render_text(FILE *f, const struct ab_report *r, bool color);
void ab_render_csv(FILE *f, const struct ab_report *r);
json_t *ab_to_json(const struct ab_report *r);

/* The sweep of R (render/ab_sweep.c): its call first, the fit, a table per point; nothing
 * when R has no sweep. */
void ab_render_sweep(FILE *f, const struct ab_report *r, bool color);
/* The sweep as the JSON "sweep" object, null when there is none (MODES: the report's modes, for
 * a host setting's KEY=VALUE). */
json_t *ab_sweep_json(const struct ab_sweep *s, const struct ab_mode *modes);

#endif
