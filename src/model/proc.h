/* SPDX-License-Identifier: MIT */
/* Why a process does or does not use huge pages, from its collected facts. */
#ifndef THPCTL_MODEL_PROC_H
#define THPCTL_MODEL_PROC_H

#include "../kernel/proc_thp.h"

/*
 * nh VMAs the program opted out itself (MADV_NOHUGEPAGE, or a library for
 * it): all nh VMAs but thread stacks and their guards, which the kernel marks
 * nh for MAP_STACK (6.7+; proc_thp.h stack_nh_vmas).
 */
int proc_thp_optout_vmas(const struct proc_thp *p);

/*
 * Whether P has anything THP-related (huge pages, hg VMAs, nh VMAs it opted
 * out itself, prctl disable): thread stacks alone do not count.
 */
bool proc_thp_relevant(const struct proc_thp *p);

/*
 * A short reason: "THP disabled by prctl", "opted in by madvise",
 * "opted out by madvise" (nh VMAs besides thread stacks, no huge pages),
 * "global always", "collapsed (no hg)", "none", or "none (thread stacks: nh
 * set by the kernel for MAP_STACK)" when its only nh VMAs are thread stacks.
 * POLICY is the effective anon policy of the PMD size ("always", "madvise",
 * "never") or NULL when unknown.
 */
const char *proc_thp_reason(const struct proc_thp *p, const char *policy);

/* AnonHugePages / Anonymous as a ratio in [0,1]; -1 when Anonymous is 0 or absent. */
double proc_thp_share(const struct proc_thp *p);

#endif
