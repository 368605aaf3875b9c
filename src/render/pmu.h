/* SPDX-License-Identifier: MIT */
/* The words for dTLB counters, or for their absence and the setting that exposes a PMU. */
#ifndef THPCTL_RENDER_PMU_H
#define THPCTL_RENDER_PMU_H

#include <stddef.h>

#include <stdbool.h>

#include "../model/pmu.h"

/*
 * "no PMU (perf_event_open: No such file or directory): this kind of guest
 * ..." for ERR (the open's 0 or -errno) in ENV into OUT; with counters, the
 * rates R ("dTLB read misses 12.5 per 1k loads, ..."; R NULL: "dTLB counters
 * available"). IN_TLB: said inside `lab tlb`, which is what the guest's fix
 * points at ("use lab tlb instead" is left out). Pure.
 */
void render_pmu_line(char *out, size_t n, int err, enum virt_env env, const struct pmu_rates *r,
		     bool in_tlb);

/* The state alone: "no PMU (perf_event_open: No such file or directory)". Pure. */
void render_pmu_state(char *out, size_t n, int err);

/* The fix sentence of F ("" for PMU_FIX_NONE). Pure. */
const char *render_pmu_fix(enum pmu_fix f);

#endif
