// SPDX-License-Identifier: MIT
/*
 * Unit tests: src/render/skips.h, the one wording of a --sysroot bundle's members that
 * extraction skipped (model/skips.h carries the kernel's names and count), and the
 * commands that say it: ps and the JSON "missing" entries of status, advise and cgroups.
 * The words are written out here: a renderer that words them its own way fails.
 */
#include "unit.h"

#include "render/ps.h"
#include "render/skips.h"

/* A sysroot's skips as cmd/bundle.c leaves them: N in all, the first names escaped. */
static struct bundle_skips skips(unsigned long n)
{
	struct sr_skips sk = {.n = n};
	for (unsigned long i = 0; i < n && i < SKIPS_MAX; i++)
		snprintf(sk.names[i], sizeof(sk.names[i]), "../evil\\x09%lu", i);
	struct bundle_skips b;
	bundle_skips_of(&sk, &b);
	return b;
}

static void test_facts_from_the_kernel(UNIT_STATE)
{
	struct bundle_skips b = skips(0);
	assert_false(bundle_skips_any(&b));
	assert_int_equal(b.n, 0);
	b = skips(6);
	assert_true(bundle_skips_any(&b));
	assert_int_equal(b.total, 6);
	assert_int_equal(b.n, SKIPS_MAX);
	assert_string_equal(b.names[3], "../evil\\x093");
	/* a snapshot with no file missing is partial when a member was skipped */
	struct host_snapshot h = {.skips = {.n = 1}};
	assert_true(host_snapshot_partial(&h));
	h.skips.n = 0;
	assert_false(host_snapshot_partial(&h));
	h.nmissing = 1;
	assert_true(host_snapshot_partial(&h));
}

static void test_words_name_the_first_and_count_all(UNIT_STATE)
{
	char w[SKIPS_WORDS_MAX];
	struct bundle_skips b = skips(1);
	size_t len = skips_words(w, sizeof(w), &b);
	assert_int_equal(len, strlen(w));
	assert_string_equal(w, "1 bundle member skipped (not extracted): ../evil\\x090");
	b = skips(4);
	skips_words(w, sizeof(w), &b);
	assert_string_equal(w, "4 bundle members skipped (not extracted): ../evil\\x090, "
			       "../evil\\x091, ../evil\\x092, ../evil\\x093");
	b = skips(1000);
	skips_words(w, sizeof(w), &b);
	assert_string_equal(w, "1000 bundle members skipped (not extracted): ../evil\\x090, "
			       "../evil\\x091, ../evil\\x092, ../evil\\x093 and 996 more");
	/* cut to fit, terminated */
	char s[20];
	assert_int_equal(skips_words(s, sizeof(s), &b), sizeof(s) - 1);
	assert_string_equal(s, "1000 bundle members");
}

static void test_note_only_when_partial(UNIT_STATE)
{
	struct unit_mem m;
	struct bundle_skips b = skips(0);
	skips_note(unit_mem_open(&m), "  ", NULL, &b);
	char *t = unit_mem_text(&m);
	assert_string_equal(t, "");
	free(t);
	b = skips(5);
	skips_note(unit_mem_open(&m), "  ", "not here", &b);
	t = unit_mem_text(&m);
	assert_string_equal(t, "  partial: not here: 5 bundle members skipped (not extracted): "
			       "../evil\\x090, ../evil\\x091, ../evil\\x092, ../evil\\x093 and 1 "
			       "more\n");
	free(t);
}

static void test_json_missing_entries(UNIT_STATE)
{
	json_t *a = json_array();
	struct bundle_skips b = skips(0);
	skips_json_missing(a, &b);
	assert_int_equal(json_array_size(a), 0);
	b = skips(6);
	skips_json_missing(a, &b);
	assert_int_equal(json_array_size(a), 5);
	assert_string_equal(json_string_value(json_array_get(a, 0)),
			    "bundle member ../evil\\x090 (skipped)");
	assert_string_equal(json_string_value(json_array_get(a, 4)),
			    "2 more bundle members (skipped)");
	json_decref(a);
}

static void test_ps_says_partial(UNIT_STATE)
{
	struct ps_report r = {.skips = skips(2)};
	struct unit_mem m;
	ps_partial_text(unit_mem_open(&m), &r, false);
	char *t = unit_mem_text(&m);
	assert_string_equal(t, "partial: 2 bundle members skipped (not extracted): ../evil\\x090, "
			       "../evil\\x091\n");
	free(t);
	json_t *j = ps_to_json(&r);
	assert_true(json_is_true(json_object_get(j, "partial")));
	json_decref(j);
	r.skips = skips(0);
	j = ps_to_json(&r);
	assert_true(json_is_false(json_object_get(j, "partial")));
	json_decref(j);
}

UNIT_TESTS(test_facts_from_the_kernel, test_words_name_the_first_and_count_all,
	   test_note_only_when_partial, test_json_missing_entries, test_ps_says_partial)
