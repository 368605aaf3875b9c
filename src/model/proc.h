/* SPDX-License-Identifier: MIT */
/* Why a process does or does not use huge pages, from its collected facts. */
#ifndef THPCTL_MODEL_PROC_H
#define THPCTL_MODEL_PROC_H

#include "../kernel/proc_thp.h"

/* Whether P has anything THP-related (huge pages, hg/nh VMAs, prctl disable). */
bool proc_thp_relevant(const struct proc_thp *p);

/*
 * A short reason: "THP disabled by prctl", "opted in by madvise",
 * "opted out by madvise", "global always", "collapsed (no hg)", "none".
 * POLICY is the effective anon policy of the PMD size ("always", "madvise",
 * "never") or NULL when unknown.
 */
const char *proc_thp_reason(const struct proc_thp *p, const char *policy);

/* AnonHugePages / Anonymous as a ratio in [0,1]; -1 when Anonymous is 0 or absent. */
double proc_thp_share(const struct proc_thp *p);

#endif
