/* SPDX-License-Identifier: MIT */
/* The proof "pmu" of an experiment: dTLB counters, or "no PMU" and the setting that exposes one. */
#ifndef THPCTL_LAB_PMU_PROOF_H
#define THPCTL_LAB_PMU_PROOF_H

#include "../kernel/pmu.h"
#include "lab.h"

/*
 * Probe perf_event_open for dTLB read misses and add the proof "pmu" to R:
 * with no PMU, "no PMU (perf_event_open: ...)" and the setting for the
 * detected environment; with one, RATES when not NULL. Returns the probe's
 * 0 or -errno.
 */
int lab_pmu_proof(const struct lab_ctx *ctx, struct lab_result *r, const char *key,
		  const struct pmu_value *v, uint64_t loads);

/* Whether this CPU is Intel (cpuinfo vendor_id), for the raw walk-cycle event. */
bool lab_cpu_intel(const struct lab_ctx *ctx);

#endif
