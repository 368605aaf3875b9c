/* SPDX-License-Identifier: MIT */
/*
 * The workload of `lab allocators`: thpctl-churn (src/lab/helper/) run as a
 * child under one heap allocator each (LD_PRELOAD of a library, or glibc's
 * own malloc), over two pipes: "start", then "go" from us, then "ready LIVE
 * NLIVE ALLOCATED RELEASE" once it has allocated, freed ~90% at random and
 * asked its allocator to give free memory back; it keeps the rest until its
 * stdin closes. Children die with thpctl (PR_SET_PDEATHSIG) and are killed
 * by the guard's signal hook.
 */
#ifndef THPCTL_LAB_CHURN_H
#define THPCTL_LAB_CHURN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lab.h"

#define CHURN_MAX 8

struct churn_spec {
	unsigned threads;
	unsigned long objects; /* per thread */
	unsigned min, max;     /* object sizes, bytes */
	unsigned keep;	       /* per mille kept */
	unsigned long seed;
};

struct churn {
	pid_t pid;
	int in, out; /* its stdin (we write), its stdout (we read) */
	bool pipes;  /* IN and OUT are ours (churn_start made them): a zeroed churn has none */
	uint64_t live_bytes, live_objects, alloc_bytes;
	char release[48]; /* the allocator's call it used to give memory back */
};

/*
 * The thpctl-churn program into OUT: beside this thpctl (its own directory,
 * or the one above: build/asan/thpctl finds build/thpctl-churn), or
 * ../libexec/thpctl/ from it (an installed thpctl). 0 or -ENOENT.
 */
int churn_find(char *out, size_t n);

/*
 * A helper file NAME (thpctl-churn, thpctl-sweep.so) into OUT, as churn_find
 * looks: beside this thpctl, one directory up, or ../libexec/thpctl/; MODE
 * for access() (X_OK for a program, R_OK for a preloaded object). The real
 * path, 0, or -ENOENT.
 */
int lab_helper_find(const char *name, int mode, char *out, size_t n);

/*
 * Start PROG for SPEC with the environment PATH=/usr/bin:/bin plus ENV (a
 * NULL-terminated list of "NAME=VALUE"); NOTHP: prctl(PR_SET_THP_DISABLE)
 * first (what `thpctl run --thp=off` does). Waits up to 10 s for "start".
 * Returns 0, or -errno with WHY.
 */
int churn_start(struct churn *c, const char *prog, const struct churn_spec *sp,
		const char *const *env, bool nothp, char *why, size_t n);

/*
 * Send "go" and wait up to TIMEOUT_MS for "ready". 0, or -errno with WHY
 * (-EPIPE: it exited; the write raises no SIGPIPE).
 */
int churn_go(struct churn *c, int timeout_ms, char *why, size_t n);

/*
 * Close its stdin, wait up to 2 s, then SIGKILL. Idempotent; nothing for a
 * churn churn_start never started (zeroed: its 0 fds are not its pipes).
 */
void churn_stop(struct churn *c);

/* "ready LIVE NLIVE ALLOCATED RELEASE" into C; 0 or -EINVAL (pure). */
int churn_parse_ready(const char *line, struct churn *c);

/* What one measurement of a child saw (kB; -1 unknown). */
struct churn_meas {
	bool ok;
	int64_t rss_kb, anon_kb, ahp_kb;
	int64_t invented_kb; /* never-written bytes in its PMD THPs (ledger, sampled) */
	int64_t creep_kb;    /* what khugepaged may still add at max_ptes_none (upper bound) */
};

/*
 * Measure child PID: smaps totals, then the ledger (model/ledger.h) with
 * POLICY (the PMD size's anon policy in force) and MAX_PTES_NONE. 0 or
 * -errno (-ESRCH: gone).
 */
int churn_measure(const struct lab_ctx *ctx, pid_t pid, const char *policy, long max_ptes_none,
		  struct churn_meas *m);

#endif
