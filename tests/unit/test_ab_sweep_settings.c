// SPDX-License-Identifier: MIT
/*
 * Unit tests: `thpctl ab --sweep` of a statically linked program, whose points are
 * host settings (model/ab_sweep.c's fit over modes marked sweep_point, render/ab_sweep.c's
 * words and JSON), on runs recorded on this project's test guest
 * (build/tests/chase_static 64M 300k, `ab --sweep --runs 3 --json`, walls to 4 decimals).
 */
#include "unit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/ab.h"
#include "render/ab.h"

#define assert_near(a, b, eps) assert_true(fabs((a) - (b)) <= (eps))

/* the three settings points, then a mode that is not a point ("off") */
static void modes(struct ab_mode *m)
{
	static const char *const names[4] = {"host:enabled=never", "host:enabled=madvise",
					     "host:enabled=always", "off"};
	static const double wall[3][3] = {
		{1.1187, 1.0082, 1.1986}, {1.2145, 1.0678, 1.4164}, {0.604, 0.5612, 0.5436}};
	for (int i = 0; i < 4; i++) {
		assert_int_equal(ab_mode_parse(names[i], &m[i]), 0);
		m[i].sweep_point = i < 3;
		m[i].nruns = 3;
		for (int j = 0; j < 3; j++)
			m[i].runs[j] = (struct ab_run){.wall_s = i < 3 ? wall[i][j] : 9.0,
						       .ahp_peak_kb = i == 2 ? 63488 : 0,
						       .anon_max_kb = 65712,
						       .ok = true};
	}
}

static void test_settings_points_fit_and_say_so(UNIT_STATE)
{
	static struct ab_mode m[4];
	modes(m);
	/* a host: mode parsed by hand is no sweep point; --sweep's fallback marks them */
	assert_false(m[3].sweep_point);
	struct ab_sweep s;
	ab_sweep_fit(m, 4, &s);
	assert_true(s.by_settings);
	assert_int_equal(s.npoints, 3);
	assert_int_equal(s.n, 9); /* "off" (9 s a run) is not in the fit */
	assert_int_equal(s.points[2].percent, -1);
	assert_near(s.points[2].frac.med, 63488.0 / 65712, 1e-9);
	assert_int_equal(s.call, AS_FASTER);
	assert_near(s.fit.a, 1.1707, 1e-4);
	assert_near(s.fit.b, -0.6222, 1e-4);
	assert_near(s.rel.est, 0.46855, 1e-4);

	json_t *j = ab_sweep_json(&s, m);
	assert_true(json_is_true(json_object_get(j, "by_settings")));
	json_t *p = json_array_get(json_object_get(j, "points"), 2);
	assert_true(json_is_null(json_object_get(p, "percent")));
	assert_string_equal(json_string_value(json_object_get(p, "setting")), "enabled=always");
	json_decref(j);

	char *text = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&text, &n);
	struct ab_report r = {.modes = m, .n = 4, .sweep = &s};
	ab_render_sweep(f, &r, false);
	fclose(f);
	assert_non_null(strstr(text, "\n  by host settings: CMD is statically linked"));
	assert_non_null(strstr(text, "  enabled=madvise  "));
	assert_null(strstr(text, "-1%"));
	free(text);
}

static void test_helper_points_are_not_by_settings(UNIT_STATE)
{
	static struct ab_mode m[2];
	assert_int_equal(ab_mode_parse("sweep:0", &m[0]), 0);
	assert_int_equal(ab_mode_parse("sweep:100", &m[1]), 0);
	assert_true(m[0].sweep_point && m[1].sweep_point);
	for (int i = 0; i < 2; i++) {
		m[i].nruns = 2;
		for (int j = 0; j < 2; j++)
			m[i].runs[j] = (struct ab_run){.wall_s = i ? 0.1 : 0.4,
						       .ahp_peak_kb = i ? 1000 : 0,
						       .anon_max_kb = 1000,
						       .ok = true};
	}
	struct ab_sweep s;
	ab_sweep_fit(m, 2, &s);
	assert_false(s.by_settings);
	json_t *j = ab_sweep_json(&s, m);
	json_t *p = json_array_get(json_object_get(j, "points"), 1);
	assert_int_equal(json_integer_value(json_object_get(p, "percent")), 100);
	assert_true(json_is_null(json_object_get(p, "setting")));
	json_decref(j);
}

UNIT_TESTS(test_settings_points_fit_and_say_so, test_helper_points_are_not_by_settings)
