// SPDX-License-Identifier: MIT
/* Unit tests: src/util/clock.c (monotonic readings). */
#include "unit.h"

#include <time.h>

#include "util/clock.h"

static void test_readings_never_go_back(UNIT_STATE)
{
	uint64_t a = mono_ns(), b = mono_ns();
	assert_true(b >= a);
	double s0 = mono_s(), s1 = mono_s();
	assert_true(s1 >= s0);
	double m0 = mono_ms(), m1 = mono_ms();
	assert_true(m1 >= m0);
}

static void test_units_agree_over_a_20_ms_sleep(UNIT_STATE)
{
	uint64_t n0 = mono_ns();
	double s0 = mono_s(), m0 = mono_ms();
	struct timespec ts = {.tv_sec = 0, .tv_nsec = 20 * 1000 * 1000};
	while (nanosleep(&ts, &ts))
		;
	double dn = (double)(mono_ns() - n0) / 1e6, ds = (mono_s() - s0) * 1e3, dm = mono_ms() - m0;
	/* each at least the 20 ms slept; all three within 1 s of one another */
	assert_true(dn >= 20 && ds >= 19.999 && dm >= 19.999);
	assert_true(dn < 1000 && ds < 1000 && dm < 1000);
}

UNIT_TESTS(test_readings_never_go_back, test_units_agree_over_a_20_ms_sleep)
