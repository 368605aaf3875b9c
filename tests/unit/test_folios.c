// SPDX-License-Identifier: MIT
/*
 * Unit tests: the underused-THP model (src/model/folios.c), the zero-subpage
 * counter (src/kernel/underused.c), cgroup paths and cgroup.procs walking
 * (src/kernel/cgroup_procs.c) on a constructed tree, and the folio report.
 */
#include "unit.h"

#include <jansson.h>
#include <sys/stat.h>

#include "kernel/cgroup_procs.h"
#include "kernel/underused.h"
#include "model/folios.h"
#include "render/folios.h"

static void test_zero_subpages(UNIT_STATE)
{
	static unsigned char buf[8 * 4096];
	memset(buf, 0, sizeof(buf));
	assert_int_equal(zero_subpages(buf, sizeof(buf), 4096), 8);
	buf[4096 * 3 + 4095] = 1; /* the last byte of page 3 */
	buf[4096 * 5] = 0x80;	  /* the first byte of page 5 */
	assert_int_equal(zero_subpages(buf, sizeof(buf), 4096), 6);
	/* a trailing part page is not counted */
	assert_int_equal(zero_subpages(buf, 4096 + 100, 4096), 1);
	assert_int_equal(zero_subpages(buf, 0, 4096), 0);
}

/* The zeros helper's THPs: 0, 1, 63, 64, 65, 128, 129, 256, 300, 512 zero subpages. */
static void helper_hist(struct underused_hist *h)
{
	static const int z[] = {0, 1, 63, 64, 65, 128, 129, 256, 300, 512};
	assert_int_equal(underused_hist_init(h, 512), 0);
	for (size_t i = 0; i < UNIT_LEN(z); i++)
		underused_hist_add(h, z[i]);
}

static void test_underused_split(UNIT_STATE)
{
	struct underused_hist h;
	helper_hist(&h);
	assert_int_equal(h.nthp, 10);
	assert_int_equal(h.zero, 1518);
	int th[UNDERUSED_NTHRESH];
	underused_thresholds(512, th);
	static const int want_th[] = {0, 64, 128, 256, 511};
	static const uint64_t want_thps[] = {9, 6, 4, 2, 0},
			      want_sub[] = {1518, 1390, 1197, 812, 0};
	for (int i = 0; i < UNDERUSED_NTHRESH; i++) {
		uint64_t thps, sub;
		assert_int_equal(th[i], want_th[i]);
		underused_split(&h, th[i], &thps, &sub);
		assert_int_equal(thps, want_thps[i]);
		assert_int_equal(sub, want_sub[i]);
	}
	/* more than max_ptes_none splits: exactly max_ptes_none zero subpages stays */
	uint64_t thps, sub;
	underused_split(&h, 63, &thps, &sub);
	assert_int_equal(thps, 7); /* 64 65 128 129 256 300 512 */
	underused_split(&h, 510, &thps, &sub);
	assert_int_equal(thps, 1); /* only the all-zero THP */
	underused_split(&h, -1, &thps, &sub);
	assert_int_equal(thps, 0);
	/* out-of-range zero counts are clamped into the histogram */
	underused_hist_add(&h, 9999);
	underused_hist_add(&h, -3);
	assert_int_equal(h.hist[512], 2);
	assert_int_equal(h.hist[0], 2);
	underused_hist_free(&h);
}

/* The "now" sentence: at a max_ptes_none that is no row of the table, what it splits there;
 * a knob that could not be read: inconclusive, '-', and the JSON partial. */
static char *underused_now(long mpn, long shrink, bool *partial)
{
	static struct underused_report r;
	memset(&r, 0, sizeof(r));
	folio_geom_init(&r.g, 4096, 0);
	helper_hist(&r.total);
	r.max_ptes_none = mpn;
	r.shrink_underused = shrink;
	char *t = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&t, &n);
	underused_render_text(f, &r, false);
	fclose(f);
	json_t *j = underused_to_json(&r);
	*partial = json_is_true(json_object_get(j, "partial"));
	json_decref(j);
	underused_hist_free(&r.total);
	char *now = strstr(t, "now: ");
	char *out = strdup(now ? now : t);
	free(t);
	return out;
}

static void test_underused_now(UNIT_STATE)
{
	bool partial;
	char *t = underused_now(63, 1, &partial);
	assert_contains(t, "now: khugepaged/max_ptes_none 63, shrink_underused 1: under memory "
			   "pressure the shrinker splits the 7 of 10 THPs with more than 63 "
			   "all-zero subpages");
	assert_false(partial);
	free(t);
	t = underused_now(-2, 1, &partial);
	assert_contains(t, "max_ptes_none - (unreadable), shrink_underused 1: inconclusive");
	assert_null(strstr(t, "-1"));
	assert_true(partial);
	free(t);
	t = underused_now(64, -2, &partial);
	assert_contains(t, "shrink_underused - (unreadable): inconclusive");
	assert_true(partial);
	free(t);
	t = underused_now(64, -1, &partial);
	assert_contains(t, "shrink_underused absent: this kernel has no underused-THP shrinker");
	assert_false(partial);
	free(t);
}

static void test_underused_merge(UNIT_STATE)
{
	struct underused_hist a, b;
	helper_hist(&a);
	helper_hist(&b);
	underused_hist_merge(&a, &b);
	assert_int_equal(a.nthp, 20);
	assert_int_equal(a.zero, 3036);
	assert_int_equal(a.hist[300], 2);
	underused_hist_free(&a);
	underused_hist_free(&b);
	/* 64 kB pages: 8192 subpages per PMD THP; thresholds scale */
	int th[UNDERUSED_NTHRESH];
	underused_thresholds(8192, th);
	assert_int_equal(th[1], 1024);
	assert_int_equal(th[4], 8191);
}

static void test_geom_and_report(UNIT_STATE)
{
	struct folio_geom g;
	folio_geom_init(&g, 4096, 64);
	assert_int_equal(g.page_kb, 4);
	assert_int_equal(g.pmd_order, 9);
	folio_geom_init(&g, 65536, 0);
	assert_int_equal(g.pmd_order, 13); /* 512 MiB PMDs */
	struct folio_report r = {0};
	struct folio_vma v = {.start = 0x1000, .end = 0x5000, .perms = "rw-p"};
	v.c.rss[FT_ANON] = 4;
	assert_int_equal(folio_report_add(&r, &v), 0); /* no THP: counted, not kept */
	assert_int_equal(r.n, 0);
	assert_int_equal(r.nvmas, 1);
	v.c.aligned[FT_ANON][2] = 4;
	v.name = "/usr/lib/x";
	v.name_len = 10;
	assert_int_equal(folio_report_add(&r, &v), 0);
	assert_int_equal(r.n, 1);
	assert_string_equal(r.vmas[0].name, "/usr/lib/x");
	assert_int_equal(r.total.rss[FT_ANON], 8);
	assert_true(folio_share(&r.total, FT_ANON, 4) == 0.5);
	assert_true(folio_share(&r.total, FT_FILE, 4) < 0);
	assert_int_equal(folio_orders_used(&r.total, 9), 1u << 2);
	v.c.aligned[FT_ANON][2] = 0;
	v.c.zero_pmd = 512; /* the huge zero page alone is worth a row */
	v.name_len = 0;
	assert_int_equal(folio_report_add(&r, &v), 0);
	assert_int_equal(r.n, 2);
	assert_string_equal(r.vmas[1].name, "[anon]");
	folio_report_free(&r);
}

/* A share with pages left out is never printed 100% (64.1 MiB anon, 64 MiB of it in THP). */
static void test_share_not_rounded_up(UNIT_STATE)
{
	struct folio_report r = {0};
	folio_geom_init(&r.g, 4096, 0);
	r.method = FM_PAGEFLAGS_SCAN;
	struct folio_vma v = {.start = 0x200000, .end = 0x4220000, .perms = "rw-p"};
	v.c.rss[FT_ANON] = 16416;
	v.c.pmd[FT_ANON] = 16384;
	assert_int_equal(folio_report_add(&r, &v), 0);
	char *t = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&t, &n);
	assert_non_null(f);
	folio_maps_render_text(f, &r, false);
	fclose(f);
	assert_contains(t, "(99.8% in THP");
	assert_null(strstr(t, "100%"));
	free(t);
	folio_report_free(&r);
}

static void test_cgroup_rel(UNIT_STATE)
{
	char out[64];
	assert_int_equal(cgroup_rel("/sys/fs/cgroup/memory/a/", out, sizeof(out)), 0);
	assert_string_equal(out, "sys/fs/cgroup/memory/a");
	assert_int_equal(cgroup_rel("sys/fs/cgroup", out, sizeof(out)), 0);
	assert_string_equal(out, "sys/fs/cgroup");
	assert_int_equal(cgroup_rel("memory/a", out, sizeof(out)), 0);
	assert_string_equal(out, "sys/fs/cgroup/memory/a");
	assert_int_equal(cgroup_rel("/system.slice", out, sizeof(out)), 0);
	assert_string_equal(out, "sys/fs/cgroup/system.slice");
	/* "sys/fs/cgroupX" is not under sys/fs/cgroup */
	assert_int_equal(cgroup_rel("/sys/fs/cgroupX", out, sizeof(out)), 0);
	assert_string_equal(out, "sys/fs/cgroup/sys/fs/cgroupX");
	assert_int_equal(cgroup_rel("a/very/long/path/that/does/not/fit/in/the/buffer", out, 20),
			 -ENAMETOOLONG);
}

static void test_cgroup_pids(UNIT_STATE)
{
	char dir[] = "/tmp/thpctl-cg.XXXXXX";
	assert_non_null(mkdtemp(dir));
	unit_mkdirs(dir, "sys/fs/cgroup/app/web/w1");
	unit_mkdir(dir, "sys/fs/cgroup/app/db");
	unit_mkdir(dir, "sys/fs/cgroup/other");
	unit_put(dir, "sys/fs/cgroup/cgroup.procs", "1\n");
	unit_put(dir, "sys/fs/cgroup/app/cgroup.procs", "");
	unit_put(dir, "sys/fs/cgroup/app/web/cgroup.procs", "300\n200\n");
	unit_put(dir, "sys/fs/cgroup/app/web/w1/cgroup.procs", "400\n200\ngarbage\n0\n");
	unit_put(dir, "sys/fs/cgroup/app/db/cgroup.procs", "100\n");
	unit_put(dir, "sys/fs/cgroup/other/cgroup.procs", "999\n");
	struct sysroot sr;
	assert_int_equal(sysroot_open(&sr, dir), 0);
	pid_t *p;
	char rel[256];
	assert_int_equal(cgroup_rel("/sys/fs/cgroup/app", rel, sizeof(rel)), 0);
	int n = cgroup_pids(&sr, rel, &p);
	assert_int_equal(n, 4); /* recursive, sorted, duplicates once, junk skipped */
	assert_int_equal(p[0], 100);
	assert_int_equal(p[1], 200);
	assert_int_equal(p[2], 300);
	assert_int_equal(p[3], 400);
	free(p);
	assert_int_equal(cgroup_rel("app/web/w1", rel, sizeof(rel)), 0);
	assert_int_equal(cgroup_pids(&sr, rel, &p), 2);
	free(p);
	assert_int_equal(cgroup_rel("app/nope", rel, sizeof(rel)), 0);
	assert_int_equal(cgroup_pids(&sr, rel, &p), -ENOENT);
	assert_int_equal(cgroup_rel("/", rel, sizeof(rel)), 0);
	assert_int_equal(cgroup_pids(&sr, rel, &p), 6);
	free(p);
	unit_tree_remove(dir, &sr);
}

/* cgroup v1: the paths `cgroups` prints are under the memory hierarchy; "/" is its root. */
static void test_cgroup_find_v1(UNIT_STATE)
{
	char dir[] = "/tmp/thpctl-cg1.XXXXXX";
	assert_non_null(mkdtemp(dir));
	unit_mkdirs(dir, "sys/fs/cgroup/memory/app");
	unit_mkdirs(dir, "sys/fs/cgroup/cpu/app");
	unit_put(dir, "sys/fs/cgroup/memory/cgroup.procs", "1\n");
	unit_put(dir, "sys/fs/cgroup/memory/app/cgroup.procs", "42\n");
	unit_put(dir, "sys/fs/cgroup/cpu/app/cgroup.procs", "7\n");
	struct sysroot sr;
	assert_int_equal(sysroot_open(&sr, dir), 0);
	char rel[256];
	assert_int_equal(cgroup_find(&sr, "/app", rel, sizeof(rel)), 0);
	assert_string_equal(rel, "sys/fs/cgroup/memory/app");
	assert_int_equal(cgroup_find(&sr, "/", rel, sizeof(rel)), 0);
	assert_string_equal(rel, "sys/fs/cgroup/memory");
	assert_int_equal(cgroup_find(&sr, "cpu/app", rel, sizeof(rel)), 0); /* as given first */
	assert_string_equal(rel, "sys/fs/cgroup/cpu/app");
	assert_int_equal(cgroup_find(&sr, "/nope", rel, sizeof(rel)), -ENOENT);
	assert_string_equal(rel, "sys/fs/cgroup/nope");
	/* a whole path is taken as it is */
	assert_int_equal(cgroup_find(&sr, "/sys/fs/cgroup/app", rel, sizeof(rel)), -ENOENT);
	pid_t *p;
	assert_int_equal(cgroup_find(&sr, "app", rel, sizeof(rel)), 0);
	assert_int_equal(cgroup_pids(&sr, rel, &p), 1);
	assert_int_equal(p[0], 42);
	free(p);
	unit_tree_remove(dir, &sr);
}

UNIT_TESTS(test_zero_subpages, test_share_not_rounded_up, test_underused_now, test_underused_split,
	   test_underused_merge, test_geom_and_report, test_cgroup_rel, test_cgroup_pids,
	   test_cgroup_find_v1)
