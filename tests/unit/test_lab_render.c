// SPDX-License-Identifier: MIT
/* Unit tests: src/render/lab.c (lab results as JSON and text) and lab_folio_proof. */
#include "unit.h"

#include "lab/common.h"
#include "render/lab.h"

static struct lab_result res;

/*
 * Proofs belong to the run that wrote them: a failed run's line and the
 * next run's line under the same key both stay, in order. Before, JSON
 * proofs were an object keyed by mode and the failure was overwritten.
 */
static void test_json_proofs_are_a_list_that_keeps_repeated_keys(UNIT_STATE)
{
	memset(&res, 0, sizeof(res));
	snprintf(res.experiment, sizeof(res.experiment), "touch");
	lab_proof(&res, "collapse run 3/3", "failed: %s", "Resource temporarily unavailable");
	lab_proof(&res, "collapse run 2/3", "smaps AnonHugePages 0 kB");
	lab_proof(&res, "collapse run 2/3", "second line, same key");
	json_t *o = lab_to_json(&res);
	char *text = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	assert_non_null(text);
	json_error_t err;
	json_t *back = json_loads(text, 0, &err); /* valid JSON */
	free(text);
	assert_non_null(back);
	json_t *pr = json_object_get(back, "proofs");
	assert_true(json_is_array(pr));
	assert_int_equal(json_array_size(pr), 3);
	assert_string_equal(json_string_value(json_object_get(json_array_get(pr, 0), "key")),
			    "collapse run 3/3");
	assert_string_equal(json_string_value(json_object_get(json_array_get(pr, 0), "text")),
			    "failed: Resource temporarily unavailable");
	assert_string_equal(json_string_value(json_object_get(json_array_get(pr, 2), "text")),
			    "second line, same key");
	assert_string_equal(json_string_value(json_object_get(json_array_get(pr, 1), "key")),
			    json_string_value(json_object_get(json_array_get(pr, 2), "key")));
	json_decref(back);
}

/* kpageflags not read in the runs that completed: said so, not "small pages x0" or an errno. */
static void test_folio_proof_of_a_run_that_did_not_read_them(UNIT_STATE)
{
	memset(&res, 0, sizeof(res));
	struct lab_ctx ctx = {.root = true, .page_size = 4096};
	struct folio_counts fc = {0};
	lab_folio_proof(&ctx, &res, "madv", "", &fc, -ENODATA);
	assert_int_equal(res.nproofs, 1);
	assert_string_equal(res.proofs[0].key, "madv kpageflags");
	assert_string_equal(res.proofs[0].value,
			    "not read: the run that reads them did not complete");
	fc.small = 16;
	lab_folio_proof(&ctx, &res, "madv", "x ", &fc, 0);
	assert_string_equal(res.proofs[1].value, "x small pages x16");
	ctx.root = false;
	lab_folio_proof(&ctx, &res, "madv", "", &fc, 0);
	assert_string_equal(res.proofs[2].value,
			    "skipped: not root (/proc/kpageflags is root-only)");
}

/* R as lab_render_text writes it without colour (freed by the caller). */
static char *as_text(const struct lab_result *r)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	lab_render_text(f, r, false);
	fclose(f);
	return text;
}

/*
 * Each chase size its own runs: the rows carry them, and the experiment's
 * "runs" is null rather than one row's value (before: the most of any size,
 * 16, beside a row that ran 4); the header gives the range.
 */
static void test_json_runs_per_row_and_null_when_rows_differ(UNIT_STATE)
{
	memset(&res, 0, sizeof(res));
	snprintf(res.experiment, sizeof(res.experiment), "chase");
	res.size = 1ull << 30;
	snprintf(res.state, sizeof(res.state), "warm");
	res.runs = 16;
	int a = lab_row_add(&res, "256 MiB"), b = lab_row_add(&res, "1 GiB");
	res.rows[a].runs = 4;
	res.rows[b].runs = 16;
	res.inconclusive = true;
	json_t *o = lab_to_json(&res);
	assert_true(json_is_null(json_object_get(o, "runs")));
	json_t *rows = json_object_get(o, "rows");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(rows, 0), "runs")), 4);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(rows, 1), "runs")), 16);
	json_t *v = json_object_get(o, "verdict");
	assert_true(json_is_true(json_object_get(v, "inconclusive")));
	assert_true(json_is_false(json_object_get(v, "expected")));
	json_decref(o);
	char *text = as_text(&res);
	assert_non_null(strstr(text, "(1.00 GiB, warm, 4-16 runs by row)"));
	free(text);
	/* rows that agree: that count, also for a row that does not say its own */
	res.rows[a].runs = 16;
	o = lab_to_json(&res);
	assert_int_equal(json_integer_value(json_object_get(o, "runs")), 16);
	json_decref(o);
	res.rows[a].runs = 0;
	res.runs = 3;
	res.rows[b].runs = 0;
	o = lab_to_json(&res);
	assert_int_equal(json_integer_value(json_object_get(o, "runs")), 3);
	rows = json_object_get(o, "rows");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(rows, 0), "runs")), 3);
	json_decref(o);
}

/* The closing line of C as text (freed by the caller). */
static char *closing(const struct lab_closing *c)
{
	char *t = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&t, &n);
	assert_non_null(f);
	lab_render_closing(f, c);
	fclose(f);
	return t;
}

/*
 * A group's closing line says how many of the experiments it counts were skipped and which
 * (as nobody: mthp; a lone binary: allocators): before, "9 experiments" hid them.
 */
static void test_closing_line_says_what_was_skipped(UNIT_STATE)
{
	const double before[3] = {1.24, 1, 1}, after[3] = {1.3, 1, 1};
	struct lab_closing c = {.name = "quick",
				.group = true,
				.shown = 9,
				.nskip = 2,
				.skipped = "mthp, allocators",
				.wall_s = 21.94,
				.cpu_s = 19.9,
				.load_before = before,
				.load_after = after};
	char *t = closing(&c);
	assert_string_equal(t, "\nlab quick: 9 experiments in 21.9 s wall (19.9 s CPU), 2 skipped "
			       "(mthp, allocators); load average 1.24 before, 1.30 after (1 min, "
			       "host-wide)\n");
	free(t);
	c.nskip = 0;
	c.skipped = "";
	c.load_before = NULL; /* unreadable: not said, never 0.00 */
	t = closing(&c);
	assert_string_equal(t, "\nlab quick: 9 experiments in 21.9 s wall (19.9 s CPU)\n");
	free(t);
	c.shown = c.nskip = 1;
	c.skipped = "iouring";
	t = closing(&c);
	assert_string_equal(t, "\nlab quick: 1 experiment in 21.9 s wall (19.9 s CPU), all 1 "
			       "skipped (iouring)\n");
	free(t);
	/* one experiment: its own result says whether it skipped */
	c = (struct lab_closing){.name = "chase",
				 .shown = 1,
				 .nskip = 1,
				 .skipped = "chase",
				 .wall_s = 5.04,
				 .cpu_s = 5};
	t = closing(&c);
	assert_string_equal(t, "\nlab chase: 5.0 s wall (5.0 s CPU)\n");
	free(t);
}

/* A verdict quoting a process's words (initdb's last line) reaches the terminal escaped. */
static void test_verdict_and_advice_are_escaped(UNIT_STATE)
{
	memset(&res, 0, sizeof(res));
	snprintf(res.experiment, sizeof(res.experiment), "postgres");
	snprintf(res.verdict, sizeof(res.verdict), "skipped: initdb: \033]0;pwned\007 failed");
	snprintf(res.advice, sizeof(res.advice), "try \033[31mred");
	char *text = as_text(&res);
	assert_null(strchr(text, '\033'));
	assert_null(strchr(text, '\007'));
	assert_non_null(strstr(text, "\\x1b]0;pwned\\x07 failed"));
	assert_non_null(strstr(text, "try \\x1b[31mred"));
	free(text);
}

UNIT_TESTS(test_closing_line_says_what_was_skipped, test_verdict_and_advice_are_escaped,
	   test_json_runs_per_row_and_null_when_rows_differ,
	   test_json_proofs_are_a_list_that_keeps_repeated_keys,
	   test_folio_proof_of_a_run_that_did_not_read_them)
