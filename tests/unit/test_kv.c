// SPDX-License-Identifier: MIT
/* Unit tests: src/kernel/kv.c (/proc/vmstat and /proc/meminfo). */
#include "unit.h"

#include "kernel/kv.h"

/* Excerpt of /proc/vmstat on a 6.18 guest, with some non-zero values. */
static const char vmstat_618[] = "nr_free_pages 1078159\n"
				 "nr_free_pages_blocks 1042432\n"
				 "nr_anon_transparent_hugepages 3\n"
				 "pgscan_khugepaged 0\n"
				 "compact_stall 17\n"
				 "compact_fail 5\n"
				 "compact_success 12\n"
				 "thp_fault_alloc 1234\n"
				 "thp_fault_fallback 56\n"
				 "thp_collapse_alloc 7\n"
				 "thp_deferred_split_page 2\n"
				 "thp_underused_split_page 0\n"
				 "thp_split_pmd 9\n"
				 "thp_swpout_fallback 0\n";

/* L holds N pairs, and BAD lines were passed over. */
static void check_counts(const struct kvlist *l, size_t n, size_t bad)
{
	assert_int_equal(l->n, n);
	assert_int_equal(l->bad, bad);
}

/* kv_get finds NAME with value V. */
struct kv_want {
	const char *name;
	uint64_t v;
};

static void check_values(const struct kvlist *l, const struct kv_want *w, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t v = 0;
		assert_true(kv_get(l, w[i].name, &v));
		assert_int_equal(v, w[i].v);
	}
}

/* kv_get finds none of the NULL-ended NAMES. */
static void check_absent(const struct kvlist *l, const char *const *names)
{
	for (; *names; names++)
		if (kv_get(l, *names, NULL))
			fail_msg("\"%s\" is in the list", *names);
}

static void test_vmstat_values(UNIT_STATE)
{
	struct kvlist l = {0};
	uint64_t v = 0;
	assert_int_equal(vmstat_parse(LIT(vmstat_618), &l), 0);
	check_counts(&l, 14, 0);
	check_values(&l,
		     (const struct kv_want[]){
			     {"nr_free_pages", 1078159},
			     {"thp_fault_alloc", 1234},
			     {"thp_fault_fallback", 56},
			     {"nr_anon_transparent_hugepages", 3},
			     {"thp_swpout_fallback", 0},
		     },
		     5);
	/* order is the file's */
	assert_string_equal(l.items[0].name, "nr_free_pages");
	assert_string_equal(l.items[13].name, "thp_swpout_fallback");
	/* absent keys are absent, not zero; V is untouched */
	v = 77;
	assert_false(kv_get(&l, "thp_file_alloc", &v));
	assert_int_equal(v, 77);
	assert_false(kv_get(&l, "thp_fault", NULL)); /* no prefix match */
	assert_true(kv_get(&l, "compact_stall", NULL));
	kvlist_free(&l);
	assert_null(l.items);
	assert_int_equal(l.n, 0);
}

static void test_vmstat_unknown_keys_kept(UNIT_STATE)
{
	struct kvlist l = {0};
	const char text[] = "thp_fault_alloc 1\n"
			    "some_counter_from_2030 42\n"
			    "anon_fault_declined 8\n";
	assert_int_equal(vmstat_parse(LIT(text), &l), 0);
	assert_int_equal(l.n, 3);
	static const struct kv_want w[] = {{"some_counter_from_2030", 42},
					   {"anon_fault_declined", 8}};
	check_values(&l, w, 2);
	kvlist_free(&l);
}

static void test_vmstat_malformed_lines(UNIT_STATE)
{
	struct kvlist l = {0};
	const char text[] = "thp_fault_alloc 10\n"
			    "no_number\n"			   /* no value */
			    "word abc\n"			   /* not a number */
			    "thp_split_pmd 99999999999999999999\n" /* overflow */
			    " 5\n"				   /* no name */
			    "\n"				   /* blank: ignored, not bad */
			    "negative -1\n"
			    "thp_fault_fallback\t20\n" /* tab separator */
			    "compact_stall 3";	       /* truncated: no newline */
	assert_int_equal(vmstat_parse(LIT(text), &l), 0);
	check_counts(&l, 2, 6);
	static const struct kv_want w[] = {{"thp_fault_alloc", 10}, {"thp_fault_fallback", 20}};
	check_values(&l, w, 2);
	/* a cut last line could be "3" of "3456": never used */
	static const char *const absent[] = {"compact_stall", "thp_split_pmd", "no_number",
					     "negative", NULL};
	check_absent(&l, absent);
	kvlist_free(&l);
}

static void test_vmstat_long_name(UNIT_STATE)
{
	struct kvlist l = {0};
	char text[200];
	uint64_t v = 0;
	/* KV_NAME_LEN-1 characters fit */
	memset(text, 'a', KV_NAME_LEN - 1);
	strcpy(text + KV_NAME_LEN - 1, " 5\n");
	assert_int_equal(vmstat_parse(text, strlen(text), &l), 0);
	assert_int_equal(l.n, 1);
	assert_int_equal(strlen(l.items[0].name), KV_NAME_LEN - 1);
	/* KV_NAME_LEN do not: counted as bad, no truncated key */
	memset(text, 'a', KV_NAME_LEN);
	strcpy(text + KV_NAME_LEN, " 6\nok 1\n");
	assert_int_equal(vmstat_parse(text, strlen(text), &l), 0);
	check_counts(&l, 1, 1);
	assert_true(kv_get(&l, "ok", &v));
	assert_int_equal(v, 1);
	kvlist_free(&l);
}

static void test_vmstat_empty_and_reuse(UNIT_STATE)
{
	struct kvlist l = {0};
	assert_int_equal(vmstat_parse(LIT(""), &l), 0);
	check_counts(&l, 0, 0);
	assert_false(kv_get(&l, "thp_fault_alloc", NULL));
	/* a second parse replaces the first (the list is cleared) */
	assert_int_equal(vmstat_parse(LIT("a 1\nb 2\nbad\n"), &l), 0);
	check_counts(&l, 2, 1);
	assert_int_equal(vmstat_parse(LIT("c 3\n"), &l), 0);
	check_counts(&l, 1, 0);
	assert_false(kv_get(&l, "a", NULL));
	assert_true(kv_get(&l, "c", NULL));
	kvlist_free(&l);
}

static void test_vmstat_many_keys_grow(UNIT_STATE)
{
	/* more than the initial capacity (64): the list grows */
	char text[300 * 24];
	size_t n = 0;
	for (int i = 0; i < 300; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "key_%d %d\n", i, i * 3);
	struct kvlist l = {0};
	assert_int_equal(vmstat_parse(text, n, &l), 0);
	assert_int_equal(l.n, 300);
	static const struct kv_want w[] = {{"key_299", 897}, {"key_64", 192}};
	check_values(&l, w, 2);
	kvlist_free(&l);
}

static void test_meminfo_values(UNIT_STATE)
{
	const char text[] = "MemTotal:       24683652 kB\n"
			    "MemFree:        24447856 kB\n"
			    "Active(anon):       1516 kB\n"
			    "AnonHugePages:      4096 kB\n"
			    "ShmemHugePages:        0 kB\n"
			    "FileHugePages:         0 kB\n"
			    "HugePages_Total:      16\n"
			    "HugePages_Free:       16\n"
			    "HugePages_Rsvd:        0\n"
			    "HugePages_Surp:        0\n"
			    "Hugepagesize:       2048 kB\n"
			    "Hugetlb:           32768 kB\n";
	struct kvlist l = {0};
	assert_int_equal(meminfo_parse(LIT(text), &l), 0);
	check_counts(&l, 12, 0);
	check_values(&l,
		     (const struct kv_want[]){
			     {"MemTotal", 24683652},
			     {"Active(anon)", 1516},
			     {"AnonHugePages", 4096},
			     {"HugePages_Total", 16},
			     {"Hugepagesize", 2048},
		     },
		     5);
	assert_false(kv_get(&l, "AnonHugePages:", NULL)); /* the colon is not part of the key */
	assert_false(kv_get(&l, "FilePmdMapped", NULL));
	kvlist_free(&l);
}

static void test_meminfo_malformed(UNIT_STATE)
{
	const char text[] = "MemTotal 100 kB\n"		     /* missing colon */
			    "MemFree:\n"		     /* no number */
			    "Cached:   kB\n"		     /* no number */
			    ": 5 kB\n"			     /* no name */
			    "Big: 99999999999999999999 kB\n" /* overflow */
			    "Buffers:  2416 kB\r\n"	     /* CRLF */
			    "Dirty: 2620 kB";		     /* truncated last line */
	struct kvlist l = {0};
	assert_int_equal(meminfo_parse(LIT(text), &l), 0);
	check_counts(&l, 1, 6);
	static const struct kv_want w[] = {{"Buffers", 2416}};
	check_values(&l, w, 1);
	/* Dirty cut: never used */
	static const char *const absent[] = {"Dirty", "MemTotal", "Big", NULL};
	check_absent(&l, absent);
	kvlist_free(&l);

	/* vmstat text is malformed as meminfo (no colons) */
	assert_int_equal(meminfo_parse(LIT(vmstat_618), &l), 0);
	check_counts(&l, 0, 14);
	kvlist_free(&l);
}

static void test_kvlist_add(UNIT_STATE)
{
	struct kvlist l = {0};
	uint64_t v = 0;
	assert_int_equal(kvlist_add(&l, "abcdef", 3, 9), 0); /* NAME_LEN bytes only */
	assert_true(kv_get(&l, "abc", &v));
	assert_int_equal(v, 9);
	assert_int_equal(kvlist_add(&l, "", 0, 1), -EINVAL);
	char big[KV_NAME_LEN] = {0};
	memset(big, 'x', sizeof(big));
	assert_int_equal(kvlist_add(&l, big, sizeof(big), 1), -EINVAL);
	assert_int_equal(l.n, 1);
	kvlist_free(&l);
}

static void test_live_vmstat(UNIT_STATE)
{
	size_t len = 0;
	char *text = unit_slurp_ok("/proc/vmstat", &len);
	struct kvlist l = {0};
	uint64_t v;
	assert_int_equal(vmstat_parse(text, len, &l), 0);
	assert_true(l.n > 50);
	assert_int_equal(l.bad, 0);
	assert_true(kv_get(&l, "nr_free_pages", &v));
	assert_true(v > 0);
	/* THP=y on every kernel this tool targets in CI */
	assert_true(kv_get(&l, "thp_fault_alloc", NULL));
	assert_true(kv_get(&l, "thp_fault_fallback", NULL));
	kvlist_free(&l);
	free(text);

	text = unit_slurp_ok("/proc/meminfo", &len);
	assert_int_equal(meminfo_parse(text, len, &l), 0);
	assert_int_equal(l.bad, 0);
	assert_true(kv_get(&l, "MemTotal", &v));
	assert_true(v > 0);
	assert_true(kv_get(&l, "AnonHugePages", NULL));
	kvlist_free(&l);
	free(text);
}

static void test_node_meminfo(UNIT_STATE)
{
	static const char nm[] = "Node 1 MemTotal:       12341826 kB\n"
				 "Node 1 MemFree:            1000 kB\n"
				 "Node 1 HugePages_Total:     0\n"
				 "Node 12 Big:  18446744073709551615 kB\n";
	struct kvlist l = {0};
	uint64_t v = 0;
	assert_int_equal(node_meminfo_parse(LIT(nm), &l), 0);
	check_counts(&l, 4, 0);
	assert_true(kv_get(&l, "MemTotal", &v) && v == 12341826);
	assert_true(kv_get(&l, "HugePages_Total", &v) && v == 0);
	assert_true(kv_get(&l, "Big", &v) && v == UINT64_MAX);
	/* damaged: no "Node N" prefix, no number, a cut last line */
	static const char bad[] = "MemTotal: 5 kB\n"
				  "Node x MemFree: 1 kB\n"
				  "Node 0 MemUsed:\n"
				  "Node 0 Active: 7 kB\n"
				  "Node 0 Dirty: 3";
	assert_int_equal(node_meminfo_parse(LIT(bad), &l), 0);
	check_counts(&l, 1, 4);
	assert_true(kv_get(&l, "Active", &v) && v == 7);
	assert_false(kv_get(&l, "MemTotal", NULL));
	assert_int_equal(node_meminfo_parse(LIT(""), &l), 0);
	assert_int_equal(l.n, 0);
	/* MemTotal twice: damage, neither copy (issue 24) */
	assert_int_equal(
		node_meminfo_parse(LIT("Node 1 MemTotal: 5 kB\nNode 1 MemTotal: 5 kB\n"), &l), 0);
	assert_false(kv_get(&l, "MemTotal", NULL));
	assert_int_equal(l.dup, 1);
	kvlist_free(&l);
}

/* The readers through a recorded tree: good, cut, empty, missing. */
static void test_readers_on_a_tree(UNIT_STATE)
{
	char root[64];
	struct sysroot sr;
	unit_tree(root, "kv",
		  (const char *const[]){"proc", "sys", "sys/devices", "sys/devices/system",
					"sys/devices/system/node", "sys/devices/system/node/node0",
					NULL},
		  &sr);
	struct kvlist l = {0};
	uint64_t v = 0;
	assert_int_equal(meminfo_read(&sr, &l), -ENOENT);
	assert_int_equal(vmstat_read(&sr, &l), -ENOENT);
	assert_int_equal(meminfo_get(&sr, "MemTotal", &v), -ENOENT);
	unit_put(root, "proc/meminfo", "MemTotal: 100 kB\nAnonHugePages: 4096 kB\nMemFree: 5");
	unit_put(root, "proc/vmstat", vmstat_618);
	assert_int_equal(meminfo_read(&sr, &l), 0);
	assert_int_equal(l.n, 2);
	assert_int_equal(l.bad, 1); /* the cut last line */
	assert_int_equal(meminfo_get(&sr, "AnonHugePages", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(meminfo_get(&sr, "MemFree", &v), -ENOENT);
	assert_int_equal(vmstat_read(&sr, &l), 0);
	assert_int_equal(l.n, 14);
	assert_int_equal(vmstat_get(&sr, "thp_fault_alloc", &v), 0);
	assert_int_equal(v, 1234);
	assert_int_equal(vmstat_get(&sr, "thp_file_alloc", &v), -ENOENT);
	unit_put(root, "proc/vmstat", "");
	assert_int_equal(vmstat_read(&sr, &l), 0);
	assert_int_equal(l.n, 0);
	assert_int_equal(node_meminfo_read(&sr, 0, &l), -ENOENT);
	unit_put(root, "sys/devices/system/node/node0/meminfo", "Node 0 MemTotal: 64 kB\n");
	assert_int_equal(node_meminfo_read(&sr, 0, &l), 0);
	assert_true(kv_get(&l, "MemTotal", &v) && v == 64);
	assert_int_equal(node_meminfo_read(&sr, 1, &l), -ENOENT);
	/* the caller's buffer is used and kept */
	struct buf b = {0};
	assert_int_equal(meminfo_read_buf(&sr, &b, &l), 0);
	assert_true(b.cap > 0);
	buf_free(&b);
	kvlist_free(&l);
	unit_tree_remove(root, &sr);
}

/* A key printed twice is damage: both copies are unknown, the first one named (issue 24). */
static void test_kv_duplicate_key_is_unknown(UNIT_STATE)
{
	struct kvlist l = {0};
	uint64_t v = 0;
	assert_int_equal(vmstat_parse(LIT("thp_fault_alloc 12345\n"
					  "thp_fault_fallback 0\n"
					  "thp_fault_alloc 0\n"
					  "compact_stall 3\n"
					  "compact_stall 3\n"
					  "thp_fault_alloc 7\n"),
				      &l),
			 0);
	assert_false(kv_get(&l, "thp_fault_alloc", &v));
	assert_false(kv_get(&l, "compact_stall", &v)); /* equal copies are damage too */
	assert_true(kv_get(&l, "thp_fault_fallback", &v));
	assert_int_equal(v, 0);
	assert_int_equal(l.n, 1);
	assert_int_equal(l.dup, 3);
	assert_int_equal(l.bad, 0);
	assert_string_equal(l.dup_name, "thp_fault_alloc");
	/* meminfo: the same rule (it kept the first copy) */
	assert_int_equal(meminfo_parse(LIT("MemTotal:  100 kB\nAnonHugePages:  4096 kB\n"
					   "AnonHugePages:  0 kB\n"),
				       &l),
			 0);
	assert_false(kv_get(&l, "AnonHugePages", &v));
	assert_true(kv_get(&l, "MemTotal", &v));
	assert_int_equal(l.dup, 1);
	assert_string_equal(l.dup_name, "AnonHugePages");
	/* a malformed copy and a good one: still seen twice, the good one is not believed */
	assert_int_equal(vmstat_parse(LIT("thp_split_pmd 12abc\nthp_split_pmd 5\n"), &l), 0);
	assert_false(kv_get(&l, "thp_split_pmd", &v));
	assert_int_equal(l.bad, 1);
	assert_int_equal(l.dup, 1);
	/* a name with a NUL seen twice (a fuzz finding): the message still names something */
	assert_int_equal(vmstat_parse(LIT("\0\0x 1\n\0\0x 2\n"), &l), 0);
	assert_int_equal(l.dup, 1);
	assert_string_equal(l.dup_name, "(a name that is not text)");
	/* a new parse forgets the old duplicates */
	assert_int_equal(vmstat_parse(LIT("a 1\n"), &l), 0);
	assert_int_equal(l.dup, 0);
	assert_string_equal(l.dup_name, "");
	kvlist_free(&l);
}

UNIT_TESTS(test_kv_duplicate_key_is_unknown, test_vmstat_values, test_vmstat_unknown_keys_kept,
	   test_vmstat_malformed_lines, test_vmstat_long_name, test_vmstat_empty_and_reuse,
	   test_vmstat_many_keys_grow, test_meminfo_values, test_meminfo_malformed, test_kvlist_add,
	   test_live_vmstat, test_node_meminfo, test_readers_on_a_tree)
