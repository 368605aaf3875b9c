/* SPDX-License-Identifier: MIT */
/*
 * The calls of `lab allocators` on its published claims (pure): each round
 * gives its own call from its own figures, and a claim is confirmed or
 * contradicted only when at least two rounds ran and every round made the
 * same call (the rule of `lab postgres`: rounds that disagree, or a single
 * round, are inconclusive).
 */
#ifndef THPCTL_LAB_ALLOCATORS_CALLS_H
#define THPCTL_LAB_ALLOCATORS_CALLS_H

#include <stdbool.h>
#include <stddef.h>

#include "lab.h"

#define AL_MAX_ROUNDS 4

/*
 * The call from N per-round calls C: the common call of N >= 2 rounds that
 * agree; otherwise inconclusive, with WHY saying so (one round, or how they
 * split). WHY is left alone when the rounds agree.
 */
enum claim_call al_rounds_agree(const enum claim_call *c, int n, char *why, size_t wn);

/*
 * One round of "max_ptes_none=0 prevents khugepaged's creep": G511 and G0 the
 * heap RSS after khugepaged's full scans over the RSS before them, at
 * max_ptes_none 511 and 0; SCANS: both waited for 2 full scans. Contradicted
 * when RSS grew by 20% or more at 0; confirmed when it grew by 20% or more at
 * 511 and by at most 5% at 0; otherwise (no growth to prevent, scans cut
 * off) inconclusive.
 */
enum claim_call al_creep_round(double g511, double g0, bool scans);

/*
 * One round of "THP under enabled=always bloats the heap, the allocator's
 * own knob takes it back": FACTOR the heap RSS under always over madvise,
 * KNOB the heap RSS with the knob (under always) over madvise, PROVEN:
 * AnonHugePages > 0 under always. Confirmed when FACTOR >= MIN_FACTOR and
 * KNOB <= 1.05 (KNOB < 0: not asked); contradicted when FACTOR <= 1.05;
 * otherwise, or not proven, inconclusive.
 */
enum claim_call al_bloat_round(double factor, double knob, double min_factor, bool proven);

/* "2.31x (rounds 2.20..2.41)" of the N values V into OUT; "-" when none. */
void al_fmt_range(char *out, size_t n, const double *v, int nv, const char *unit);

#endif
