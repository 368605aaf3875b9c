/* SPDX-License-Identifier: MIT */
/* `thpctl ab` in words, a table, CSV and JSON. */
#ifndef THPCTL_RENDER_AB_H
#define THPCTL_RENDER_AB_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "../model/ab.h"
#include "../model/settings_plan.h"
#include "../util/buf.h"

struct ab_report {
	const struct ab_mode *modes;
	const struct ab_summary *sum;
	int n;
	const struct ab_metric *metrics;
	int nmetrics;
	char *const *cmd;
	int runs, warmup;
	long timeout_s; /* --timeout, s */
	size_t width;	/* of the human output: the header's command is wrapped to it; 0 none */
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

/* The header, the verdicts (each mode's metrics under it), memory and the table (render/ab_text.c). */
void ab_render_text(FILE *f, const struct ab_report *r, bool color);

/*
 * The command CMD (NULL-ended argv) for a reader, into OUT: each word shell-quoted (util/esc.h
 * shell_quote: exact, control bytes as $'\x1b'), indented 2, broken between words to WIDTH
 * columns (0: one line) with " \" ending each line but the last; a word wider than a line on
 * its own is broken at its blanks (util/wrap.h wrap_line) rather than overflow. No final
 * newline. Returns 0 or -ENOMEM.
 */
int ab_command_text(struct buf *out, char *const *cmd, size_t width);

/* CMD's words shell-quoted as ab_command_text has them, on one line, appended to OUT
 * (NUL-terminated). Returns 0 or -ENOMEM. */
int ab_command_quoted(struct buf *out, char *const *cmd);
void ab_render_csv(FILE *f, const struct ab_report *r);
json_t *ab_to_json(const struct ab_report *r);

/* The sweep of R (render/ab_sweep.c): its call first, the fit, a table per point; nothing
 * when R has no sweep. */
void ab_render_sweep(FILE *f, const struct ab_report *r, bool color);
/* The sweep as the JSON "sweep" object, null when there is none (MODES: the report's modes, for
 * a host setting's KEY=VALUE). */
json_t *ab_sweep_json(const struct ab_sweep *s, const struct ab_mode *modes);

#endif
