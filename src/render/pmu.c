// SPDX-License-Identifier: MIT
#include "pmu.h"

#include <stdio.h>
#include <string.h>

const char *render_pmu_fix(enum pmu_fix f)
{
	switch (f) {
	case PMU_FIX_GCE:
		return "GCE: set performanceMonitoringUnit to STANDARD or ENHANCED";
	case PMU_FIX_AWS:
		return "AWS: use a metal instance (virtual sizes expose no dTLB events)";
	case PMU_FIX_KVM:
		return "own KVM guest: start QEMU with -cpu host,pmu=on";
	case PMU_FIX_AZURE:
		return "Azure: most sizes expose no dTLB events; measure on bare metal";
	case PMU_FIX_VMWARE:
		return "VMware: enable virtual CPU performance counters (vPMC)";
	case PMU_FIX_GUEST:
		return "none for this guest (no DMI: Firecracker-like); use lab tlb instead";
	case PMU_FIX_BARE:
		return "bare metal: this kernel's perf lacks dTLB events for this CPU";
	case PMU_FIX_PARANOID:
		return "run as root or set kernel.perf_event_paranoid <= 2";
	case PMU_FIX_NONE:
		break;
	}
	return "";
}

void render_pmu_line(char *out, size_t n, int err, enum virt_env env, const struct pmu_rates *r,
		     bool in_tlb)
{
	enum pmu_state st = pmu_state_of(err);
	enum pmu_fix f = pmu_fix_of(st, env);
	const char *fix = in_tlb && f == PMU_FIX_GUEST
				  ? "none for this guest (no DMI: Firecracker-like)"
				  : render_pmu_fix(f);
	if (st == PMU_COUNTS) {
		if (!r || r->miss_per_kload < 0) {
			snprintf(out, n, "dTLB counters available (perf_event_open)");
			return;
		}
		char ratio[48] = "", walk[48] = "";
		if (r->miss_ratio >= 0)
			snprintf(ratio, sizeof(ratio), ", %.2f%% of dTLB reads",
				 r->miss_ratio * 100);
		if (r->walk_cycles_per_miss >= 0)
			snprintf(walk, sizeof(walk), ", %.1f walk cycles per miss",
				 r->walk_cycles_per_miss);
		snprintf(out, n, "dTLB read misses %.2f per 1k loads%s%s (measured, PMU)",
			 r->miss_per_kload, ratio, walk);
		return;
	}
	char head[96];
	render_pmu_state(head, sizeof(head), err);
	snprintf(out, n, "%s%s%s", head, fix[0] ? ": " : "", fix);
}

void render_pmu_state(char *out, size_t n, int err)
{
	enum pmu_state st = pmu_state_of(err);
	if (st == PMU_COUNTS)
		snprintf(out, n, "dTLB counters available (perf_event_open)");
	else
		snprintf(out, n, "%s (perf_event_open: %s)",
			 st == PMU_NONE	    ? "no PMU"
			 : st == PMU_DENIED ? "PMU not permitted"
					    : "PMU unusable",
			 strerror(-err));
}
