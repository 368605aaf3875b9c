// SPDX-License-Identifier: MIT
/*
 * Unit tests: the pure parts of src/kernel/features.c (release, cmdline) and
 * the sysfs directory names of thp_settings.c and hugetlb.c.
 */
#include "unit.h"

#include "kernel/capture.h"
#include "kernel/features.h"
#include "kernel/hugetlb.h"
#include "kernel/thp_settings.h"

static void expect_version(const char *rel, int a, int b, int c)
{
	int v[3] = {-1, -1, -1};
	assert_int_equal(kernel_version_parse(rel, v), 0);
	assert_int_equal(v[0], a);
	assert_int_equal(v[1], b);
	assert_int_equal(v[2], c);
}

static void test_kernel_version_parse(UNIT_STATE)
{
	expect_version("6.18.44-fc-v857", 6, 18, 44);
	expect_version("4.19.0-25-amd64", 4, 19, 0);
	expect_version("5.8.18", 5, 8, 18);
	expect_version("5.4.0-1103-aws", 5, 4, 0);
	expect_version("6.8.0-rc3+", 6, 8, 0);
	expect_version("6.18", 6, 18, 0);
	expect_version("6.18-rc1", 6, 18, 0);
	expect_version("3.10.0-1160.el7.x86_64", 3, 10, 0);
	expect_version("6.1.", 6, 1, 0);
}

static void test_kernel_version_bad(UNIT_STATE)
{
	const char *bad[] = {"",	   "6",	   "6.",  "abc",
			     "v6.1.0",	   ".1.2", "6.x", "99999999999999999999.1.1",
			     "100001.1.1", "6-rc1"};
	for (size_t i = 0; i < UNIT_LEN(bad); i++) {
		int v[3] = {-1, -1, -1};
		assert_int_equal(kernel_version_parse(bad[i], v), -EINVAL);
		/* unparsable: {0,0,0}, as struct features documents */
		assert_int_equal(v[0], 0);
		assert_int_equal(v[1], 0);
		assert_int_equal(v[2], 0);
	}
}

static void test_kver_at_least(UNIT_STATE)
{
	const int v58[3] = {5, 8, 0}, v57[3] = {5, 7, 19}, v419[3] = {4, 19, 250},
		  v60[3] = {6, 0, 0}, v618[3] = {6, 18, 44};
	assert_true(kver_at_least(v58, 5, 8));
	assert_false(kver_at_least(v57, 5, 8));
	assert_false(kver_at_least(v419, 5, 8));
	assert_true(kver_at_least(v60, 5, 8));
	assert_true(kver_at_least(v618, 6, 18));
	assert_false(kver_at_least(v618, 6, 19));
	assert_false(kver_at_least(v618, 7, 0));
	assert_true(kver_at_least(v419, 4, 19));
}

/* A file absent from a tree says "the kernel lacks it" only where the tree can tell (issue 24). */
static void test_absence_known(UNIT_STATE)
{
	struct features f = {0};
	f.thp_recorded = REC_LIVE;
	assert_true(features_absence_known(&f, 6, 12));
	f.thp_recorded = REC_WHOLE;
	assert_true(features_absence_known(&f, 6, 12));
	f.thp_recorded = REC_MISSING;
	assert_false(features_absence_known(&f, 6, 12));
	/* a tree without a manifest (a sos report): only its release can say */
	f.thp_recorded = REC_TREE;
	assert_false(features_absence_known(&f, 6, 12)); /* release unknown */
	f.kver[0] = 6, f.kver[1] = 8;
	assert_true(features_absence_known(&f, 6, 12)); /* 6.8 has no shrink_underused */
	assert_false(features_absence_known(&f, 6, 8)); /* 6.8 has mTHP: not recorded */
	f.kver[0] = 2, f.kver[1] = 6, f.kver[2] = 32;
	assert_true(features_absence_known(&f, 6, 10));
}

static void test_cmdline_thp(UNIT_STATE)
{
	char out[32];
	const char c1[] = "BOOT_IMAGE=/boot/vmlinuz-6.1.0-18-amd64 root=UUID=1234 ro "
			  "transparent_hugepage=never quiet\n";
	assert_int_equal(cmdline_thp_parse(LIT(c1), out, sizeof(out)), 0);
	assert_string_equal(out, "never");

	/* first and last word; the last one wins */
	const char c2[] = "transparent_hugepage=always console=ttyS0 transparent_hugepage=madvise";
	assert_int_equal(cmdline_thp_parse(LIT(c2), out, sizeof(out)), 0);
	assert_string_equal(out, "madvise");

	/* after "--" the words belong to init */
	const char c3[] = "ro quiet -- transparent_hugepage=always\n";
	assert_int_equal(cmdline_thp_parse(LIT(c3), out, sizeof(out)), -ENOENT);
	const char c4[] = "transparent_hugepage=never -- transparent_hugepage=always\n";
	assert_int_equal(cmdline_thp_parse(LIT(c4), out, sizeof(out)), 0);
	assert_string_equal(out, "never");
}

static void test_cmdline_thp_absent(UNIT_STATE)
{
	char out[32] = "unchanged";
	/* this host's real cmdline: no THP option */
	const char real[] = "mitigations=auto,no_guest_host,no_guest_guest console=ttyS0 quiet "
			    "reboot=k panic=1 nomodule random.trust_cpu=1 swiotlb=noforce psi=1 "
			    "rdinit=/process_api -- --firecracker-init --addr 0.0.0.0:2024\n";
	assert_int_equal(cmdline_thp_parse(LIT(real), out, sizeof(out)), -ENOENT);
	assert_string_equal(out, "unchanged");
	assert_int_equal(cmdline_thp_parse(LIT(""), out, sizeof(out)), -ENOENT);
	/* an empty value, a longer key (6.13's shmem option), a suffix match */
	const char c[] = "transparent_hugepage= transparent_hugepage_shmem=always "
			 "xtransparent_hugepage=always thp_anon=64K:always\n";
	assert_int_equal(cmdline_thp_parse(LIT(c), out, sizeof(out)), -ENOENT);
}

static void test_cmdline_thp_truncates(UNIT_STATE)
{
	char out[4];
	assert_int_equal(cmdline_thp_parse(LIT("transparent_hugepage=madvise\n"), out, sizeof(out)),
			 0);
	assert_string_equal(out, "mad");
}

static void test_thp_dirname_kb(UNIT_STATE)
{
	assert_int_equal(hugepages_dirname_kb("hugepages-2048kB"), 2048);
	assert_int_equal(hugepages_dirname_kb("hugepages-64kB"), 64);
	assert_int_equal(hugepages_dirname_kb("hugepages-8kB"), 8);
	assert_int_equal(hugepages_dirname_kb("hugepages-524288kB"), 524288); /* arm64 64K pages */
	assert_int_equal(hugepages_dirname_kb("hugepages-kB"), 0);
	assert_int_equal(hugepages_dirname_kb("hugepages-64"), 0);
	assert_int_equal(hugepages_dirname_kb("hugepages-64KB"), 0);
	assert_int_equal(hugepages_dirname_kb("hugepages-64kBx"), 0);
	assert_int_equal(hugepages_dirname_kb("hugepages-6x4kB"), 0);
	assert_int_equal(hugepages_dirname_kb("hugepages- 64kB"),
			 0); /* a whole number, no blanks */
	assert_int_equal(hugepages_dirname_kb("hugepages-99999999999999999999kB"), 0);
	assert_int_equal(hugepages_dirname_kb("khugepaged"), 0);
	assert_int_equal(hugepages_dirname_kb("enabled"), 0);
	assert_int_equal(hugepages_dirname_kb(""), 0);
}

/* A capture that recorded the THP tree in part (an mTHP directory unreadable) did not record
 * it whole: a size absent there is not recorded, not absent from the kernel. */
static void test_partial_thp_capture_is_not_whole(UNIT_STATE)
{
	static const char *const states[][2] = {{"complete", "whole"},
						{"absent", "whole"},
						{"partial", "missing"},
						{"unreadable", "missing"}};
	for (size_t i = 0; i < UNIT_LEN(states); i++) {
		char root[64], m[256];
		struct sysroot sr;
		unit_tree(root, "featcap", NULL, &sr);
		snprintf(m, sizeof(m),
			 "# thpctl capture manifest 1\n"
			 "unreadable sys/kernel/mm/transparent_hugepage/hugepages-64kB x\n"
			 "%s sys/kernel/mm/transparent_hugepage\n",
			 states[i][0]);
		unit_put_deep(root, SR_CAPTURE_MANIFEST, m);
		unit_put_deep(root, "sys/kernel/mm/transparent_hugepage/enabled",
			      "always [madvise] never\n");
		struct features f;
		assert_int_equal(features_probe(&sr, &f), 0);
		assert_true(f.thp);
		assert_int_equal(f.thp_recorded,
				 strcmp(states[i][1], "whole") == 0 ? REC_WHOLE : REC_MISSING);
		unit_tree_remove(root, &sr);
	}
}

UNIT_TESTS(test_absence_known, test_partial_thp_capture_is_not_whole, test_kernel_version_parse,
	   test_kernel_version_bad, test_kver_at_least, test_cmdline_thp, test_cmdline_thp_absent,
	   test_cmdline_thp_truncates, test_thp_dirname_kb)
