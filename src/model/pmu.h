/* SPDX-License-Identifier: MIT */
/*
 * What dTLB counters say, or why there are none (pure): the state from
 * perf_event_open's errno, the setting that exposes a PMU in the detected
 * environment, and counts scaled for multiplexing.
 */
#ifndef THPCTL_MODEL_PMU_H
#define THPCTL_MODEL_PMU_H

#include <stdbool.h>
#include <stdint.h>

#include "../kernel/pmu.h"
#include "../kernel/virt.h"

enum pmu_state {
	PMU_COUNTS, /* the dTLB events opened */
	PMU_NONE,   /* no PMU, or none with dTLB events: ENOENT, EOPNOTSUPP, ENODEV */
	PMU_DENIED, /* EACCES / EPERM: kernel.perf_event_paranoid or a seccomp filter */
	PMU_FAILED, /* another error */
};

/* The state from the open's result ERR (0 or -errno). */
enum pmu_state pmu_state_of(int err);

/* How to get a PMU in ENV, when there is none. */
enum pmu_fix {
	PMU_FIX_NONE, /* counters work, or nothing to say */
	PMU_FIX_GCE,  /* GCE: advancedMachineFeatures.performanceMonitoringUnit STANDARD|ENHANCED */
	PMU_FIX_AWS,  /* AWS: a metal instance (or a size whose vPMU exposes the events) */
	PMU_FIX_KVM,  /* own KVM/QEMU: -cpu host,pmu=on (libvirt <pmu state='on'/>) */
	PMU_FIX_AZURE,	  /* Azure: no dTLB events in guests of most sizes */
	PMU_FIX_VMWARE,	  /* VMware: virtual CPU performance counters (vPMC) in the VM's settings */
	PMU_FIX_GUEST,	  /* a guest without DMI (Firecracker-like): none available */
	PMU_FIX_BARE,	  /* bare metal without the events: a kernel without perf for this CPU */
	PMU_FIX_PARANOID, /* denied: kernel.perf_event_paranoid <= 2 for user counting, or root */
};

enum pmu_fix pmu_fix_of(enum pmu_state st, enum virt_env env);

/* V's count scaled by enabled/running (multiplexing); -1 when not open or never running. */
double pmu_scaled(const struct pmu_value *v);

/* What one measurement's counters give per load (pure). */
struct pmu_rates {
	double miss_per_kload;	     /* dTLB read misses per 1000 LOADS; -1 unknown */
	double miss_ratio;	     /* misses / accesses; -1 unknown */
	double walk_cycles_per_miss; /* Intel WALK_ACTIVE / misses; -1 unknown */
};

/* From V[PMU_NEV] over LOADS dependent loads (0: per-load rate unknown). */
void pmu_rates_of(const struct pmu_value *v, uint64_t loads, struct pmu_rates *r);

#endif
