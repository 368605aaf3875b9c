// SPDX-License-Identifier: MIT
/*
 * Unit tests: docs/lab.md's experiment table and the man page name the experiments
 * of the lab table (src/lab/exp_*.c), in its order, and docs/lab.md's
 * `lab quick` sentence names exactly the quick ones. Run from the
 * repository root (tests/run-unit does).
 */
#include "unit.h"

#include <ctype.h>

#include "lab/lab.h"

/* Whether WORD occurs in TEXT[0..LEN) as a whole word. */
static bool has_word(const char *text, size_t len, const char *word)
{
	size_t wl = strlen(word);
	for (const char *p = text; p + wl <= text + len; p++) {
		if (strncmp(p, word, wl) != 0)
			continue;
		bool left = p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
		bool right =
			p + wl == text + len || !(isalnum((unsigned char)p[wl]) || p[wl] == '_');
		if (left && right)
			return true;
	}
	return false;
}

/* The names of the table, in order, separated by SEP. */
static void table_names(char *out, size_t n, const char *sep, bool quick_only)
{
	out[0] = '\0';
	for (const struct lab_experiment *x = lab_first(); x; x = lab_next(x))
		if (!quick_only || x->in_quick)
			snprintf(out + strlen(out), n - strlen(out), "%s%s", out[0] ? sep : "",
				 x->name);
}

/* GOT is every name of the table, in order, separated by SEP. */
static void assert_table_names(const char *got, const char *sep)
{
	char want[512];
	table_names(want, sizeof(want), sep, false);
	assert_string_equal(got, want);
}

static void test_lab_doc_experiment_table_matches_the_lab_table(UNIT_STATE)
{
	size_t len;
	char *readme = unit_slurp_ok("docs/lab.md", &len);
	const char *sec = unit_find(readme, "# Lab: ");
	char got[512] = "";
	/* rows "| `NAME` | ..." up to the next section */
	for (const char *l = sec; l && (l == sec || strncmp(l, "## ", 3) != 0);
	     l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (strncmp(l, "| `", 3) != 0)
			continue;
		const char *e = strchr(l + 3, '`');
		assert_non_null(e);
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%.*s", got[0] ? " " : "",
			 (int)(e - l - 3), l + 3);
	}
	assert_table_names(got, " ");
	free(readme);
}

static void test_lab_doc_quick_sentence_names_the_quick_experiments(UNIT_STATE)
{
	size_t len;
	char *readme = unit_slurp_ok("docs/lab.md", &len);
	const char *s = unit_find(readme, "`lab quick` runs ");
	const char *end = unit_find(s, " warm\n");
	len = (size_t)(end - s);
	/* every quick experiment, in table order; no other */
	const char *at = s;
	for (const struct lab_experiment *x = lab_first(); x; x = lab_next(x)) {
		if (!x->in_quick) {
			assert_false(has_word(s, len, x->name));
			continue;
		}
		assert_true(has_word(at, len - (size_t)(at - s), x->name));
		at = strstr(at, x->name) + strlen(x->name);
	}
	free(readme);
}

static void test_man_page_lists_the_lab_table(UNIT_STATE)
{
	size_t len;
	char *man = unit_slurp_ok("man/thpctl.1", &len);
	const char *s = unit_find(man, "THP experiments on this kernel (");
	s += strlen("THP experiments on this kernel (");
	const char *e = strchr(s, ')');
	assert_non_null(e);
	char got[512];
	size_t o = 0;
	for (const char *p = s; p < e && o + 1 < sizeof(got); p++)
		got[o++] = *p == '\n' ? ' ' : *p;
	got[o] = '\0';
	assert_table_names(got, ", ");
	free(man);
}

UNIT_TESTS(test_lab_doc_experiment_table_matches_the_lab_table,
	   test_lab_doc_quick_sentence_names_the_quick_experiments,
	   test_man_page_lists_the_lab_table)
