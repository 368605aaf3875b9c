// SPDX-License-Identifier: MIT
/* Unit tests: `thpctl ab`'s decisions (model/ab.c): verdicts that can fail, proofs that can contradict. */
#include "unit.h"

#include <errno.h>

#include "model/ab.h"
#include "render/ab.h"

static struct ab_mode M[3];
static struct ab_summary S[3];

/* Mode I with N runs of WALL[k] seconds (scaled by F) and AHP kB of ANON kB. */
static void runs(int i, const char *name, int n, const double *wall, double f, int64_t ahp,
		 int64_t anon)
{
	assert_int_equal(ab_mode_parse(name, &M[i]), 0);
	M[i].nruns = n;
	for (int k = 0; k < n; k++) {
		struct ab_run *r = &M[i].runs[k];
		memset(r, 0, sizeof(*r));
		r->ok = true;
		r->wall_s = wall[k] * f;
		r->ahp_peak_kb = ahp;
		r->anon_peak_kb = anon;
		r->samples = 3;
		for (int c = 0; c < AC_N; c++)
			r->delta[c] = c == AC_FAULT_ALLOC ? ahp / 2048 : 0;
		r->metric[0] = 1000 / r->wall_s;
		r->metric_got[0] = AM_VALUE;
	}
}

static const double W[8] = {1.00, 1.02, 0.98, 1.01, 0.99, 1.03, 0.97, 1.00};

static void test_modes_parse_and_refuse(UNIT_STATE)
{
	struct ab_mode m;
	assert_int_equal(ab_mode_parse("off", &m), 0);
	assert_int_equal(m.kind, AB_OFF);
	assert_int_equal(ab_mode_parse("env:MALLOC_CONF=thp:always", &m), 0);
	assert_int_equal(m.kind, AB_ENV);
	assert_string_equal(m.arg, "MALLOC_CONF=thp:always");
	assert_int_equal(ab_kind_intent(m.kind, m.arg), AI_MORE);
	assert_int_equal(ab_mode_parse("host:enabled=always", &m), 0);
	assert_int_equal(m.kind, AB_SET);
	assert_int_equal(ab_kind_intent(m.kind, m.arg), AI_MORE);
	/* only the key enabled gives a direction: defrag decides stalls, shmem_enabled is not
	 * anonymous memory, a per-size enabled is mTHP (not in AnonHugePages) */
	static const struct {
		const char *mode;
		enum ab_intent want;
	} intents[] = {{"host:enabled=never", AI_LESS},
		       {"host:enabled=madvise", AI_NONE},
		       {"host:defrag=never", AI_NONE},
		       {"host:defrag=always", AI_NONE},
		       {"host:enabled=never,defrag=always", AI_LESS},
		       {"host:defrag=always,enabled=never", AI_LESS},
		       {"host:defrag=never,enabled=always", AI_MORE},
		       {"host:hugepages-64kB/enabled=always", AI_NONE},
		       {"host:shmem_enabled=never", AI_NONE},
		       {"host:shmem_enabled=always", AI_NONE}};
	for (size_t i = 0; i < sizeof(intents) / sizeof(intents[0]); i++) {
		assert_int_equal(ab_mode_parse(intents[i].mode, &m), 0);
		assert_int_equal(ab_kind_intent(m.kind, m.arg), intents[i].want);
	}
	assert_int_equal(ab_mode_parse("host", &m), 0);
	assert_int_equal(m.kind, AB_HOST);
	assert_int_equal(ab_mode_parse("env:=x", &m), -EINVAL);
	assert_int_equal(ab_mode_parse("env:NOEQUALS", &m), -EINVAL);
	assert_int_equal(ab_mode_parse("fast", &m), -EINVAL);
	assert_int_equal(ab_mode_parse("host:", &m), -EINVAL);
}

/* "off" against NAME over 8 runs of W (NAME's scaled by F, with AHP kB huge of 256 MiB), summarised. */
static void off_vs(const char *name, double f, int64_t ahp, int proof)
{
	runs(0, "off", 8, W, 1.0, 0, 262144);
	runs(1, name, 8, W, f, ahp, 262144);
	ab_summarize(M, 2, proof, S);
}

static void test_faster_mode_with_proof(UNIT_STATE)
{
	off_vs("glibc", 0.6, 260096, 1);
	assert_int_equal(S[0].verdict, AV_BASE);
	assert_int_equal(S[1].verdict, AV_FASTER);
	assert_true(S[1].ci.ok && S[1].ci.hi < 1 && S[1].ci.lo > 0.5);
	assert_true(S[1].ci.est > 0.58 && S[1].ci.est < 0.62);
	assert_false(S[1].proof_contradicts);
	assert_false(S[0].proof_contradicts);
	assert_true(S[1].share.ok && S[1].share.med > 0.99);
	assert_int_equal(S[1].delta_med[AC_FAULT_ALLOC], 127);
	/* ops/s higher: the metric's interval is above 1 */
	assert_int_equal(S[1].metric_call[0], CI_ABOVE);
}

static void test_same_times_are_no_difference(UNIT_STATE)
{
	off_vs("host", 1.0, 0, 0);
	assert_int_equal(S[1].verdict, AV_NO_DIFFERENCE);
}

static void test_noise_is_inconclusive_and_few_runs_too_few(UNIT_STATE)
{
	static const double noisy[5] = {1.0, 1.5, 0.7, 1.3, 0.8};
	runs(0, "off", 5, W, 1.0, 0, 1000);
	runs(1, "host", 5, noisy, 1.0, 0, 1000);
	ab_summarize(M, 2, 0, S);
	assert_int_equal(S[1].verdict, AV_INCONCLUSIVE);
	runs(0, "off", 3, W, 1.0, 0, 1000);
	runs(1, "glibc", 3, W, 0.5, 900, 1000);
	ab_summarize(M, 2, 0, S);
	assert_int_equal(S[1].verdict, AV_TOO_FEW); /* 3 vs 3: no 95% interval exists */
}

static void test_proof_contradicting_intent_is_flagged(UNIT_STATE)
{
	runs(0, "off", 5, W, 1.0, 4096, 262144); /* off, yet huge pages: flagged */
	runs(1, "glibc", 5, W, 1.0, 0, 262144);	 /* glibc, yet none: flagged */
	runs(2, "host", 5, W, 1.0, 0, 262144);	 /* no intent: never flagged */
	ab_summarize(M, 3, 0, S);
	assert_true(S[0].proof_contradicts);
	assert_true(S[1].proof_contradicts);
	assert_false(S[2].proof_contradicts);
}

/*
 * More THP intended and none shown, where none could be: no process of the command reached
 * one PMD size of memory in any run (`ab -- sleep 0.01`): its peak RSS (wait4) and its tree's
 * sampled Anonymous under it. Not flagged, said why. A run whose peak RSS reached it (memory
 * allocated between two samples), a run never sampled, or an unknown PMD size still flags.
 */
static void test_proof_cannot_show_under_one_pmd(UNIT_STATE)
{
	runs(0, "off", 5, W, 1.0, 0, 300);
	runs(1, "glibc", 5, W, 1.0, 0, 300);
	for (int i = 0; i < 2; i++) {
		M[i].pmd_kb = 2048;
		for (int k = 0; k < 5; k++) {
			M[i].runs[k].anon_max_kb = 300 + 100 * k;
			M[i].runs[k].maxrss_kb = 1600 + 10 * (uint64_t)k;
		}
	}
	ab_summarize(M, 2, 0, S);
	assert_false(S[1].proof_contradicts);
	assert_true(S[1].proof_moot);
	assert_int_equal(S[1].moot_rss_kb, 1640);
	assert_false(S[0].proof_moot); /* off intends less: nothing to excuse */
	/* one run's peak RSS reached a PMD's worth, unseen by the samples: flagged */
	M[1].runs[4].maxrss_kb = 17000;
	ab_summarize(M, 2, 0, S);
	assert_true(S[1].proof_contradicts);
	assert_false(S[1].proof_moot);
	M[1].runs[4].maxrss_kb = 1640;
	/* one run's sampled Anonymous reached it: flagged */
	M[1].runs[4].anon_max_kb = 2048;
	ab_summarize(M, 2, 0, S);
	assert_true(S[1].proof_contradicts);
	/* one run never sampled: not established, flagged */
	M[1].runs[4].anon_max_kb = -1;
	ab_summarize(M, 2, 0, S);
	assert_true(S[1].proof_contradicts);
	assert_false(S[1].proof_moot);
	/* the PMD size unknown: flagged, as before */
	M[1].runs[4].anon_max_kb = 700;
	M[1].pmd_kb = 0;
	ab_summarize(M, 2, 0, S);
	assert_true(S[1].proof_contradicts);
	assert_false(S[1].proof_moot);
}

/*
 * except-advised with a CMD that madvises its memory itself: 100% huge-backed,
 * as host, is what the mode intends (THP where CMD asks), never flagged.
 */
static void test_except_advised_with_madvise_is_not_flagged(UNIT_STATE)
{
	runs(0, "host", 6, W, 1.0, 262144, 262144);
	runs(1, "except-advised", 6, W, 1.0, 262144, 262144);
	runs(2, "off", 6, W, 1.0, 0, 262144);
	ab_summarize(M, 3, 0, S);
	assert_int_equal(ab_kind_intent(M[1].kind, M[1].arg), AI_NONE);
	assert_true(S[1].share.ok && S[1].share.med > 0.99);
	assert_false(S[1].proof_contradicts);
	assert_false(S[2].proof_contradicts);
	/* nor when the base is off and shows none */
	runs(0, "off", 6, W, 1.0, 0, 262144);
	runs(1, "except-advised", 6, W, 1.0, 262144, 262144);
	ab_summarize(M, 2, 0, S);
	assert_false(S[1].proof_contradicts);
}

static void test_failed_and_skipped_modes_do_not_decide(UNIT_STATE)
{
	runs(0, "except-advised", 5, W, 1.0, 0, 1000);
	M[0].skipped = true;
	runs(1, "off", 5, W, 1.0, 0, 1000);
	runs(2, "glibc", 5, W, 0.5, 900, 1000);
	ab_summarize(M, 3, 0, S);
	assert_int_equal(S[0].verdict, AV_NOT_RUN);
	assert_int_equal(S[1].verdict, AV_BASE); /* the first that ran is the base */
	assert_int_equal(S[2].verdict, AV_FASTER);
}

/* The case: the same wall time, 65.3 MiB off vs 1.00 GiB host: memory gets its own verdict. */
static void test_memory_has_its_own_verdict(UNIT_STATE)
{
	static const double rss_off[8] = {66867, 66900, 66800, 66850, 66880, 66810, 66870, 66860};
	runs(0, "off", 8, W, 1.0, 0, 262144);
	runs(1, "host", 8, W, 1.0, 1046528, 1048576);
	for (int k = 0; k < 8; k++) {
		M[0].runs[k].maxrss_kb = (uint64_t)rss_off[k];
		M[1].runs[k].maxrss_kb = (uint64_t)(rss_off[k] * 16) + 1000;
	}
	ab_summarize(M, 2, 0, S);
	assert_int_equal(S[1].verdict, AV_NO_DIFFERENCE); /* wall time alone: no verdict */
	assert_int_equal(S[0].mem_verdict, AV_BASE);
	assert_int_equal(S[1].mem_verdict, AV_SLOWER); /* more memory */
	assert_string_equal(ab_mem_name(S[1].mem_verdict), "more-memory");
	assert_true(S[1].rss_ci.ok && S[1].rss_ci.lo > 15.9 && S[1].rss_ci.hi < 16.1);
	/* the same peak RSS: no difference; no MAXRSS at all: too few values */
	for (int k = 0; k < 8; k++)
		M[1].runs[k].maxrss_kb = M[0].runs[k].maxrss_kb;
	ab_summarize(M, 2, 0, S);
	assert_int_equal(S[1].mem_verdict, AV_NO_DIFFERENCE);
	/*
	 * 257.9 vs 257.5 MiB every run (seen live with glibc's hugetlb=1): the interval
	 * excludes 1 but lies within 3%: no difference, never "1.00x more"
	 */
	for (int k = 0; k < 8; k++) {
		M[0].runs[k].maxrss_kb = 263680 + (uint64_t)k;
		M[1].runs[k].maxrss_kb = 264090 + (uint64_t)k;
	}
	ab_summarize(M, 2, 0, S);
	assert_true(S[1].rss_ci.ok && S[1].rss_ci.lo > 1.0);
	assert_int_equal(S[1].mem_verdict, AV_NO_DIFFERENCE);
	for (int k = 0; k < 8; k++)
		M[1].runs[k].maxrss_kb = 0;
	ab_summarize(M, 2, 0, S);
	assert_int_equal(S[1].mem_verdict, AV_TOO_FEW);
}

/* A plan entry KEY: OLD -> NEW (STATE) into P. */
static void entry(struct settings_plan *p, const char *key, const char *old, const char *new,
		  enum plan_state state)
{
	struct plan_entry *e = &p->e[p->n++];
	snprintf(e->key, sizeof(e->key), "%s", key);
	snprintf(e->old, sizeof(e->old), "%s", old);
	snprintf(e->new, sizeof(e->new), "%s", new);
	e->state = state;
}

static void test_host_modes_say_what_they_change(UNIT_STATE)
{
	/* ab --mode host --mode host:enabled=always,defrag=always: said before the first run */
	struct ab_mode m[3];
	assert_int_equal(ab_mode_parse("host", &m[0]), 0);
	assert_int_equal(ab_mode_parse("host:enabled=always,defrag=always", &m[1]), 0);
	assert_int_equal(ab_mode_parse("host:khugepaged/defrag=1", &m[2]), 0);
	static struct settings_plan p1, p2;
	plan_init(&p1);
	plan_init(&p2);
	entry(&p1, "enabled", "madvise", "always", PS_PENDING);
	entry(&p1, "defrag", "madvise", "always", PS_PENDING);
	entry(&p2, "khugepaged/defrag", "1", "1", PS_UNCHANGED);
	struct settings_plan *plans[3] = {NULL, &p1, &p2};
	struct unit_mem mem;
	FILE *f = unit_mem_open(&mem);
	ab_render_host_notice(f, m, plans, 3, "/sys/kernel/mm/transparent_hugepage",
			      "/run/thpctl/journal");
	char *t = unit_mem_text(&mem);
	assert_string_equal(
		t,
		"thpctl: ab: its host: modes change host-wide THP settings\n"
		"    (/sys/kernel/mm/transparent_hugepage), which apply to every process on this\n"
		"    host while a run of the mode lasts:\n"
		"  host:enabled=always,defrag=always:\n"
		"    enabled: madvise -> always\n"
		"    defrag: madvise -> always\n"
		"  host:khugepaged/defrag=1:\n"
		"    khugepaged/defrag: 1 (unchanged)\n"
		"Each is journalled in /run/thpctl/journal before it is written and put back\n"
		"    after every run of its mode, at exit, on a signal, or by the next thpctl\n"
		"    after a SIGKILL.\n");
	free(t);
	/* no host: mode, no word: off,glibc,host change nothing host-wide */
	struct settings_plan *none[3] = {NULL, NULL, NULL};
	f = unit_mem_open(&mem);
	ab_render_host_notice(f, m, none, 3, "/sys/kernel/mm/transparent_hugepage",
			      "/run/thpctl/journal");
	t = unit_mem_text(&mem);
	assert_string_equal(t, "");
	free(t);
}

/*
 * The interval's level in words is the one it has: 5 and 5 runs give exact
 * Mann-Whitney bounds at 96.8% (JSON level 0.968254), not "95%".
 */
static void test_text_states_the_level_the_interval_has(UNIT_STATE)
{
	char lv[16];
	struct ratio_ci ci = {.ok = true, .level = 0.95};
	assert_string_equal(ab_ci_level(lv, sizeof(lv), &ci), "95%");
	ci.level = 0.958874; /* 6 and 6 */
	assert_string_equal(ab_ci_level(lv, sizeof(lv), &ci), "95.8%");
	ci.level = 0.9999; /* rounded down: never more than it is */
	assert_string_equal(ab_ci_level(lv, sizeof(lv), &ci), "99.9%");
	runs(0, "off", 5, W, 1.0, 0, 262144);
	runs(1, "glibc", 5, W, 0.6, 260096, 262144);
	for (int i = 0; i < 2; i++)
		for (int k = 0; k < 5; k++)
			M[i].runs[k].maxrss_kb = 1000 + (uint64_t)k;
	ab_summarize(M, 2, 0, S);
	assert_true(S[1].ci.level > 0.968253 && S[1].ci.level < 0.968255);
	char *cmd[] = {"touch", NULL};
	struct ab_report r = {.modes = M, .sum = S, .n = 2, .cmd = cmd, .runs = 5, .warmup = 1};
	struct unit_mem m;
	ab_render_text(unit_mem_open(&m), &r, false);
	char *t = unit_mem_text(&m);
	assert_non_null(strstr(t, "faster wall than off (96.8% CI 0.5"));
	assert_non_null(strstr(t, "no peak RSS difference beyond 3% from off (96.8% CI"));
	assert_null(strstr(t, "95% CI"));
	free(t);
}

/* --modes: commas split modes; a host: mode keeps its KEY=VALUE pieces; empty is refused. */
static void test_modes_list_split(UNIT_STATE)
{
	char w[AB_MAX_MODES][AB_NAME_LEN];
	assert_int_equal(
		ab_modes_split("host,host:enabled=always,defrag=always,off", w, AB_MAX_MODES), 3);
	assert_string_equal(w[0], "host");
	assert_string_equal(w[1], "host:enabled=always,defrag=always");
	assert_string_equal(w[2], "off");
	assert_int_equal(ab_modes_split("host:enabled=always,env:A=1,glibc", w, AB_MAX_MODES), 3);
	assert_string_equal(w[1], "env:A=1");
	assert_int_equal(ab_modes_split("off,defrag=always", w, AB_MAX_MODES), 2);
	assert_string_equal(w[1], "defrag=always"); /* no host: before it: an unknown mode */
	assert_int_equal(ab_modes_split("", w, AB_MAX_MODES), -EINVAL);
	assert_int_equal(ab_modes_split("off,,glibc", w, AB_MAX_MODES), -EINVAL);
	assert_int_equal(ab_modes_split("off,", w, AB_MAX_MODES), -EINVAL);
	assert_int_equal(ab_modes_split("off,glibc,host", w, 2), -E2BIG);
}

UNIT_TESTS(test_host_modes_say_what_they_change, test_modes_parse_and_refuse,
	   test_faster_mode_with_proof, test_same_times_are_no_difference,
	   test_noise_is_inconclusive_and_few_runs_too_few,
	   test_proof_contradicting_intent_is_flagged, test_proof_cannot_show_under_one_pmd,
	   test_except_advised_with_madvise_is_not_flagged,
	   test_failed_and_skipped_modes_do_not_decide, test_memory_has_its_own_verdict,
	   test_text_states_the_level_the_interval_has, test_modes_list_split)
