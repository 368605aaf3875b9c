// SPDX-License-Identifier: MIT
/* Unit tests: range selection and error text of `thpctl collapse` (src/model/collapse.c). */
#include "unit.h"

#include "kernel/smaps.h"
#include "model/collapse.h"
#include "render/collapse.h"

#define M (1ull << 20)
#define PMD (2 * M)

static struct cvma vma(uint64_t start, uint64_t end, const char *perms, const char *name,
		       unsigned flags, uint64_t ahp_kb)
{
	struct cvma v = {.start = start,
			 .end = end,
			 .has_vmflags = true,
			 .vmflags = flags,
			 .thp_eligible = 1,
			 .ahp_kb = ahp_kb};
	snprintf(v.perms, sizeof(v.perms), "%s", perms);
	snprintf(v.name, sizeof(v.name), "%s", name);
	return v;
}

/* A process: text, heap (8 MiB, unaligned start), a 32 MiB anon region, a
 * small anon VMA, an nh region, a read-only anon mapping, a stack. */
static int layout(struct cvma *v)
{
	int n = 0;
	v[n++] = vma(0x400000, 0x600000, "r-xp", "/usr/bin/x", 0, 0);
	v[n++] = vma(0x1001000, 0x1801000, "rw-p", "[heap]", 0, 0);
	v[n++] = vma(0x7f0000000000, 0x7f0002000000, "rw-p", "", 0, 4096);
	v[n++] = vma(0x7f0002000000, 0x7f0002010000, "rw-p", "", 0, 0);
	v[n++] = vma(0x7f0004000000, 0x7f0004800000, "rw-p", "", VMF_NH, 0);
	v[n++] = vma(0x7f0006000000, 0x7f0006400000, "r--p", "", 0, 0);
	v[n++] = vma(0x7ffc00000000, 0x7ffc00021000, "rw-p", "[stack]", 0, 0);
	return n;
}

static void test_parse_range(UNIT_STATE)
{
	uint64_t a, b;
	assert_int_equal(collapse_parse_range("7f0000000000-7f0002000000", &a, &b), 0);
	assert_true(a == 0x7f0000000000ull && b == 0x7f0002000000ull);
	assert_int_equal(collapse_parse_range("0x1000-0X3000", &a, &b), 0);
	assert_true(a == 0x1000 && b == 0x3000);
	assert_int_equal(collapse_parse_range("3000-1000", &a, &b), -EINVAL);
	assert_int_equal(collapse_parse_range("1000-1000", &a, &b), -EINVAL);
	assert_int_equal(collapse_parse_range("1000", &a, &b), -EINVAL);
	assert_int_equal(collapse_parse_range("1000-", &a, &b), -EINVAL);
	assert_int_equal(collapse_parse_range("g000-2000", &a, &b), -EINVAL);
	assert_int_equal(collapse_parse_range("1000-2000x", &a, &b), -EINVAL);
	assert_int_equal(collapse_parse_range("10000000000000000-2", &a, &b), -EINVAL);
}

/* layout()'s VMAs and the ranges collapse_select picks from them. */
struct picked {
	struct cvma v[16];
	int n, small;
	struct crange r[16];
};

static void pick_init(struct picked *f)
{
	memset(f, 0, sizeof(*f));
	f->n = layout(f->v);
}

/* collapse_select over F's VMAs with SEL, PMD pages, room for 16 ranges. */
static int pick(struct picked *f, const struct collapse_sel *sel)
{
	return collapse_select(f->v, f->n, sel, PMD, f->r, 16, &f->small);
}

static void test_default_selection(UNIT_STATE)
{
	struct picked f;
	pick_init(&f);
	struct collapse_sel sel = {.thp_enabled = 1};
	int k = pick(&f, &sel);
	/* heap (aligned part 0x1200000-0x1800000), the 32 MiB region, the nh region (skipped) */
	assert_int_equal(k, 3);
	assert_string_equal(f.r[0].vma, "[heap]");
	assert_true(f.r[0].start == 0x1200000 && f.r[0].end == 0x1800000);
	assert_int_equal(f.r[0].npmd, 3);
	assert_int_equal(f.r[0].skip, CR_GO);
	assert_string_equal(f.r[1].vma, "[anon]");
	assert_int_equal(f.r[1].npmd, 16);
	assert_int_equal(f.r[1].skip, CR_GO);
	assert_int_equal(f.r[2].skip, CR_SKIP_NH);
	/* left out: the 64 KiB anon VMA and the stack; the read-only and file VMAs are not anon rw */
	assert_int_equal(f.small, 2);

	sel.force = true;
	k = pick(&f, &sel);
	assert_int_equal(f.r[2].skip, CR_GO);
	assert_int_equal(collapse_select(f.v, f.n, &sel, PMD, f.r, 2, &f.small), -ENOSPC);
}

static void test_prctl_disabled(UNIT_STATE)
{
	struct picked f;
	pick_init(&f);
	struct collapse_sel sel = {.thp_enabled = 0};
	int k = pick(&f, &sel);
	assert_int_equal(k, 3);
	for (int i = 0; i < k; i++)
		assert_int_equal(f.r[i].skip, CR_SKIP_PRCTL);
	sel.force = true;
	pick(&f, &sel);
	assert_int_equal(f.r[0].skip, CR_GO);
	assert_int_equal(f.r[2].skip, CR_GO);
	sel.thp_enabled = -1; /* kernel < 5.0: unknown, not a reason to skip */
	sel.force = false;
	pick(&f, &sel);
	assert_int_equal(f.r[0].skip, CR_GO);
}

static void test_vma_selection(UNIT_STATE)
{
	struct picked f;
	pick_init(&f);
	const char *heap[] = {"[heap]"};
	struct collapse_sel sel = {.vmas = heap, .nvmas = 1, .thp_enabled = 1};
	int k = pick(&f, &sel);
	assert_int_equal(k, 1);
	assert_string_equal(f.r[0].vma, "[heap]");
	const char *anon[] = {"[anon]", "[stack]"};
	sel.vmas = anon;
	sel.nvmas = 2;
	k = pick(&f, &sel);
	/* every unnamed VMA (also the read-only one and the f.small one: asked for by name) */
	assert_int_equal(k, 5);
	assert_int_equal(f.r[1].skip, CR_SKIP_SMALL);
	assert_int_equal(f.r[2].skip, CR_SKIP_NH);
	assert_int_equal(f.r[4].skip, CR_SKIP_SMALL); /* the stack */
	assert_int_equal(f.small, 0);
	assert_int_equal(collapse_vma_unmatched(f.v, f.n, &sel), -1);
}

/* A --vma name no VMA has is told apart from VMAs with nothing to collapse. */
static void test_vma_unmatched(UNIT_STATE)
{
	struct picked f;
	pick_init(&f);
	const char *typo[] = {"[heap]", "[haep]"};
	struct collapse_sel sel = {.vmas = typo, .nvmas = 2, .thp_enabled = 1};
	assert_int_equal(collapse_vma_unmatched(f.v, f.n, &sel), 1);
	sel.nvmas = 1;
	assert_int_equal(collapse_vma_unmatched(f.v, f.n, &sel), -1);
	/* a name matches whole, not as a prefix: "[anon" is no name */
	const char *part[] = {"[anon"};
	sel.vmas = part;
	assert_int_equal(collapse_vma_unmatched(f.v, f.n, &sel), 0);
	/* no --vma: nothing unmatched */
	sel.nvmas = 0;
	assert_int_equal(collapse_vma_unmatched(f.v, f.n, &sel), -1);
	/* the stack matches but holds no whole aligned huge page: a range, skipped small */
	const char *stack[] = {"[stack]"};
	sel.vmas = stack;
	sel.nvmas = 1;
	assert_int_equal(collapse_vma_unmatched(f.v, f.n, &sel), -1);
	assert_int_equal(pick(&f, &sel), 1);
	assert_int_equal(f.r[0].skip, CR_SKIP_SMALL);
}

static void test_range_selection(UNIT_STATE)
{
	struct picked f;
	pick_init(&f);
	struct crange_req req[] = {
		{0x7f0000100000, 0x7f0001f00000}, /* inside the 32 MiB region, unaligned */
		{0x7f0000000000, 0x7f0000100000}, /* less than a PMD */
		{0x7f0010000000, 0x7f0010400000}, /* nothing there */
		{0x7f0004000000, 0x7f0004200000}, /* the nh region */
	};
	struct collapse_sel sel = {.ranges = req, .nranges = 4, .thp_enabled = 1};
	int k = pick(&f, &sel);
	assert_int_equal(k, 4);
	assert_true(f.r[0].start == 0x7f0000200000ull && f.r[0].end == 0x7f0001e00000ull);
	assert_int_equal(f.r[0].npmd, 14);
	assert_int_equal(f.r[0].skip, CR_GO);
	assert_string_equal(f.r[0].vma, "[anon]");
	assert_int_equal(f.r[1].skip, CR_SKIP_SMALL);
	assert_int_equal(f.r[2].skip, CR_SKIP_UNMAPPED);
	assert_int_equal(f.r[3].skip, CR_SKIP_NH);
	/* AnonHugePages of the VMAs a range lies in */
	assert_int_equal(collapse_ahp_kb(f.v, f.n, f.r[0].start, f.r[0].end), 4096);
	assert_int_equal(collapse_ahp_kb(f.v, f.n, 0x7f0002000000ull, 0x7f0002010000ull), 0);
}

static void test_spanning_range_names(UNIT_STATE)
{
	struct cvma v[4];
	int small;
	v[0] = vma(0x200000, 0x600000, "rw-p", "", 0, 0);
	v[1] = vma(0x600000, 0xa00000, "rw-p", "[heap]", 0, 0);
	v[2] = vma(0xa00000, 0xe00000, "rw-p", "", 0, 0);
	struct crange_req req[] = {{0x200000, 0xe00000}};
	struct crange r[2];
	struct collapse_sel sel = {.ranges = req, .nranges = 1, .thp_enabled = 1};
	assert_int_equal(collapse_select(v, 3, &sel, PMD, r, 2, &small), 1);
	assert_string_equal(r[0].vma, "[anon],[heap]");
	assert_int_equal(r[0].npmd, 6);
}

static void test_anon_and_labels(UNIT_STATE)
{
	struct cvma v = vma(0, PMD, "rw-p", "", 0, 0);
	assert_true(cvma_is_anon(&v));
	assert_string_equal(cvma_label(&v), "[anon]");
	v = vma(0, PMD, "rw-s", "", 0, 0);
	assert_false(cvma_is_anon(&v)); /* shared */
	v = vma(0, PMD, "rw-p", "[anon:jemalloc]", 0, 0);
	assert_true(cvma_is_anon(&v));
	v = vma(0, PMD, "rw-p", "/lib/libc.so.6", 0, 0);
	assert_false(cvma_is_anon(&v));
	v = vma(0, PMD, "r--p", "[vvar]", 0, 0);
	assert_false(cvma_is_anon(&v));
}

static void test_explain_and_backoff(UNIT_STATE)
{
	assert_non_null(strstr(collapse_explain(-EPERM), "CAP_SYS_NICE"));
	assert_non_null(strstr(collapse_explain(-EPERM), "needs root"));
	assert_non_null(strstr(collapse_explain(-EINVAL), "6.1"));
	assert_non_null(strstr(collapse_explain(-EINVAL), "nh"));
	assert_non_null(strstr(collapse_explain(-EINVAL), "prctl"));
	assert_non_null(strstr(collapse_explain(-ENOMEM), "free huge page"));
	assert_non_null(strstr(collapse_explain(-EAGAIN), "backoff"));
	assert_non_null(strstr(collapse_explain(-EBUSY), "cgroup"));
	assert_int_equal(collapse_backoff_ms(0), 0);
	unsigned last = 0;
	int n = 0;
	for (int a = 1; collapse_backoff_ms(a); a++, n++) {
		assert_true(collapse_backoff_ms(a) > last);
		last = collapse_backoff_ms(a);
	}
	assert_true(n >= 3 && n <= 8); /* a few retries, growing, then give up */
	assert_true(last <= 1000);
}

/* A range of NPMD huge pages to plan, as collapse_estimate leaves it from pagemap. */
static struct crange counted(uint64_t npmd, uint64_t present, uint64_t nonempty, uint64_t huge)
{
	return (struct crange){.start = 0x7f0000000000,
			       .end = 0x7f0000000000 + npmd * PMD,
			       .req_start = 0x7f0000000000,
			       .req_end = 0x7f0000000000 + npmd * PMD,
			       .npmd = npmd,
			       .have_estimate = true,
			       .present_pages = present,
			       .nonempty_pmds = nonempty,
			       .huge_pmds = huge,
			       .huge_how = CH_PAGEMAP_SCAN};
}

/* The plan of NPMD huge pages without pagemap, HUGE of them PMD-mapped (counted HOW). */
static struct crange unread_plan(uint64_t npmd, uint64_t huge, enum crange_huge_how how)
{
	struct crange r = counted(npmd, 0, 0, huge);
	r.have_estimate = false;
	r.huge_how = how;
	collapse_plan_range(&r, 512, 2.0, false);
	return r;
}

/* RSS growth estimate: whole huge pages made resident per non-empty PMD vs pages present. */
static void test_inflation_estimate(UNIT_STATE)
{
	/* 32 PMDs with one page each: 32 * 512 / 32 = x512, refused at 2 */
	struct crange r = counted(32, 32, 32, 0);
	collapse_plan_range(&r, 512, COLLAPSE_MAX_INFLATE_DEFAULT, false);
	assert_int_equal(r.skip, CR_SKIP_INFLATE);
	assert_true(r.have_growth && r.est_inflate > 511.99 && r.est_inflate < 512.01);
	r = counted(32, 32, 32, 0);
	collapse_plan_range(&r, 512, 512.0, false); /* exactly the limit: allowed */
	assert_int_equal(r.skip, CR_GO);
	assert_int_equal(r.planned_pmds, 32);
	r = counted(32, 32, 32, 0);
	collapse_plan_range(&r, 512, 2.0, true); /* --force */
	assert_int_equal(r.skip, CR_GO);
	/* fully written: x1 */
	r = counted(8, 4096, 8, 0);
	collapse_plan_range(&r, 512, 1.0, false);
	assert_int_equal(r.skip, CR_GO);
	assert_true(r.have_growth && r.est_inflate > 0.99 && r.est_inflate < 1.01);
	/* half of each PMD written: x2, the default limit, allowed; one page less is over */
	r = counted(4, 256 * 4, 4, 0);
	collapse_plan_range(&r, 512, COLLAPSE_MAX_INFLATE_DEFAULT, false);
	assert_int_equal(r.skip, CR_GO);
	r = counted(4, 256 * 4 - 1, 4, 0);
	collapse_plan_range(&r, 512, COLLAPSE_MAX_INFLATE_DEFAULT, false);
	assert_int_equal(r.skip, CR_SKIP_INFLATE);
	/* arm64 64 KiB pages: 8192 pages per 512 MiB PMD */
	r = counted(2, 8192, 2, 0);
	collapse_plan_range(&r, 8192, 2.0, false);
	assert_true(r.have_growth && r.est_inflate > 1.99 && r.est_inflate < 2.01);
	/* a range skipped before (nh) is left alone */
	r = counted(2, 1, 1, 0);
	r.skip = CR_SKIP_NH;
	collapse_plan_range(&r, 512, 2.0, false);
	assert_int_equal(r.skip, CR_SKIP_NH);
	assert_false(r.have_growth);
	assert_non_null(strstr(crange_skip_text(CR_SKIP_INFLATE), "--max-inflate"));
}

/*
 * A user's trial: a 66 MiB MADV_HUGEPAGE region, its first 64 MiB written (32 PMD-mapped
 * THPs), and a 2 MiB VMA with nothing in it. The dry run planned 33 + 1 huge pages
 * ("66.0 MiB"), the empty range 1 huge page with RSS growth "-" in text but 1.0 in JSON.
 */
static void test_already_huge_and_empty_are_not_work(UNIT_STATE)
{
	/* all 32 PMD-mapped: skipped, nothing planned, whatever --force */
	struct crange r = counted(32, 32 * 512, 32, 32);
	collapse_plan_range(&r, 512, 2.0, true);
	assert_int_equal(r.skip, CR_SKIP_HUGE);
	assert_int_equal(r.planned_pmds, 0);
	assert_false(r.have_growth);
	/* 32 PMD-mapped and one empty: nothing to do either */
	r = counted(33, 32 * 512, 32, 32);
	collapse_plan_range(&r, 512, 2.0, false);
	assert_int_equal(r.skip, CR_SKIP_HUGE);
	assert_int_equal(r.planned_pmds, 0);
	/* 32 PMD-mapped and one half written: one huge page planned, growth of that one x2 */
	r = counted(33, 32 * 512 + 256, 33, 32);
	collapse_plan_range(&r, 512, 2.0, false);
	assert_int_equal(r.skip, CR_GO);
	assert_int_equal(r.planned_pmds, 1);
	assert_true(r.have_growth && r.est_inflate > 1.99 && r.est_inflate < 2.01);
	/* ... one page written: x512, refused as before */
	r = counted(33, 32 * 512 + 1, 33, 32);
	collapse_plan_range(&r, 512, 2.0, false);
	assert_int_equal(r.skip, CR_SKIP_INFLATE);
	assert_int_equal(r.planned_pmds, 1);
	/* nothing present: skipped (the kernel refuses it), no huge page, no ratio */
	r = counted(1, 0, 0, 0);
	collapse_plan_range(&r, 512, 2.0, true);
	assert_int_equal(r.skip, CR_SKIP_EMPTY);
	assert_int_equal(r.planned_pmds, 0);
	assert_false(r.have_growth);
	/* no pagemap: the PMD-mapped ones (smaps) are still no work; the rest may be */
	r = unread_plan(32, 32, CH_SMAPS);
	assert_int_equal(r.skip, CR_SKIP_HUGE);
	r = unread_plan(32, 30, CH_SMAPS_AT_LEAST);
	assert_int_equal(r.skip, CR_GO);
	assert_int_equal(r.planned_pmds, 2);
	assert_false(r.have_growth);
	/* not counted: every PMD may be work */
	r = unread_plan(32, 32, CH_UNKNOWN);
	assert_int_equal(r.skip, CR_GO);
	assert_int_equal(r.planned_pmds, 32);
}

/* collapse_huge_smaps over V (2 VMAs) for the first NPMD huge pages of counted(): HOW, HUGE. */
static void smaps_counts(const struct cvma *v, uint64_t npmd, enum crange_huge_how how,
			 uint64_t huge)
{
	struct crange r = counted(npmd, 0, 0, 0);
	collapse_huge_smaps(&r, v, 2, PMD);
	assert_int_equal(r.huge_how, how);
	assert_int_equal(r.huge_pmds, huge);
}

/* How many PMD-mapped huge pages smaps (AnonHugePages of the VMA) puts in a range. */
static void test_huge_from_smaps(UNIT_STATE)
{
	/* a 64 MiB VMA (32 aligned PMDs), 30 of them PMD-mapped; a 2 MiB one beside it */
	struct cvma v[2] = {vma(0x7f0000000000, 0x7f0004000000, "rw-p", "", VMF_HG, 30 * 2048),
			    vma(0x7f0004000000, 0x7f0004200000, "rw-p", "", 0, 0)};
	for (int i = 0; i < 2; i++) {
		v[i].pmd_mapped_kb = v[i].ahp_kb;
		v[i].pmd_known = true;
	}
	smaps_counts(v, 32, CH_SMAPS, 30);
	/* the first 16 PMDs: at most 16 of the 30 lie outside, so at least 14 inside */
	smaps_counts(v, 16, CH_SMAPS_AT_LEAST, 14);
	/* 2 PMDs: all 30 may lie outside */
	smaps_counts(v, 2, CH_SMAPS_AT_LEAST, 0);
	/* all 32 huge: every part of it is huge, exactly */
	v[0].pmd_mapped_kb = 32 * 2048;
	smaps_counts(v, 2, CH_SMAPS, 2);
	/* across both VMAs (--range): 32 + 0, exact */
	smaps_counts(v, 33, CH_SMAPS, 32);
	/* AnonHugePages unread: unknown, not 0 */
	v[1].pmd_known = false;
	smaps_counts(v, 33, CH_UNKNOWN, 0);
}

/* The trial's two ranges rendered: what text and JSON say of them agree. */
static void test_already_huge_rendered(UNIT_STATE)
{
	struct crange r[2] = {counted(32, 32 * 512, 32, 32), counted(1, 0, 0, 0)};
	r[1].start = r[1].req_start = r[0].end;
	r[1].end = r[1].req_end = r[0].end + PMD;
	r[1].huge_how = CH_SMAPS;
	for (int i = 0; i < 2; i++) {
		snprintf(r[i].vma, sizeof(r[i].vma), "[anon]");
		collapse_plan_range(&r[i], 512, 2.0, false);
	}
	struct collapse_report rep = {.pid = 7133,
				      .comm = "hp",
				      .thp_enabled = 1,
				      .pmd_size = PMD,
				      .dry_run = true,
				      .max_inflate = 2.0,
				      .vmrss_before_kb = 67028,
				      .vmrss_after_kb = -1,
				      .nranges = 2,
				      .ranges = r};
	char w[400];
	assert_string_equal(crange_skip_words(&rep, &r[0], w, sizeof(w)),
			    "already huge: 32 of 32 PMD ranges PMD-mapped (PAGEMAP_SCAN): nothing "
			    "to collapse");
	assert_contains(crange_skip_words(&rep, &r[1], w, sizeof(w)), "no page present");
	struct unit_mem m;
	collapse_render_text(unit_mem_open(&m), &rep, false);
	char *t = unit_mem_text(&m);
	assert_contains(t, "PID 7133 (hp): 0 range(s), 0 kB in 2 MiB huge pages, 2 skipped");
	assert_contains(t, "skipped: already huge: 32 of 32 PMD ranges PMD-mapped (PAGEMAP_SCAN)");
	assert_contains(t, "skipped: nothing in it: no page present or swapped (pagemap)");
	assert_null(strstr(t, "x1.0"));
	free(t);
	json_t *j = collapse_to_json(&rep);
	assert_non_null(j);
	json_t *a = json_object_get(j, "ranges");
	for (int i = 0; i < 2; i++) {
		json_t *o = json_array_get(a, (size_t)i);
		assert_true(json_is_null(json_object_get(o, "rss_growth_estimate")));
		assert_int_equal(json_integer_value(json_object_get(o, "planned_pmds")), 0);
		assert_true(json_is_string(json_object_get(o, "skipped")));
	}
	json_t *o = json_array_get(a, 0);
	assert_int_equal(json_integer_value(json_object_get(o, "huge_pmds")), 32);
	assert_string_equal(json_string_value(json_object_get(o, "huge_pmds_method")),
			    "pagemap_scan");
	o = json_array_get(a, 1);
	assert_int_equal(json_integer_value(json_object_get(o, "present_pages")), 0);
	assert_string_equal(json_string_value(json_object_get(o, "huge_pmds_method")), "smaps");
	assert_true(json_is_null(json_object_get(o, "huge_zero_pmds")));
	json_decref(j);
	/* a run: huge-page ranges found PMD-mapped before their call are said, not collapsed */
	r[0] = counted(33, 32 * 512 + 256, 33, 32);
	snprintf(r[0].vma, sizeof(r[0].vma), "[anon]");
	collapse_plan_range(&r[0], 512, 2.0, false);
	r[0].attempted = true;
	r[0].nhuge = 32;
	r[0].nok = 1;
	collapse_settle(&r[0], PMD); /* checked by PAGEMAP_SCAN: one collapsed */
	r[1].skip = CR_SKIP_NH;	     /* skipped before the plan: nothing planned, not 0 */
	rep.dry_run = false;
	collapse_render_text(unit_mem_open(&m), &rep, false);
	t = unit_mem_text(&m);
	assert_contains(t, "PID 7133 (hp): 1 range(s), 2048 kB in 2 MiB huge pages, 1 skipped");
	assert_contains(t, "ok (32 already huge)");
	assert_contains(t, "32 huge-page range(s) PMD-mapped already (PAGEMAP_SCAN) not tried");
	free(t);
	j = collapse_to_json(&rep);
	assert_non_null(j);
	o = json_array_get(json_object_get(j, "ranges"), 0);
	assert_int_equal(json_integer_value(json_object_get(o, "already_huge_pmds")), 32);
	assert_int_equal(json_integer_value(json_object_get(o, "collapsed_pmds")), 1);
	assert_int_equal(json_integer_value(json_object_get(o, "planned_pmds")), 1);
	o = json_array_get(json_object_get(j, "ranges"), 1);
	assert_true(json_is_null(json_object_get(o, "planned_pmds")));
	json_decref(j);
}

/* RSS of the VMAs a range overlaps, as for AnonHugePages. */
static void test_rss_of_range(UNIT_STATE)
{
	struct cvma v[2] = {{.start = 0x200000, .end = 0x600000, .rss_kb = 128},
			    {.start = 0x600000, .end = 0xa00000, .rss_kb = 4096}};
	assert_int_equal(collapse_rss_kb(v, 2, 0x200000, 0x400000), 128);
	assert_int_equal(collapse_rss_kb(v, 2, 0x400000, 0x800000), 128 + 4096);
	assert_int_equal(collapse_rss_kb(v, 2, 0xa00000, 0xc00000), 0);
}

/*
 * --vma "/dev/zero (deleted)" of python3's mmap.mmap(-1, 64 MiB) under shmem_enabled=never:
 * the dry run listed 31 huge pages, the run failed EINVAL 31 of 31 (6.18). Skipped now,
 * with the policy named; --force tries; the EINVAL words name the shmem policy.
 */
static void test_shmem_its_policy_forbids_is_skipped(UNIT_STATE)
{
	static const char *const T[] = {"always", "within_size", "advise",
					"never",  "deny",	 "force"};
	static const char *const S[] = {"always", "inherit", "within_size", "advise", "never"};
	struct choice top, size;
	unit_set_choice(&top, T, 6, "never");
	unit_set_choice(&size, S, 5, "inherit");
	struct shmem_rules rules;
	shmem_rules_make(&top, &size, 2048, &rules);
	struct cvma v[2];
	v[0] = vma(0x7f1d0ef46000, 0x7f1d12f46000, "rw-s", "/dev/zero (deleted)", VMF_SH | VMF_HG,
		   0);
	v[0].thp_eligible = 0;
	v[1] = vma(0x7f2000000000, 0x7f2000800000, "rw-s", "/dev/shm/seg", VMF_SH | VMF_HG, 0);
	v[1].thp_eligible = 0;
	const char *names[] = {"/dev/zero (deleted)"};
	struct collapse_sel sel = {.thp_enabled = 1, .vmas = names, .nvmas = 1, .shmem = &rules};
	struct crange r[4];
	int small;
	assert_int_equal(collapse_select(v, 2, &sel, PMD, r, 4, &small), 1);
	assert_int_equal(r[0].skip, CR_SKIP_SHMEM);
	assert_int_equal(r[0].npmd, 31);
	assert_int_equal(r[0].shm, SHK_ANON);
	struct collapse_report rep = {.ranges = r, .nranges = 1, .shmem = &rules};
	char w[400];
	const char *t = crange_skip_words(&rep, &r[0], w, sizeof(w));
	assert_contains(t, "hugepages-2048kB/shmem_enabled inherit -> shmem_enabled=never");
	assert_contains(t, "EINVAL");
	assert_contains(t, "--force tries anyway");
	assert_non_null(strstr(collapse_explain(-EINVAL), "shmem"));
	/* --force: tried */
	sel.force = true;
	assert_int_equal(collapse_select(v, 2, &sel, PMD, r, 4, &small), 1);
	assert_int_equal(r[0].skip, CR_GO);
	sel.force = false;
	/* the policy unknown: tried, as before */
	sel.shmem = NULL;
	assert_int_equal(collapse_select(v, 2, &sel, PMD, r, 4, &small), 1);
	assert_int_equal(r[0].skip, CR_GO);
	sel.shmem = &rules;
	/* the kernel shows it THPeligible 1: its word stands */
	v[0].thp_eligible = 1;
	assert_int_equal(collapse_select(v, 2, &sel, PMD, r, 4, &small), 1);
	assert_int_equal(r[0].skip, CR_GO);
	v[0].thp_eligible = 0;
	/* a /dev/shm file follows its mount's huge=, which collapse does not read */
	names[0] = "/dev/shm/seg";
	assert_int_equal(collapse_select(v, 2, &sel, PMD, r, 4, &small), 1);
	assert_int_equal(r[0].skip, CR_GO);
	/* advise: MADV_HUGEPAGE shmem may have them */
	names[0] = "/dev/zero (deleted)";
	unit_set_choice(&top, T, 6, "advise");
	shmem_rules_make(&top, &size, 2048, &rules);
	assert_int_equal(collapse_select(v, 2, &sel, PMD, r, 4, &small), 1);
	assert_int_equal(r[0].skip, CR_GO);
	/* ... not without it */
	v[0].vmflags = VMF_SH;
	assert_int_equal(collapse_select(v, 2, &sel, PMD, r, 4, &small), 1);
	assert_int_equal(r[0].skip, CR_SKIP_SHMEM);
}

UNIT_TESTS(test_inflation_estimate, test_already_huge_and_empty_are_not_work, test_huge_from_smaps,
	   test_already_huge_rendered, test_rss_of_range, test_parse_range, test_default_selection,
	   test_prctl_disabled, test_vma_selection, test_vma_unmatched, test_range_selection,
	   test_spanning_range_names, test_anon_and_labels, test_explain_and_backoff,
	   test_shmem_its_policy_forbids_is_skipped)
