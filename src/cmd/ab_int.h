/* SPDX-License-Identifier: MIT */
/* `thpctl ab` internals shared by ab.c (options) and ab_run.c (the runs). */
#ifndef THPCTL_CMD_AB_INT_H
#define THPCTL_CMD_AB_INT_H

#include <regex.h>
#include <stdbool.h>

#include "../model/ab.h"
#include "../model/settings_plan.h"
#include "common.h"

struct ab_ctx {
	struct globals *g;
	struct ab_mode modes[AB_MAX_MODES];
	int nmodes;
	struct settings_plan *plans[AB_MAX_MODES]; /* host:... modes */
	struct ab_metric metrics[AB_MAX_METRICS];
	regex_t re[AB_MAX_METRICS];
	int nmetrics;
	long runs, warmup, timeout_s;
	bool csv;
	bool sweep;	     /* --sweep: the sweep:0,25,50,75,100 modes */
	char sweep_so[4096]; /* thpctl-sweep.so, found when a sweep mode is run */
	const char *report;  /* --report FILE */
	char **cmd;
	char logdir[256]; /* per-run logs of CMD's output: $TMPDIR/thpctl-ab.XXXXXX */
	char exe[4096];	  /* CMD's program found on PATH once (execv), "" to let execvp search */
	int nlogs;
	bool keep_logs; /* a run failed: its log is kept */
};

/*
 * Whether CMD's program (found on PATH into c->exe) is statically linked, so that
 * --sweep's LD_PRELOAD helper cannot reach it (false when it cannot be read as ELF:
 * the helper is tried and the fit says when the fraction did not move).
 */
bool ab_cmd_static(struct ab_ctx *c);

/* Compile metric I's regex. 0 or -1. */
int ab_metric_compile(struct ab_ctx *c, int i);

/* Check the modes (root for host:..., kernel support for except-advised), make the log dir. -1 to go on, else an exit code. */
int ab_prepare(struct ab_ctx *c);

/* Every run, interleaved. EXIT_OK, or EXIT_FAIL when a run failed or a host mode could not be applied. */
int ab_loop(struct ab_ctx *c);

void ab_ctx_free(struct ab_ctx *c);

#endif
