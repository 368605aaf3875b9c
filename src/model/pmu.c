// SPDX-License-Identifier: MIT
#include "pmu.h"

#include <errno.h>

enum pmu_state pmu_state_of(int err)
{
	switch (err) {
	case 0:
		return PMU_COUNTS;
	case -ENOENT:
	case -EOPNOTSUPP:
	case -ENODEV:
		return PMU_NONE;
	case -EACCES:
	case -EPERM:
		return PMU_DENIED;
	default:
		return PMU_FAILED;
	}
}

enum pmu_fix pmu_fix_of(enum pmu_state st, enum virt_env env)
{
	if (st == PMU_DENIED)
		return PMU_FIX_PARANOID;
	if (st != PMU_NONE)
		return PMU_FIX_NONE;
	switch (env) {
	case VIRT_GCE:
		return PMU_FIX_GCE;
	case VIRT_AWS:
		return PMU_FIX_AWS;
	case VIRT_KVM:
		return PMU_FIX_KVM;
	case VIRT_AZURE:
		return PMU_FIX_AZURE;
	case VIRT_VMWARE:
		return PMU_FIX_VMWARE;
	case VIRT_BARE:
		return PMU_FIX_BARE;
	case VIRT_GUEST:
	case VIRT_UNKNOWN:
		break;
	}
	return PMU_FIX_GUEST;
}

double pmu_scaled(const struct pmu_value *v)
{
	if (!v->open || !v->running || v->running > v->enabled)
		return -1;
	return (double)v->value * ((double)v->enabled / (double)v->running);
}

void pmu_rates_of(const struct pmu_value *v, uint64_t loads, struct pmu_rates *r)
{
	double miss = pmu_scaled(&v[PMU_MISS]), acc = pmu_scaled(&v[PMU_ACCESS]),
	       walk = pmu_scaled(&v[PMU_WALK]);
	r->miss_per_kload = miss >= 0 && loads ? miss * 1000 / (double)loads : -1;
	r->miss_ratio = miss >= 0 && acc > 0 ? miss / acc : -1;
	r->walk_cycles_per_miss = walk >= 0 && miss > 0 ? walk / miss : -1;
}
