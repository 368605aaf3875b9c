// SPDX-License-Identifier: MIT
/* Unit tests: src/lab/journal.c (the settings journal's text and allow-list). */
#include "unit.h"

#include "lab/journal.h"

#define THP "sys/kernel/mm/transparent_hugepage"

/* journal_rel_allowed gives WANT for each of the N PATHS. */
static void check_rel_allowed(const char *const *paths, size_t n, bool want)
{
	for (size_t i = 0; i < n; i++) {
		print_message("%s\n", paths[i]);
		assert_int_equal(journal_rel_allowed(paths[i]), want);
	}
}

static void test_allow_list_takes_every_knob_thpctl_writes(UNIT_STATE)
{
	static const char *const written[] = {
		THP "/enabled",
		THP "/defrag",
		THP "/shmem_enabled",
		THP "/khugepaged/max_ptes_none",
		THP "/khugepaged/scan_sleep_millisecs",
		THP "/hugepages-64kB/enabled",
		THP "/hugepages-2048kB/shmem_enabled",
		"sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages",
		"sys/kernel/mm/hugepages/hugepages-1048576kB/nr_overcommit_hugepages",
		"sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages",
		"proc/sys/vm/compaction_proactiveness",
		"proc/sys/vm/nr_hugepages",
		"proc/sys/vm/nr_overcommit_hugepages",
		/* RHEL 6 (2.6.32): the same knobs under another directory */
		"sys/kernel/mm/redhat_transparent_hugepage/enabled",
		"sys/kernel/mm/redhat_transparent_hugepage/khugepaged/defrag",
	};
	check_rel_allowed(written, UNIT_LEN(written), true);
}

static void test_allow_list_refuses_escapes_and_other_files(UNIT_STATE)
{
	static const char *const refused[] = {
		/* the four the reliability run used to overwrite canary files */
		"tmp/x",
		"/tmp/x",
		"../../../tmp/x",
		THP "/../../../../tmp/x",
		/* never drop_caches, nor anything else under /proc/sys */
		"proc/sys/vm/drop_caches",
		"proc/sys/kernel/core_pattern",
		"proc/sys/vm/nr_hugepages/x",
		THP "/./enabled",
		THP "//enabled",
		THP "/enabled/",
		THP "/",
		THP,
		THP "/Enabled",
		THP "/hugepages-kB/enabled",
		THP "/hugepages-64kB/stats",
		THP "/hugepages-64xkB/enabled",
		"sys/devices/system/node/nodeX/hugepages/hugepages-2048kB/nr_hugepages",
		"sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages",
		"",
		"sys/kernel/mm/transparent_hugepage_x/enabled",
		"sys/kernel/mm/redhat_transparent_hugepage/hugepages-64kB/enabled",
		"sys/kernel/mm/redhat_transparent_hugepage/../hugepages/x",
	};
	check_rel_allowed(refused, UNIT_LEN(refused), false);
}

static void test_pokes_are_only_drop_caches_and_compact_memory(UNIT_STATE)
{
	static const char *const yes[] = {"proc/sys/vm/drop_caches", "proc/sys/vm/compact_memory",
					  NULL};
	static const char *const no[] = {THP "/enabled", "proc/sys/vm/../vm/drop_caches", NULL};
	unit_accepts("journal_poke_allowed", journal_poke_allowed, yes, no);
}

static void test_values_are_knob_words_or_numbers(UNIT_STATE)
{
	char longv[80];
	memset(longv, 'a', sizeof(longv) - 1);
	longv[sizeof(longv) - 1] = '\0';
	static const char *const yes[] = {"madvise", "defer+madvise", "511", "within_size", NULL};
	const char *const no[] = {"", "a b", "x\n", "[never]", "../x", longv, NULL};
	unit_accepts("journal_value_ok", journal_value_ok, yes, no);
}

static void test_parse_keeps_allowed_entries_and_counts_the_rest(UNIT_STATE)
{
	static const char text[] =
		"thpctl-journal 2\n"
		"owner 1234\n"
		"purpose lab quick\n"
		"entry " THP "/enabled\tmadvise\n"
		"entry tmp/x\tboom\n"
		"entry " THP "/../../../../tmp/x\tboom\n"
		"entry " THP "/defrag\tmadvise\n"
		"entry " THP "/enabled\talways\n" /* a second line for one file */
		"entry " THP "/khugepaged/max_ptes_none\t5 11\n"
		"garbage\n";
	struct journal j;
	assert_int_equal(journal_parse(LIT(text), &j), 0);
	assert_int_equal(j.owner, 1234);
	assert_string_equal(j.purpose, "lab quick");
	assert_int_equal(j.n, 2);
	assert_string_equal(j.e[0].rel, THP "/enabled");
	assert_string_equal(j.e[0].old, "madvise"); /* the first value is the original */
	assert_string_equal(j.e[1].rel, THP "/defrag");
	assert_int_equal(j.rejected, 4);
	assert_string_equal(j.first_rejected, "tmp/x?boom");
}

static void test_parse_reads_version_1_and_refuses_other_headers(UNIT_STATE)
{
	struct journal j;
	static const char v1[] = "thpctl-journal 1\nowner 77 123456\npurpose set\n"
				 "entry " THP "/defrag\tnever\n";
	assert_int_equal(journal_parse(LIT(v1), &j), 0);
	assert_int_equal(j.owner, 77);
	assert_int_equal(j.n, 1);
	assert_int_equal(journal_parse(LIT("thpctl-journal 3\nentry " THP "/defrag\tnever\n"), &j),
			 -EINVAL);
	assert_int_equal(j.n, 0);
	assert_int_equal(journal_parse(LIT(""), &j), -EINVAL);
	assert_int_equal(journal_parse(LIT("\x7f"
					   "ELF"),
				       &j),
			 -EINVAL);
	/* a NUL inside an entry is damage, not a shorter path */
	static const char nul[] = "thpctl-journal 2\nentry " THP "/enabled\0x\tnever\n";
	assert_int_equal(journal_parse(nul, sizeof(nul) - 1, &j), 0);
	assert_int_equal(j.n, 0);
	assert_int_equal(j.rejected, 1);
}

static void test_parse_sanitises_purpose(UNIT_STATE)
{
	struct journal j;
	assert_int_equal(journal_parse(LIT("thpctl-journal 2\npurpose \x1b[31mred\n"), &j), 0);
	assert_string_equal(j.purpose, "?[31mred");
}

static void test_format_round_trips(UNIT_STATE)
{
	struct journal j = {.n = 2};
	snprintf(j.purpose, sizeof(j.purpose), "set");
	snprintf(j.e[0].rel, sizeof(j.e[0].rel), THP "/enabled");
	snprintf(j.e[0].old, sizeof(j.e[0].old), "madvise");
	snprintf(j.e[1].rel, sizeof(j.e[1].rel), "proc/sys/vm/compaction_proactiveness");
	snprintf(j.e[1].old, sizeof(j.e[1].old), "20");
	char out[512];
	int n = journal_format(&j, 42, out, sizeof(out));
	assert_true(n > 0);
	assert_string_equal(out, "thpctl-journal 2\nowner 42\npurpose set\n"
				 "entry " THP "/enabled\tmadvise\n"
				 "entry proc/sys/vm/compaction_proactiveness\t20\n");
	struct journal back;
	assert_int_equal(journal_parse(out, (size_t)n, &back), 0);
	assert_int_equal(back.n, 2);
	assert_int_equal(back.rejected, 0);
	assert_string_equal(back.e[1].old, "20");
	assert_false(back.unrestored);
	assert_int_equal(journal_format(&j, 42, out, 20), -ENOSPC);
	/* an owner whose restore failed says so: the next run does not call it killed */
	j.unrestored = true;
	n = journal_format(&j, 42, out, sizeof(out));
	assert_non_null(strstr(out, "\npurpose set\nunrestored\nentry "));
	assert_int_equal(journal_parse(out, (size_t)n, &back), 0);
	assert_true(back.unrestored);
	assert_int_equal(back.rejected, 0);
}

static void test_value_matches_choice_and_number_files(UNIT_STATE)
{
	assert_true(journal_value_matches(LIT("always [madvise] never\n"), "madvise"));
	assert_false(journal_value_matches(LIT("always [madvise] never\n"), "always"));
	assert_false(journal_value_matches(LIT("always [madvise] never\n"), "madvis"));
	assert_true(journal_value_matches(LIT("511\n"), "511"));
	assert_false(journal_value_matches(LIT("5110\n"), "511"));
	assert_false(journal_value_matches(LIT("51\n"), "511"));
	assert_false(journal_value_matches(LIT("always [madvise never\n"), "madvise"));
	assert_false(journal_value_matches(LIT(""), "0"));
}

UNIT_TESTS(test_allow_list_takes_every_knob_thpctl_writes,
	   test_allow_list_refuses_escapes_and_other_files,
	   test_pokes_are_only_drop_caches_and_compact_memory,
	   test_values_are_knob_words_or_numbers,
	   test_parse_keeps_allowed_entries_and_counts_the_rest,
	   test_parse_reads_version_1_and_refuses_other_headers, test_parse_sanitises_purpose,
	   test_format_round_trips, test_value_matches_choice_and_number_files)
