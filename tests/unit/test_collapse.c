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

/* RSS growth estimate: whole huge pages made resident per non-empty PMD vs pages present. */
static void test_inflation_estimate(UNIT_STATE)
{
	/* 32 PMDs with one page each: 32 * 512 / 32 = x512, refused at 2 */
	struct crange r = {.present_pages = 32, .nonempty_pmds = 32};
	assert_true(collapse_inflates(&r, 512, COLLAPSE_MAX_INFLATE_DEFAULT));
	assert_true(r.est_inflate > 511.99 && r.est_inflate < 512.01);
	assert_false(collapse_inflates(&r, 512, 512.0)); /* exactly the limit: allowed */
	/* fully written: x1 */
	r = (struct crange){.present_pages = 4096, .nonempty_pmds = 8};
	assert_false(collapse_inflates(&r, 512, 1.0));
	assert_true(r.est_inflate > 0.99 && r.est_inflate < 1.01);
	/* half of each PMD written: x2, the default limit, allowed; one page less is over */
	r = (struct crange){.present_pages = 256 * 4, .nonempty_pmds = 4};
	assert_false(collapse_inflates(&r, 512, COLLAPSE_MAX_INFLATE_DEFAULT));
	r.present_pages--;
	assert_true(collapse_inflates(&r, 512, COLLAPSE_MAX_INFLATE_DEFAULT));
	/* nothing present: no collapse happens (empty PMDs are not tried), x1 */
	r = (struct crange){0};
	assert_false(collapse_inflates(&r, 512, 1.0));
	assert_true(r.est_inflate == 1.0);
	/* arm64 64 KiB pages: 8192 pages per 512 MiB PMD */
	r = (struct crange){.present_pages = 8192, .nonempty_pmds = 2};
	assert_false(collapse_inflates(&r, 8192, 2.0));
	assert_true(r.est_inflate > 1.99 && r.est_inflate < 2.01);
	assert_int_equal(strlen(crange_skip_text(CR_SKIP_INFLATE)) > 0, 1);
	assert_non_null(strstr(crange_skip_text(CR_SKIP_INFLATE), "--max-inflate"));
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

UNIT_TESTS(test_inflation_estimate, test_rss_of_range, test_parse_range, test_default_selection,
	   test_prctl_disabled, test_vma_selection, test_range_selection, test_spanning_range_names,
	   test_anon_and_labels, test_explain_and_backoff, test_shmem_its_policy_forbids_is_skipped)
