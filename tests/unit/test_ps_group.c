// SPDX-License-Identifier: MIT
/* Unit tests: src/model/ps_group.c (ps --by cgroup: sums, shares, order, unknowns). */
#include "unit.h"

#include "model/ps_group.h"
#include "render/ps_group.h"

/* A process with RSS, Anonymous and AnonHugePages in kB. */
static struct proc_thp proc(uint64_t rss, uint64_t anon, uint64_t ahp)
{
	struct proc_thp p = {0};
	p.t.kb[SM_RSS] = rss;
	p.t.kb[SM_ANONYMOUS] = anon;
	p.t.kb[SM_ANON_HUGE] = ahp;
	p.t.present = (1u << SM_RSS) | (1u << SM_ANONYMOUS) | (1u << SM_ANON_HUGE);
	return p;
}

static void test_group(UNIT_STATE)
{
	struct proc_thp p[5] = {proc(100, 80, 40), proc(300, 200, 160), proc(50, 40, 0),
				proc(10, 10, 0), proc(999, 999, 999)};
	/* keys are compared as strings, not pointers */
	char web2[] = "/web";
	struct psg_in in[5] = {
		{.key = "/web", .p = &p[0]},
		{.key = web2, .p = &p[1]},
		{.key = "/db", .p = &p[2]},
		{.key = NULL, .p = &p[3]},
		{.key = "/db", .p = &p[4], .denied = true},
	};
	struct psg_row *g;
	size_t n;
	assert_int_equal(psg_build(in, 5, &g, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(g[0].key, "/web");
	assert_int_equal(g[0].n, 2);
	assert_int_equal(g[0].ahp_kb, 200);
	assert_int_equal(g[0].rss_kb, 400);
	assert_int_equal(g[0].anon_kb, 280);
	assert_float_equal(g[0].share, 200.0 / 280.0, 1e-9);
	assert_float_equal(g[0].of_total, 1.0, 1e-9);
	/* the denied process counts but is not summed */
	assert_string_equal(g[1].key, "/db");
	assert_int_equal(g[1].n, 2);
	assert_int_equal(g[1].unknown, 1);
	assert_int_equal(g[1].ahp_kb, 0);
	assert_int_equal(g[1].rss_kb, 50);
	assert_float_equal(g[1].share, 0.0, 1e-9);
	/* the unknown group last, even though equal in AnonHugePages */
	assert_null(g[2].key);
	assert_int_equal(g[2].n, 1);
	free(g);
}

static void test_unknown_values(UNIT_STATE)
{
	struct proc_thp p[2] = {proc(10, 0, 0), proc(10, 10, 5)};
	struct psg_in in[2] = {{.key = "/a", .p = &p[0]},
			       {.key = "/b", .p = &p[1], .denied = true}};
	struct psg_row *g;
	size_t n;
	assert_int_equal(psg_build(in, 2, &g, &n), 0);
	assert_int_equal(n, 2);
	/* no anon: no share; nothing huge anywhere: no share of the total */
	assert_string_equal(g[0].key, "/a");
	assert_true(g[0].share < 0);
	assert_true(g[0].of_total < 0);
	/* nothing read of /b: unknown, never 0 */
	assert_int_equal(g[1].unknown, 1);
	assert_true(g[1].share < 0);
	free(g);
	assert_int_equal(psg_build(in, 0, &g, &n), 0);
	assert_int_equal(n, 0);
	assert_null(g);
}

/* THP/ANON and OF_ALL_AHP never round a share with a part left out onto 100.0% (99.96%
 * printed "100.0%"), nor one with a part in onto 0.0% */
static void test_shares_not_rounded_onto_an_end(UNIT_STATE)
{
	struct proc_thp p[2] = {proc(100000, 100000, 99960), proc(100, 100, 40)};
	struct psg_in in[2] = {{.key = "/a", .p = &p[0]}, {.key = "/b", .p = &p[1]}};
	struct psg_row *g;
	size_t n;
	assert_int_equal(psg_build(in, 2, &g, &n), 0);
	struct psg_report r = {.rows = g, .n = n, .version = 2, .nprocs = 2};
	char out[4096] = "";
	FILE *f = fmemopen(out, sizeof(out), "w");
	assert_non_null(f);
	psg_render_text(f, &r, false);
	fclose(f);
	assert_null(strstr(out, "100.0%"));
	assert_non_null(strstr(out, "99.96%")); /* /a: 99960 of 100000 anonymous */
	assert_non_null(strstr(out, "0.04%"));	/* /b: 40 of all 100000 AnonHugePages */
	assert_null(strstr(out, " 0.0%"));
	free(g);
}

UNIT_TESTS(test_group, test_unknown_values, test_shares_not_rounded_onto_an_end)
