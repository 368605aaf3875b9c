/* SPDX-License-Identifier: MIT */
/* `thpctl ab` internals shared by ab.c (options) and ab_run.c (the runs). */
#ifndef THPCTL_CMD_AB_INT_H
#define THPCTL_CMD_AB_INT_H

#include <regex.h>
#include <stdbool.h>

#include "../model/ab.h"
#include "../model/settings_plan.h"
#include "common.h"

#define AB_MAX_WARMUP 10       /* --warmup: discarded runs per mode */
#define AB_MAX_TIMEOUT_S 86400 /* --timeout: a day, in seconds */

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

/*
 * Start CMD under mode M: fork and exec, CMD the leader of a process group of its own, its
 * stdout and stderr to LOGFD, stdin /dev/null, the fatal signals' handlers back to their
 * defaults and thpctl's signal mask, PR_SET_THP_DISABLE set in the child
 * for off and except-advised (kept across execve). *T0_NS: CLOCK_MONOTONIC (ns) when the child
 * called execve (when it could not be started: when ab_start was called), so that a run's wall
 * time leaves out fork's copy of thpctl (~2 ms here: 4.5 ms for `true` against 2.2 ms).
 * Returns its pid, or -errno when it could not be started (what failed written to LOGFD:
 * "cannot run CMD: ...").
 *
 * fork, not posix_spawn or vfork (CLONE_VM), so that MAXRSS (wait4's ru_maxrss) is CMD's own,
 * as time(1) reports it: at execve the kernel keeps the larger of the process's ru_maxrss
 * and the peak RSS of the memory it leaves (fs/exec.c exec_mmap: setmax_mm_hiwater_rss). A
 * CLONE_VM child leaves thpctl's own memory, so its MAXRSS would be thpctl's peak (seen:
 * 2.7 MB for `true`, whose own is under 1 MB); a fork child leaves a copy whose peak is the
 * pages fork copied (thpctl's private pages at that moment), as time(1)'s child carries the
 * few pages of time's. Checked against getrusage in tests/unit/test_ab_start.c (cmd/ab_start.c).
 */
pid_t ab_start(const struct ab_ctx *c, const struct ab_mode *m, int logfd, uint64_t *t0_ns);

/* Record PID (0: none) as the run in progress, which ab's fatal-signal hook ends (ab_run.c). */
void ab_child_record(pid_t pid);

/* Every run, interleaved. EXIT_OK, or EXIT_FAIL when a run failed or a host mode could not be applied. */
int ab_loop(struct ab_ctx *c);

void ab_ctx_free(struct ab_ctx *c);

#endif
