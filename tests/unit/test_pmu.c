// SPDX-License-Identifier: MIT
/* Unit tests: src/model/pmu.c, src/render/pmu.c (dTLB counters, or why there are none). */
#include "unit.h"

#include "model/pmu.h"
#include "render/pmu.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#define assert_near(a, b, eps) assert_true(fabs((a) - (b)) <= (eps))

static void test_state_from_errno(UNIT_STATE)
{
	assert_int_equal(pmu_state_of(0), PMU_COUNTS);
	/* this host (a guest without a vPMU): ENOENT; others say EOPNOTSUPP or ENODEV */
	assert_int_equal(pmu_state_of(-ENOENT), PMU_NONE);
	assert_int_equal(pmu_state_of(-EOPNOTSUPP), PMU_NONE);
	assert_int_equal(pmu_state_of(-ENODEV), PMU_NONE);
	assert_int_equal(pmu_state_of(-EACCES), PMU_DENIED);
	assert_int_equal(pmu_state_of(-EINVAL), PMU_FAILED);
}

static void test_fix_per_environment(UNIT_STATE)
{
	assert_int_equal(pmu_fix_of(PMU_NONE, VIRT_GCE), PMU_FIX_GCE);
	assert_int_equal(pmu_fix_of(PMU_NONE, VIRT_AWS), PMU_FIX_AWS);
	assert_int_equal(pmu_fix_of(PMU_NONE, VIRT_KVM), PMU_FIX_KVM);
	assert_int_equal(pmu_fix_of(PMU_NONE, VIRT_GUEST), PMU_FIX_GUEST);
	assert_int_equal(pmu_fix_of(PMU_DENIED, VIRT_GCE), PMU_FIX_PARANOID);
	assert_int_equal(pmu_fix_of(PMU_COUNTS, VIRT_GCE), PMU_FIX_NONE);
	char line[320];
	render_pmu_line(line, sizeof(line), -ENOENT, VIRT_GCE, NULL, false);
	assert_non_null(strstr(line, "no PMU (perf_event_open: No such file or directory)"));
	assert_non_null(strstr(line, "GCE: set performanceMonitoringUnit to STANDARD or ENHANCED"));
	render_pmu_line(line, sizeof(line), -ENOENT, VIRT_GUEST, NULL, false);
	assert_non_null(strstr(line, "Firecracker-like"));
	assert_non_null(strstr(line, "use lab tlb instead"));
	/* inside lab tlb: not "use lab tlb" */
	render_pmu_line(line, sizeof(line), -ENOENT, VIRT_GUEST, NULL, true);
	assert_non_null(strstr(line, "Firecracker-like"));
	assert_null(strstr(line, "lab tlb"));
	render_pmu_line(line, sizeof(line), -ENOENT, VIRT_KVM, NULL, false);
	assert_non_null(strstr(line, "-cpu host,pmu=on"));
	/* never a count of 0 where there is no PMU */
	assert_null(strstr(line, " 0"));
	/* classification of DMI strings */
	assert_int_equal(virt_classify(true, true, "Google", "Google Compute Engine"), VIRT_GCE);
	assert_int_equal(virt_classify(true, true, "Amazon EC2", "m5.large"), VIRT_AWS);
	assert_int_equal(virt_classify(true, true, "QEMU", "Standard PC (Q35 + ICH9, 2009)"),
			 VIRT_KVM);
	assert_int_equal(virt_classify(true, true, "", ""), VIRT_GUEST);
	assert_int_equal(virt_classify(true, false, "Dell Inc.", "PowerEdge R750"), VIRT_BARE);
	assert_int_equal(virt_classify(false, false, "", ""), VIRT_UNKNOWN);
}

/*
 * Counter values in perf_event_open's read format (value, time enabled, time
 * running) of the shape a PMU host gives for a 1 GiB chase on small pages,
 * 2M loads, one counter multiplexed (running half of enabled). Constructed:
 * this host has no PMU to record from.
 */
static void test_rates_from_recorded_counters(UNIT_STATE)
{
	struct pmu_value v[PMU_NEV] = {
		[PMU_MISS] = {true, 986412, 41000000, 41000000},
		[PMU_ACCESS] = {true, 1004733, 41000000, 20500000}, /* multiplexed: x2 */
		[PMU_WALK] = {true, 52279836, 41000000, 41000000},
	};
	struct pmu_rates r;
	pmu_rates_of(v, 2097152, &r);
	assert_near(r.miss_per_kload, 986412.0 * 1000 / 2097152, 1e-9);
	assert_near(r.miss_ratio, 986412.0 / (1004733.0 * 2), 1e-12);
	assert_near(r.walk_cycles_per_miss, 52279836.0 / 986412, 1e-9);
	char line[320];
	render_pmu_line(line, sizeof(line), 0, VIRT_BARE, &r, false);
	assert_string_equal(line, "dTLB read misses 470.36 per 1k loads, 49.09% of dTLB reads, "
				  "53.0 walk cycles per miss (measured, PMU)");
	/* no walk event (AMD), a counter that never ran: unknown, not 0 */
	v[PMU_WALK].open = false;
	v[PMU_ACCESS].running = 0;
	pmu_rates_of(v, 2097152, &r);
	assert_true(r.walk_cycles_per_miss < 0 && r.miss_ratio < 0);
	assert_true(pmu_scaled(&v[PMU_ACCESS]) < 0);
	v[PMU_MISS].running = v[PMU_MISS].enabled + 1; /* damage: running > enabled */
	assert_true(pmu_scaled(&v[PMU_MISS]) < 0);
}

UNIT_TESTS(test_state_from_errno, test_fix_per_environment, test_rates_from_recorded_counters)
