// SPDX-License-Identifier: MIT
/* Unit tests: src/kernel/sysfs.c (typed readers of one-value files, the paths the guard writes). */
#include "unit.h"

#include <sys/stat.h>

#include "kernel/sysfs.h"

static char root[64];
static struct sysroot sr;

#define THP "sys/kernel/mm/transparent_hugepage"

static void put(const char *rel, const char *text)
{
	unit_put(root, rel, text);
}

static void mk(const char *rel)
{
	unit_mkdir(root, rel);
}

static int setup(UNIT_STATE)
{
	snprintf(root, sizeof(root), "/tmp/thpctl-sysfs.XXXXXX");
	if (!mkdtemp(root))
		return -1;
	static const char *const dirs[] = {"sys",
					   "sys/kernel",
					   "sys/kernel/mm",
					   THP,
					   THP "/khugepaged",
					   THP "/hugepages-2048kB",
					   THP "/hugepages-2048kB/stats",
					   THP "/hugepages-64kB",
					   THP "/hugepages-16kB",
					   THP "/hugepages-16kB/stats",
					   THP "/not-a-size"};
	for (size_t i = 0; i < UNIT_LEN(dirs); i++)
		mk(dirs[i]);
	put(THP "/enabled", "always [madvise] never\n");
	put(THP "/defrag", "always defer defer+madvise [madvise] never\n");
	put(THP "/khugepaged/max_ptes_none", "511\n");
	put(THP "/khugepaged/pages_collapsed", "18446744073709551615\n"); /* 2^64-1 */
	put(THP "/khugepaged/full_scans", "18446744073709551616\n");	  /* 2^64 */
	put(THP "/khugepaged/scan_sleep_millisecs", "1 0\n");		  /* damaged */
	put(THP "/khugepaged/pages_to_scan", "");			  /* empty */
	put(THP "/khugepaged/alloc_sleep_millisecs", "600");		  /* cut: no newline */
	put(THP "/hpage_pmd_size", "2097152\n");
	put(THP "/hugepages-2048kB/enabled", "always inherit madvise [never]\n");
	put(THP "/hugepages-2048kB/stats/anon_fault_alloc", "7\n");
	put(THP "/hugepages-2048kB/stats/nr_anon", "3\n");
	put(THP "/hugepages-2048kB/stats/split", "x\n"); /* damaged: counted, not kept */
	put(THP "/hugepages-16kB/stats/nr_anon", "0\n");
	put(THP "/hugepages-64kB/enabled", "always inherit [madvise] nev"); /* cut: no newline */
	char big[SYSFS_VALUE_MAX + 2];
	memset(big, '1', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	put(THP "/use_zero_page", big);
	char exact[SYSFS_VALUE_MAX + 1];
	memset(exact, ' ', sizeof(exact) - 1);
	exact[sizeof(exact) - 3] = '1';
	exact[sizeof(exact) - 2] = '\n';
	exact[sizeof(exact) - 1] = '\0';
	put(THP "/shrink_underused", exact); /* exactly SYSFS_VALUE_MAX bytes */
	return sysroot_open(&sr, root);
}

static int teardown(UNIT_STATE)
{
	sysroot_close(&sr);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	return system(cmd);
}

static void a_value_is_the_bracketed_word_or_the_trimmed_text(UNIT_STATE)
{
	/* the text (with its length: NULs inside) and the value parsed from it */
	static const struct unit_text_str c[] = {
		{LIT("always [madvise] never\n"), "madvise"},
		{LIT("511 \n\n"), "511"},
		{LIT(""), ""},
		/* a bracket that does not parse as a choice is kept as text */
		{LIT("[a [b]\n"), "[a [b]"},
		/* a NUL ends the value, and the blank before it goes (a fuzz finding: "ze \0\377") */
		{LIT("within_size \0\377\377 x\n"), "within_size"},
	};
	char v[16];
	for (size_t i = 0; i < UNIT_LEN(c); i++) {
		unit_row_int(c[i].text, "sysfs_value_parse",
			     sysfs_value_parse(c[i].text, c[i].len, v, sizeof(v)), 0);
		unit_row_str(c[i].text, "the value", v, c[i].want);
	}
	assert_int_equal(sysfs_value_parse(LIT("0123456789abcdef\n"), v, sizeof(v)), -E2BIG);
	assert_int_equal(sysfs_value_parse(LIT("0123456789abcde\n"), v, sizeof(v)), 0);
}

static void numbers_good_huge_damaged_empty_cut_and_missing(UNIT_STATE)
{
	uint64_t v = 77;
	assert_int_equal(thp_knob_u64(&sr, "khugepaged/max_ptes_none", &v), 0);
	assert_int_equal(v, 511);
	assert_int_equal(thp_knob_u64(&sr, "khugepaged/pages_collapsed", &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(thp_knob_u64(&sr, "khugepaged/full_scans", &v), -ERANGE);
	assert_int_equal(thp_knob_u64(&sr, "khugepaged/scan_sleep_millisecs", &v), -EINVAL);
	assert_int_equal(thp_knob_u64(&sr, "khugepaged/pages_to_scan", &v), -EINVAL);
	/* the kernel ends a value with its newline: a file without it was cut ("60" of 600,
	 * "6553" of 65536) and is no number, never a smaller plausible one */
	assert_int_equal(thp_knob_u64(&sr, "khugepaged/alloc_sleep_millisecs", &v), -EINVAL);
	assert_int_equal(sysfs_u64(&sr, THP "/khugepaged/alloc_sleep_millisecs", &v), -EINVAL);
	assert_int_equal(thp_knob_u64(&sr, "khugepaged/max_ptes_swap", &v), -ENOENT);
	assert_int_equal(sysfs_u64(&sr, THP "/hpage_pmd_size", &v), 0);
	assert_int_equal(v, 2097152);
	/* a directory is not a value */
	assert_int_equal(thp_knob_u64(&sr, "khugepaged", &v), -EISDIR);
}

static void a_file_past_the_ceiling_is_too_large_one_at_it_is_read(UNIT_STATE)
{
	uint64_t v;
	char t[8];
	assert_int_equal(thp_knob_u64(&sr, "use_zero_page", &v), -EFBIG);
	assert_int_equal(thp_knob_value(&sr, "use_zero_page", t, sizeof(t)), -EFBIG);
	assert_int_equal(thp_knob_u64(&sr, "shrink_underused", &v), 0);
	assert_int_equal(v, 1);
}

static void choices_and_values_of_knobs(UNIT_STATE)
{
	struct choice c;
	char v[32];
	assert_int_equal(thp_knob_choice(&sr, "enabled", &c), 0);
	assert_string_equal(c.selected, "madvise");
	assert_int_equal(c.noptions, 3);
	assert_int_equal(thp_knob_choice(&sr, "hugepages-2048kB/enabled", &c), 0);
	assert_string_equal(c.selected, "never");
	assert_int_equal(thp_knob_choice(&sr, "khugepaged/max_ptes_none", &c), -EINVAL);
	assert_false(c.present);
	assert_int_equal(thp_knob_choice(&sr, "shmem_enabled", &c), -ENOENT);
	/* cut before its newline: "madvise" is bracketed, but "nev" is no option and more
	 * may be missing; unknown, never a plausible choice */
	assert_int_equal(thp_knob_choice(&sr, "hugepages-64kB/enabled", &c), -EINVAL);
	assert_false(c.present);
	assert_int_equal(thp_knob_value(&sr, "defrag", v, sizeof(v)), 0);
	assert_string_equal(v, "madvise");
	assert_int_equal(thp_knob_value(&sr, "khugepaged/max_ptes_none", v, sizeof(v)), 0);
	assert_string_equal(v, "511");
	assert_int_equal(thp_knob_value(&sr, "defrag", v, 4), -E2BIG);
}

static void sizes_listed_ascending_and_their_stats(UNIT_STATE)
{
	uint64_t kb[8];
	assert_int_equal(thp_sizes_list(&sr, kb, 8), 3);
	assert_int_equal(kb[0], 16);
	assert_int_equal(kb[1], 64);
	assert_int_equal(kb[2], 2048);
	assert_int_equal(thp_sizes_list(&sr, kb, 1), 1);
	uint64_t v = 0;
	assert_int_equal(thp_size_stat(&sr, 2048, "anon_fault_alloc", &v), 0);
	assert_int_equal(v, 7);
	assert_int_equal(thp_size_stat(&sr, 64, "nr_anon", &v), -ENOENT);
	struct kvlist l = {0};
	assert_int_equal(thp_size_stats_read(&sr, 2048, &l), 0);
	assert_int_equal(l.n, 2);
	assert_int_equal(l.bad, 1);
	assert_true(kv_get(&l, "nr_anon", &v) && v == 3);
	assert_false(kv_get(&l, "split", &v));
	assert_int_equal(thp_size_stats_read(&sr, 64, &l), -ENOENT); /* before 6.10 */
	assert_int_equal(l.n, 0);
	assert_int_equal(thp_size_stats_read(&sr, 16, &l), 0);
	assert_true(kv_get(&l, "nr_anon", &v) && v == 0);
	kvlist_free(&l);
	struct sysroot none;
	assert_int_equal(sysroot_open(&none, "/tmp"), 0);
	assert_int_equal(thp_sizes_list(&none, kb, 8), -ENOENT);
	sysroot_close(&none);
}

static void the_paths_the_guard_writes(UNIT_STATE)
{
	char p[96];
	assert_int_equal(thp_knob_rel(p, sizeof(p), "khugepaged/max_ptes_none"), 0);
	assert_string_equal(p, THP "/khugepaged/max_ptes_none");
	assert_int_equal(thp_size_rel(p, sizeof(p), 2048, "enabled"), 0);
	assert_string_equal(p, THP "/hugepages-2048kB/enabled");
	assert_int_equal(hugetlb_pool_rel(p, sizeof(p), 1048576, "nr_hugepages"), 0);
	assert_string_equal(p, "sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages");
	assert_int_equal(sysctl_vm_rel(p, sizeof(p), "drop_caches"), 0);
	assert_string_equal(p, "proc/sys/vm/drop_caches");
	assert_int_equal(thp_size_rel(p, 40, 2048, "enabled"), -ENAMETOOLONG);
	assert_int_equal(sysctl_vm_rel(p, 10, "drop_caches"), -ENAMETOOLONG);
}

static void the_live_host_knobs_read(UNIT_STATE)
{
	struct sysroot live;
	assert_int_equal(sysroot_open(&live, "/"), 0);
	uint64_t pmd;
	struct choice c;
	if (thp_knob_u64(&live, "hpage_pmd_size", &pmd) == 0) {
		assert_true(pmd >= 1u << 20 && (pmd & (pmd - 1)) == 0);
		assert_int_equal(thp_knob_choice(&live, "enabled", &c), 0);
		assert_true(c.present);
	}
	sysroot_close(&live);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_value_is_the_bracketed_word_or_the_trimmed_text),
		cmocka_unit_test(numbers_good_huge_damaged_empty_cut_and_missing),
		cmocka_unit_test(a_file_past_the_ceiling_is_too_large_one_at_it_is_read),
		cmocka_unit_test(choices_and_values_of_knobs),
		cmocka_unit_test(sizes_listed_ascending_and_their_stats),
		cmocka_unit_test(the_paths_the_guard_writes),
		cmocka_unit_test(the_live_host_knobs_read),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
