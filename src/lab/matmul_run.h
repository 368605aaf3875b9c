/* SPDX-License-Identifier: MIT */
/*
 * lab matmul: Debian's python3 + numpy as a child (dies with thpctl, stopped
 * by the guard's signal hook) that allocates three N x N double matrices,
 * says "ready", waits for a line on its stdin, times REPS dgemm calls
 * (numpy.dot(a, b, out=c)) and prints "times S1 S2 ..." (seconds). numpy's
 * own MADV_HUGEPAGE of large arrays is switched off in the child, so the only
 * opt-in under enabled=madvise is glibc's (GLIBC_TUNABLES). dTLB read
 * accesses and misses are counted with perf_event_open(2) where a PMU exists.
 */
#ifndef THPCTL_LAB_MATMUL_RUN_H
#define THPCTL_LAB_MATMUL_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The Debian interpreter (python3-numpy is built for it, not for a pyenv or venv one). */
#define MATMUL_PYTHON "/usr/bin/python3"

#define MATMUL_MAX_REPS 8

/* How the child is started. */
struct matmul_spec {
	int n;		 /* matrix order */
	int reps;	 /* timed dgemm calls, <= MATMUL_MAX_REPS */
	bool thp_off;	 /* prctl(PR_SET_THP_DISABLE, 1) before exec */
	bool glibc_thp;	 /* GLIBC_TUNABLES=glibc.malloc.hugetlb=1 */
	bool count_dtlb; /* open the dTLB counters (inherit) before exec */
};

/* A running child. */
struct matmul_child {
	pid_t pid;	/* 0: none */
	int in, out;	/* its stdin (write end), its stdout (read end); -1 when closed */
	int dtlb_fd[2]; /* dTLB read accesses, read misses; -1 when not counted */
	int dtlb_err;	/* 0 or -errno of perf_event_open (-ENOENT: no such event, no PMU) */
};

/*
 * Start the child per SPEC and wait (<= 600 s) for its "ready" line, the
 * matrices then allocated and written. Returns 0, or -errno with WHY (C
 * cleaned up: no process left).
 */
int matmul_start(struct matmul_child *c, const struct matmul_spec *spec, char *why, size_t n);

/*
 * Let the child run its dgemm calls (counters enabled around them) and read
 * its "times" line into T (seconds, *NT of them), the dTLB counts into
 * ACC/MISS (-1 when not counted), then reap it. 0 or -errno with WHY.
 */
int matmul_finish(struct matmul_child *c, double *t, int *nt, double *acc, double *miss, char *why,
		  size_t n);

/* Kill and reap the child, close its descriptors. Idempotent. */
void matmul_stop(struct matmul_child *c);

/*
 * The seconds of a "times S1 S2 ..." LINE into T (at most MAX, each > 0).
 * Returns how many, or -EINVAL when LINE is not such a line or a value is not
 * a positive number (pure).
 */
int matmul_parse_times(const char *line, double *t, int max);

/*
 * The BLAS library mapped in a process, from its maps TEXT (LEN bytes): the
 * path of the first mapping whose file name contains "blas" (libopenblas,
 * libblas, libblis...), preferring libopenblas/libblis/libmkl over the
 * reference libblas, into OUT. Returns true when one was found (pure).
 */
bool matmul_blas_path(const char *text, size_t len, char *out, size_t n);

#endif
