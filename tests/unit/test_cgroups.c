// SPDX-License-Identifier: MIT
/* Unit tests: src/model/cgroups.c (sorting, hierarchical process counts, the near-limit flag). */
#include "unit.h"

#include "model/cgroups.h"
#include "render/cgroups.h"

#define MiB (1024ull * 1024)

static void set(struct opt_u64 *o, uint64_t v)
{
	o->present = true;
	o->v = v;
}

/* A node at PATH/DEPTH with anon ANON and anon_thp THP bytes (UINT64_MAX: unknown). */
static struct cg_node node(const char *path, int depth, uint64_t anon, uint64_t thp)
{
	struct cg_node n = {.depth = depth};
	snprintf(n.path, sizeof(n.path), "%s", path);
	if (anon != UINT64_MAX)
		set(&n.ms.f[MS_ANON], anon);
	if (thp != UINT64_MAX)
		set(&n.ms.f[MS_ANON_THP], thp);
	n.limit_known = true; /* "max" unless a test sets a limit */
	return n;
}

static void limit(struct cg_node *n, uint64_t current, uint64_t max)
{
	set(&n->current, current);
	n->limited = true;
	n->limit = max;
}

static void test_near_limit(UNIT_STATE)
{
	bool has;
	double use;
	struct cg_node n = node("/a", 1, 100 * MiB, 4 * MiB);
	limit(&n, 90 * MiB, 100 * MiB); /* exactly 90% */
	assert_int_equal(cg_near_limit_thp(&n, &has, &use), CG_YES);
	assert_true(has);
	assert_float_equal(use, 0.9, 1e-9);
	n.current.v = 90 * MiB - 1; /* just below */
	assert_int_equal(cg_near_limit_thp(&n, &has, &use), CG_NO);
	n.current.v = 99 * MiB;
	n.ms.f[MS_ANON_THP].v = 0; /* near the limit, no THP */
	assert_int_equal(cg_near_limit_thp(&n, &has, &use), CG_NO);
	n.ms.f[MS_ANON_THP].present = false; /* near the limit, THP unknown */
	assert_int_equal(cg_near_limit_thp(&n, &has, &use), CG_UNKNOWN);
}

/* No limit ("max"): never flagged; an unreadable limit decides nothing unless there is no THP. */
static void test_limit_unknown(UNIT_STATE)
{
	bool has;
	double use;
	struct cg_node n = node("/a", 1, 100 * MiB, 4 * MiB);
	set(&n.current, 100 * MiB);
	assert_int_equal(cg_near_limit_thp(&n, &has, &use), CG_NO);
	assert_false(has);
	n.limit_known = false;
	n.limit_err = -EACCES;
	assert_int_equal(cg_near_limit_thp(&n, &has, &use), CG_UNKNOWN);
	n.ms.f[MS_ANON_THP].v = 0;
	assert_int_equal(cg_near_limit_thp(&n, &has, &use), CG_NO);
	/* limited but usage unreadable */
	n = node("/b", 1, 100 * MiB, 2 * MiB);
	limit(&n, 0, 100 * MiB);
	n.current.present = false;
	assert_int_equal(cg_near_limit_thp(&n, &has, &use), CG_UNKNOWN);
	assert_false(has);
}

/* Rows sort by anon_thp (unknown last, ties by path); processes add up over descendants. */
static void test_report(UNIT_STATE)
{
	struct cg_tree t = {.version = 2};
	struct cg_node nodes[] = {
		node("/", 0, 1000 * MiB, 300 * MiB),	  node("/sys", 1, 600 * MiB, 100 * MiB),
		node("/sys/db", 2, 500 * MiB, 100 * MiB), node("/sys/batch", 2, 100 * MiB, 0),
		node("/user", 1, UINT64_MAX, UINT64_MAX), node("/web", 1, 0, 200 * MiB),
	};
	limit(&nodes[2], 95 * MiB * 10, 1000 * MiB); /* /sys/db at 95% with THP: flagged */
	t.nodes = nodes;
	t.n = UNIT_LEN(nodes);
	struct cg_procs p[6] = {
		{.n = 2}, {.n = 0}, {.n = 3, .thp_off = 1}, {.n = 4, .thp_off = 2, .unknown = 1},
		{.n = 1}, {.n = 0}};
	struct cg_report r;
	struct opt_u64 fb = {.present = true, .v = 12};
	assert_int_equal(cg_report_build(&t, p, fb, 0, &r), 0);
	assert_int_equal(r.n, 6);
	assert_int_equal(r.shown, 6);
	assert_int_equal(r.nflagged, 1);
	assert_int_equal(r.fallback_charge.v, 12);
	const char *want[] = {"/", "/web", "/sys", "/sys/db", "/sys/batch", "/user"};
	for (int i = 0; i < 6; i++)
		assert_string_equal(r.rows[i].node->path, want[i]);
	/* "/": all processes below it */
	assert_int_equal(r.rows[0].nprocs, 10);
	assert_int_equal(r.rows[0].thp_off, 3);
	assert_int_equal(r.rows[0].procs_unknown, 1);
	/* "/sys": its children, not "/user" or "/web" */
	assert_int_equal(r.rows[2].nprocs, 7);
	assert_int_equal(r.rows[2].thp_off, 3);
	assert_int_equal(r.rows[3].nprocs, 3);
	assert_int_equal(r.rows[3].near_limit_thp, CG_YES);
	assert_float_equal(r.rows[3].use, 0.95, 1e-9);
	assert_float_equal(r.rows[3].share, 0.2, 1e-9);
	/* anon 0: no share (not 0%, not infinite); unknown anon: none */
	assert_false(r.rows[1].has_share);
	assert_false(r.rows[5].has_share);
	assert_int_equal(r.rows[5].near_limit_thp, CG_NO); /* "max" */
	cg_report_free(&r);

	/* --top 2; a node whose cgroup.procs failed makes its ancestors' counts unknown */
	nodes[3].procs_err = -EACCES;
	assert_int_equal(cg_report_build(&t, p, fb, 2, &r), 0);
	assert_int_equal(r.shown, 2);
	assert_false(r.rows[0].procs_known);
	assert_true(r.rows[1].procs_known); /* /web */
	cg_report_free(&r);

	/* no process information at all */
	assert_int_equal(cg_report_build(&t, NULL, (struct opt_u64){0}, 0, &r), 0);
	assert_false(r.rows[0].procs_known);
	assert_false(r.fallback_charge.present);
	cg_report_free(&r);
}

/* Why a row's CURRENT, USE and THP/ANON are '-' (or, for the v1 root, an estimate). */
static void test_why_dash(UNIT_STATE)
{
	struct cg_node nodes[] = {node("/", 0, 1000 * MiB, 300 * MiB), node("/a", 1, 0, 0),
				  node("/b", 1, UINT64_MAX, UINT64_MAX),
				  node("/c", 1, 100 * MiB, 0)};
	limit(&nodes[3], 50 * MiB, 100 * MiB);
	nodes[2].limit_known = false;
	set(&nodes[1].current, 10 * MiB);
	struct cg_tree t = {.version = 2, .nodes = nodes, .n = UNIT_LEN(nodes)};
	struct cg_report r;
	/* v2: the root has no memory.current; "max": no limit; anon 0: no share */
	assert_int_equal(cg_report_build(&t, NULL, (struct opt_u64){0}, 0, &r), 0);
	const char *want[] = {"/", "/a", "/c", "/b"};
	for (int i = 0; i < 4; i++)
		assert_string_equal(r.rows[i].node->path, want[i]);
	assert_int_equal(r.rows[0].current_why, CGW_V2_ROOT);
	assert_int_equal(r.rows[0].use_why, CGW_NO_LIMIT);
	assert_int_equal(r.rows[0].share_why, CGW_SHOWN);
	assert_int_equal(r.rows[1].current_why, CGW_SHOWN);
	assert_int_equal(r.rows[1].share_why, CGW_NO_ANON);
	assert_int_equal(r.rows[2].use_why, CGW_SHOWN);	  /* 50 of 100 MiB */
	assert_int_equal(r.rows[2].share_why, CGW_SHOWN); /* 0 of 100 MiB: 0.0% */
	assert_int_equal(r.rows[3].current_why, CGW_UNKNOWN);
	assert_int_equal(r.rows[3].use_why, CGW_UNKNOWN); /* limit not read */
	assert_int_equal(r.rows[3].share_why, CGW_UNKNOWN);
	cg_report_free(&r);
	/* v1: the root's memory.usage_in_bytes is shown, as the kernel's estimate */
	t.version = 1;
	set(&nodes[0].current, 800 * MiB);
	assert_int_equal(cg_report_build(&t, NULL, (struct opt_u64){0}, 0, &r), 0);
	assert_int_equal(r.rows[0].current_why, CGW_V1_ROOT_EST);
	assert_int_equal(r.rows[1].current_why, CGW_SHOWN);
	cg_report_free(&r);
	/* a v2 root that has a current (a v1-like tree or a future kernel) is shown as is */
	t.version = 2;
	assert_int_equal(cg_current_why(&t, &nodes[0]), CGW_SHOWN);
}

/* The text of R (render/cgroups.c) into OUT (N bytes). */
static void text_of(const struct cg_report *r, char *out, size_t n)
{
	memset(out, 0, n);
	FILE *f = fmemopen(out, n - 1, "w");
	assert_non_null(f);
	cg_render_text(f, r, false);
	fclose(f);
}

/* THP_OFF's "N+M?" is explained under the table, with why M is unknown (the user's capture
 * replay printed "1+66?" and nothing said what it was). */
static void test_unknown_procs_legend(UNIT_STATE)
{
	struct cg_node nodes[] = {node("/", 0, 1000 * MiB, 300 * MiB), node("/a", 1, 0, 0)};
	struct cg_tree t = {.version = 2, .nodes = nodes, .n = UNIT_LEN(nodes)};
	struct cg_procs p[2] = {{.n = 3, .thp_off = 1}, {.n = 2}};
	struct cg_report r;
	static char out[4096];
	assert_int_equal(cg_report_build(&t, p, (struct opt_u64){0}, 0, &r), 0);
	text_of(&r, out, sizeof(out));
	assert_null(strstr(out, "N+M?"));
	cg_report_free(&r);
	/* a capture that did not record 2 of them */
	p[1] = (struct cg_procs){.n = 2, .unknown = 2, .unrecorded = 2};
	assert_int_equal(cg_report_build(&t, p, (struct opt_u64){0}, 0, &r), 0);
	assert_int_equal(r.rows[0].procs_unrecorded, 2);
	text_of(&r, out, sizeof(out));
	assert_non_null(strstr(out, " 1+2?\n"));
	assert_non_null(strstr(out,
			       "  N+M? in THP_OFF: N processes with THP_enabled 0, and M more "
			       "whose THP_enabled is unknown (counted in PROCS): not in this "
			       "recorded tree (thpctl capture records a process only when given "
			       "--pid or --all-processes)\n"));
	cg_report_free(&r);
	/* live: a status not readable */
	p[1] = (struct cg_procs){.n = 2, .unknown = 1};
	assert_int_equal(cg_report_build(&t, p, (struct opt_u64){0}, 0, &r), 0);
	text_of(&r, out, sizeof(out));
	assert_non_null(strstr(out, "(counted in PROCS): proc/PID/status not readable or without "
				    "THP_enabled (kernel < 5.0)\n"));
	cg_report_free(&r);
}

UNIT_TESTS(test_near_limit, test_limit_unknown, test_report, test_why_dash,
	   test_unknown_procs_legend)
