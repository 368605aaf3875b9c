// SPDX-License-Identifier: MIT
/* Unit tests: `thpctl ab` in words and JSON (render/ab_text.c, render/ab.c): a metric that never
 * matched is said and never a 0, the header's command quoted and wrapped, "1 run", no heading
 * over an empty section, a failed mode's reason, the estimator named. */
#include "unit.h"

#include <jansson.h>

#include "model/ab.h"
#include "render/ab.h"
#include "util/wrap.h"

static struct ab_mode M[2];
static struct ab_summary S[2];
static struct ab_metric MT[2] = {{.name = "ops", .higher_better = true, .regex = "ops=([0-9]+)"},
				 {.name = "lat", .higher_better = false, .regex = "zzz([0-9]+)"}};

/* Mode I, N good runs of about WALL s; metric 0 given by the first GOT runs (1000 / wall), metric
 * 1 by none (its regex never matched). */
static void runs(int i, const char *name, int n, double wall, int got)
{
	assert_int_equal(ab_mode_parse(name, &M[i]), 0);
	M[i].nruns = n;
	for (int k = 0; k < n; k++) {
		struct ab_run *r = &M[i].runs[k];
		memset(r, 0, sizeof(*r));
		r->ok = true;
		r->wall_s = wall * (1 + 0.01 * k);
		r->maxrss_kb = 1000 + (uint64_t)k;
		r->ahp_peak_kb = 0;
		r->anon_peak_kb = 1000;
		r->samples = 3;
		r->metric_got[0] = k < got ? AM_VALUE : AM_NO_MATCH;
		r->metric[0] = k < got ? 1000 / r->wall_s : 0;
		r->metric_got[1] = AM_NO_MATCH;
	}
}

/* ab_render_text of the N modes with CMD, RUNS and WARMUP, WIDTH: a malloc'd string. */
static char *text(int n, char **cmd, int nruns, int warmup, size_t width)
{
	ab_summarize(M, n, 2, S);
	struct ab_report r = {.modes = M,
			      .sum = S,
			      .n = n,
			      .metrics = MT,
			      .nmetrics = 2,
			      .cmd = cmd,
			      .runs = nruns,
			      .warmup = warmup,
			      .timeout_s = 600,
			      .width = width};
	struct unit_mem m;
	ab_render_text(unit_mem_open(&m), &r, false);
	return unit_mem_text(&m);
}

/* A metric whose regex matched no run's output: unknown and why, never a 0 or an empty median;
 * one matched in some runs: how many. */
static void a_metric_that_never_matched_is_said(UNIT_STATE)
{
	char *cmd[] = {"bench", NULL};
	runs(0, "off", 5, 1.0, 5);
	runs(1, "glibc", 5, 0.6, 3);
	char *t = text(2, cmd, 5, 1, 0);
	assert_contains(t, "    lat (lower is better): unknown: the regex matched the output of "
			   "none of the 5 runs\n");
	assert_contains(t, "    ops (higher is better): median 980.392 (961.538-1000) over 5 of 5 "
			   "runs\n");
	/* 5 values against 3: an interval (96.4%) */
	assert_contains(t, "    ops (higher is better): better: ratio 1.683 to off's (96.4% CI ");
	assert_contains(t, "over 3 of 5 runs, the rest no match\n");
	assert_null(strstr(t, "lat (lower is better): median"));
	assert_null(strstr(t, "median 0 "));
	free(t);
	/* the JSON: matched_runs and the reason, value null */
	struct ab_report r = {.modes = M,
			      .sum = S,
			      .n = 2,
			      .metrics = MT,
			      .nmetrics = 2,
			      .cmd = cmd,
			      .runs = 5,
			      .warmup = 1};
	json_t *d = ab_to_json(&r);
	json_t *lat = json_object_get(
		json_object_get(json_array_get(json_object_get(d, "modes"), 1), "metrics"), "lat");
	assert_true(json_is_null(json_object_get(lat, "value")));
	assert_int_equal(json_integer_value(json_object_get(lat, "matched_runs")), 0);
	assert_int_equal(json_integer_value(json_object_get(lat, "runs")), 5);
	assert_string_equal(json_string_value(json_object_get(lat, "reason")), "no-match");
	json_t *ops = json_object_get(
		json_object_get(json_array_get(json_object_get(d, "modes"), 1), "metrics"), "ops");
	assert_int_equal(json_integer_value(json_object_get(ops, "matched_runs")), 3);
	assert_true(json_is_null(json_object_get(ops, "reason")));
	assert_string_equal(json_string_value(json_object_get(ops, "call")), "better");
	json_t *defs = json_object_get(d, "metrics");
	assert_string_equal(json_string_value(json_object_get(json_array_get(defs, 1), "regex")),
			    "zzz([0-9]+)");
	json_decref(d);
}

/* Matched, but never a number; the output unread: each its own reason. */
static void a_metric_that_is_not_a_number_says_so(UNIT_STATE)
{
	char *cmd[] = {"bench", NULL};
	runs(0, "host", 4, 1.0, 0);
	for (int k = 0; k < 4; k++)
		M[0].runs[k].metric_got[0] = AM_NOT_NUMBER;
	M[0].runs[0].metric_got[1] = AM_UNREAD;
	char *t = text(1, cmd, 4, 0, 0);
	assert_contains(t, "ops (higher is better): unknown: the regex matched in 4 of 4 runs, "
			   "never a number\n");
	assert_contains(t, "lat (lower is better): unknown: the output of 1 of 4 runs could not "
			   "be read");
	free(t);
	assert_int_equal(S[0].metric_n[0].why, AMW_NOT_NUMBER);
	assert_string_equal(ab_metric_why_name(S[0].metric_n[1].why), "output-unread");
}

/* The header: "1 run", no warm-up said so; the command quoted so that spaces, quotes and controls
 * are unambiguous; one mode: nothing compared; the memory heading only over lines. */
static void the_header_quotes_the_command(UNIT_STATE)
{
	char *cmd[] = {"sh", "-c", "echo \"a b\"", "it's", "ctl\x1b[2J", "", NULL};
	runs(0, "host", 1, 0.01, 1);
	char *t = text(1, cmd, 1, 0, 0);
	assert_contains(t, "thpctl ab: 1 run per mode, no warm-up run; the command:\n"
			   "  sh -c 'echo \"a b\"' 'it'\\''s' $'ctl\\e[2J' ''\n");
	assert_contains(t,
			"verdict (one mode: nothing to compare it with):\n  host: the only mode;");
	assert_contains(t, "memory: peak RSS (MAXRSS), what THP costs");
	assert_null(strstr(t, "1 runs"));
	assert_null(strstr(t, "warmup"));
	assert_null(strchr(t, '\x1b'));
	free(t);
	runs(0, "off", 5, 1.0, 5);
	runs(1, "host", 5, 1.0, 5);
	t = text(2, cmd, 5, 2, 0);
	assert_contains(t,
			"thpctl ab: 5 runs per mode after 2 warm-up runs, the modes interleaved;");
	/* the estimator named where the ratio is estimated */
	assert_contains(t,
			"verdicts: wall time against off, the first mode that ran "
			"(Hodges-Lehmann estimate of the ratio, exact Mann-Whitney interval):\n");
	free(t);
}

/* A long command at 80 columns: every line within 80, broken between its words with " \\", a
 * quoted argument that fits a line never cut; one wider than a line broken at its blanks. */
static void the_command_wraps_at_80_columns(UNIT_STATE)
{
	char *cmd[] = {"./bench",
		       "--threads",
		       "8",
		       "an argument with several spaces in it",
		       "--label=it's a \"quoted\" one",
		       "for i in 1 2 3; do echo \"iteration number $i of a rather long benchmark "
		       "loop\"; done",
		       NULL};
	struct buf b = {0};
	assert_int_equal(ab_command_text(&b, cmd, 80), 0);
	size_t widest = 0;
	for (char *l = b.p; l && *l;) {
		char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) : strlen(l);
		if (wrap_display_width(l, n) > widest)
			widest = wrap_display_width(l, n);
		l = nl ? nl + 1 : NULL;
	}
	assert_true(widest <= 80);
	assert_contains(b.p, "  ./bench --threads 8 'an argument with several spaces in it' \\\n");
	assert_contains(b.p, "'--label=it'\\''s a \"quoted\" one'");
	assert_contains(b.p, "'for i in 1 2 3; do echo \"iteration number $i of a rather long");
	buf_free(&b);
	/* width 0 (--wide, a file): one line */
	assert_int_equal(ab_command_text(&b, cmd, 0), 0);
	assert_null(strchr(b.p, '\n'));
	buf_free(&b);
}

/* Every mode failed: no verdict compared, no memory heading over nothing, the reason said. */
static void a_failed_mode_says_why(UNIT_STATE)
{
	char *cmd[] = {"false", NULL};
	runs(0, "host", 0, 1.0, 0);
	M[0].failed = true;
	M[0].fail = AF_EXIT;
	M[0].fail_code = 1;
	M[0].fail_run = 0;
	runs(1, "off", 0, 1.0, 0);
	M[1].failed = true;
	M[1].fail = AF_TIMEOUT;
	M[1].fail_run = 3;
	char *t = text(2, cmd, 5, 1, 0);
	assert_contains(t, "verdicts: no mode ran to its end, so none is compared:\n");
	assert_contains(t, "  host: not compared: its warm-up run 1 exited with status 1;");
	assert_contains(t,
			"  off: not compared: its run 3 ran past --timeout 600 s and was killed;");
	assert_null(strstr(t, "memory"));
	free(t);
}

/* off FLAGGED for one run's 2 MiB of huge pages among 1 GiB of anon: the share is not "0%" beside
 * the flag, and the flag names the peak that raised it. */
static void a_flag_shows_what_raised_it(UNIT_STATE)
{
	char *cmd[] = {"bench", NULL};
	runs(0, "host", 6, 1.0, 6);
	runs(1, "off", 6, 1.0, 6);
	for (int i = 0; i < 2; i++)
		for (int k = 0; k < 6; k++)
			M[i].runs[k].anon_peak_kb = 1048576;
	M[1].runs[2].ahp_peak_kb = 2048;
	char *t = text(2, cmd, 6, 0, 0);
	assert_contains(t, "FLAGGED: AnonHugePages (peak 2048 kB) does not show what the mode "
			   "intends");
	assert_contains(t, "AnonHugePages 0% of anon (runs 0-0.2%)");
	free(t);
}

/* A metric with values but no ratio says why: a value of 0 (an error count), or none in the
 * base; never "too few values" when it has plenty. */
static void a_metric_without_a_ratio_says_why(UNIT_STATE)
{
	char *cmd[] = {"bench", NULL};
	runs(0, "host", 6, 1.0, 6);
	runs(1, "off", 6, 1.0, 6);
	for (int k = 0; k < 6; k++)
		M[1].runs[k].metric[0] = 0; /* every run of off printed ops=0 */
	char *t = text(2, cmd, 6, 0, 0);
	assert_contains(t, "ops (higher is better): no ratio (a value is 0 or below); median 0");
	assert_null(strstr(t, "too few values"));
	free(t);
	runs(0, "host", 6, 1.0, 0); /* the base's regex never matched */
	runs(1, "off", 6, 1.0, 6);
	t = text(2, cmd, 6, 0, 0);
	assert_contains(t, "no interval (the base has no value)");
	free(t);
	assert_string_equal(ab_metric_call_name(&S[1], 0, true), "base-unknown");
}

/* Too few runs: no interval, said with the counts, never a verdict. */
static void too_few_runs_decide_nothing(UNIT_STATE)
{
	char *cmd[] = {"bench", NULL};
	runs(0, "off", 3, 1.0, 3);
	runs(1, "glibc", 1, 0.5, 1);
	char *t = text(2, cmd, 3, 0, 0);
	assert_contains(t,
			"  glibc: no interval: 1 good run of it and 3 of off are too few for one "
			"of 95% (4 of each suffice);");
	assert_contains(t, "  glibc: no interval of peak RSS: too few runs with a MAXRSS");
	assert_null(strstr(t, "faster"));
	free(t);
}

UNIT_TESTS(a_metric_that_never_matched_is_said, a_metric_without_a_ratio_says_why,
	   a_flag_shows_what_raised_it, too_few_runs_decide_nothing,
	   a_metric_that_is_not_a_number_says_so, the_header_quotes_the_command,
	   the_command_wraps_at_80_columns, a_failed_mode_says_why)
