// SPDX-License-Identifier: MIT
/*
 * Unit tests: src/render/finding_text.c. Each rule runs over the hand-built
 * host of test_findings_host.h; the sentences render/ writes from the facts
 * it recorded must read exactly as `thpctl status` prints them.
 */
#include "test_findings_host.h"

#include "render/finding_text.h"
#include "render/hint.h"
#include "render/status.h"
#include "render/table.h"

/* RULE fires once; its words into W. */
static void words(struct t *t, finding_rule rule, struct finding_text *w)
{
	assert_int_equal(run(t, rule), 1);
	finding_text(&t->out.f[0], w);
	assert_true(w->title[0]);
	assert_true(w->evidence[0]);
	assert_true(w->fix[0]);
	assert_true(w->why && w->why[0]);
	assert_true(strncmp(w->more, "thpctl ", 7) == 0);
}

/* RULE's words into W: the title TITLE, evidence EVIDENCE and fix FIX (each NULL: not checked). */
static void words_are(struct t *t, finding_rule rule, struct finding_text *w, const char *title,
		      const char *evidence, const char *fix)
{
	words(t, rule, w);
	if (title)
		assert_string_equal(w->title, title);
	if (evidence)
		assert_string_equal(w->evidence, evidence);
	if (fix)
		assert_string_equal(w->fix, fix);
}

static void test_defrag_always_words(UNIT_STATE)
{
	struct t *t = *state;
	struct finding_text w;
	set_choice(&t->h.thp.defrag, "[always] defer defer+madvise madvise never\n");
	words_are(t, rule_defrag_always, &w,
		  "defrag=always: any process may stall in direct compaction", "defrag=always",
		  "thpctl set defrag=madvise");
	assert_string_equal(w.more, "thpctl trace stalls");
}

static void test_max_ptes_none_words(UNIT_STATE)
{
	struct t *t = *state;
	struct finding_text w;
	set_choice(&t->h.thp.enabled, "[always] madvise never\n");
	words_are(t, rule_always_max_ptes_none, &w,
		  "enabled=always with max_ptes_none=511: khugepaged can turn "
		  "one touched page into a PMD of RSS",
		  "enabled=always (PMD size), khugepaged/max_ptes_none=511",
		  "thpctl set khugepaged/max_ptes_none=64");
	/* a memory finding: the ledger (INVENTED, CREEP) is in ps --ledger, not plain ps */
	assert_string_equal(w.more, "thpctl ps --ledger");
	assert_string_equal(finding_more(AREA_MEMORY), "thpctl ps --ledger");
	t->h.thp.shrink_underused.v = 1;
	words(t, rule_shrink_underused_noop, &w);
	/* advise weighs the ledger of each process before it lowers max_ptes_none */
	assert_string_equal(w.more, "thpctl advise");
	assert_null(w.more_as);
	/* another user on the live host reads few ledgers: advise is pointed at root, the
	 * command itself (JSON "more") unchanged */
	hint_set_live_user(true);
	words(t, rule_shrink_underused_noop, &w);
	/* and JSON says it too, beside more (status --json dropped it) */
	json_t *fj = status_findings_json(&t->out), *vj = status_verdict_json(&t->out);
	hint_set_live_user(false);
	assert_string_equal(w.more, "thpctl advise");
	assert_string_equal(w.more_as, "as root: it reads each process's ledger");
	assert_string_equal(json_string_value(json_object_get(json_array_get(fj, 0), "more_as")),
			    "as root: it reads each process's ledger");
	bool seen = false;
	for (size_t i = 0; i < json_array_size(vj); i++)
		seen |= json_string_value(json_object_get(json_array_get(vj, i), "more_as")) !=
			NULL;
	assert_true(seen);
	json_decref(fj);
	json_decref(vj);
	/* not measured here: the kernel's source is named as such, never as what happened */
	assert_string_equal(w.evidence, "shrink_underused=1 khugepaged/max_ptes_none=511; not "
					"measured on this host: run thpctl lab shrinker");
	assert_non_null(strstr(w.title, "by the kernel's source"));
	assert_string_equal(w.fix, "thpctl set khugepaged/max_ptes_none=64");
	/* measured by lab shrinker on this kernel: nothing split at 511, all at 64 */
	shrinker_measured(&t->h);
	words_are(t, rule_shrink_underused_noop, &w,
		  "shrink_underused=1 with max_ptes_none=511: in a run of thpctl lab shrinker "
		  "at 511, the underused shrinker left 100% of AnonHugePages unsplit",
		  "shrink_underused=1 khugepaged/max_ptes_none=511; thpctl lab shrinker on "
		  "this kernel (2026-12-02T04:40:00Z): at 511 AnonHugePages 65536 -> 65536 "
		  "kB under memory pressure, at 64 65536 -> 0 kB",
		  NULL);
	/* 2 MiB of 64 MiB split: 96.875%, 97% */
	struct shrinker_record *rec = shrinker_measured(&t->h);
	for (int i = 0; i < rec->n; i++)
		if (rec->p[i].max_ptes_none == 511)
			rec->p[i].ahp_after_kb = 63488;
	words(t, rule_shrink_underused_noop, &w);
	assert_contains(w.title, "the underused shrinker left 97% of AnonHugePages unsplit");
	for (int i = 0; i < rec->n; i++) /* 32 kB of 64 MiB split: not "100%" */
		if (rec->p[i].max_ptes_none == 511)
			rec->p[i].ahp_after_kb = 65504;
	words(t, rule_shrink_underused_noop, &w);
	assert_contains(w.title, "the underused shrinker left 99.95% of AnonHugePages unsplit");
	/* the lab run had nothing to split at 511: not decided either way */
	rec = shrinker_measured(&t->h);
	for (int i = 0; i < rec->n; i++)
		if (rec->p[i].max_ptes_none == 511)
			rec->p[i].ahp_before_kb = rec->p[i].ahp_after_kb = 0;
	words(t, rule_shrink_underused_noop, &w);
	assert_string_equal(w.title, "shrink_underused=1 with max_ptes_none=511: thpctl lab "
				     "shrinker at 511 had no huge page to split (AnonHugePages 0 "
				     "kB before): not decided");
	t->h.has_shrinker = false;
}

static void test_fault_success_words(UNIT_STATE)
{
	struct t *t = *state;
	struct finding_text w;
	set_vmstat(&t->h, "thp_fault_alloc 40\nthp_fault_fallback 60\n");
	words_are(
		t, rule_fault_success_low, &w, "PMD THP fault success 40.0% (40 of 100) since boot",
		"fault success 40.0% (40 of 100); free blocks of order >= 9: 523",
		"sysctl vm.compact_memory=1  # once, then see the free blocks in 'thpctl status'");
	/* buddyinfo not read: unknown, not the 0 that fits "fragmented" */
	t->h.has_buddy = false;
	words(t, rule_fault_success_low, &w);
	assert_string_equal(w.evidence, "fault success 40.0% (40 of 100); free blocks of order >= "
					"9: unknown (buddyinfo not read)");
	t->h.has_buddy = true;
	/* page size unknown: no free-block evidence */
	set_vmstat(&t->h, "thp_fault_alloc 0\nthp_fault_fallback 500\n");
	t->h.feat.page_size = 0;
	words(t, rule_fault_success_low, &w);
	assert_string_equal(w.evidence, "fault success 0.0% (0 of 500)");
	/* an mTHP size */
	t->h.feat.page_size = 4096;
	set_vmstat(&t->h, "thp_fault_alloc 90\nthp_fault_fallback 10\n");
	struct thp_size *sz = add_size(&t->h, 64, "[always] inherit madvise never\n");
	add_stat(sz, "anon_fault_alloc", 10);
	add_stat(sz, "anon_fault_fallback", 190);
	words(t, rule_fault_success_low, &w);
	assert_string_equal(w.title, "64kB THP fault success 5.0% (10 of 200) since boot");
}

static void test_compact_stall_words(UNIT_STATE)
{
	struct t *t = *state;
	struct finding_text w;
	/* the counter is every direct compaction: the title says so, and under defrag=madvise
	 * the fix is a condition, not a setting */
	set_vmstat(&t->h, "compact_stall 150\ncompact_fail 100\ncompact_success 50\n"
			  "thp_fault_alloc 531416\nthp_fault_fallback 310\n");
	words_are(t, rule_compact_stall, &w,
		  "direct compaction stalled allocations 150 times since boot (compact_stall, all "
		  "allocations, not only THP)",
		  "compact_stall=150 compact_fail=100 compact_success=50; thp_fault_alloc=531416 "
		  "thp_fault_fallback=310",
		  "consider thpctl set defrag=defer, only if thpctl trace stalls shows THP faults "
		  "among the stalls: only those in MADV_HUGEPAGE regions compact, in a share no "
		  "counter tells");
	set_choice(&t->h.thp.defrag, "[always] defer defer+madvise madvise never\n");
	words(t, rule_compact_stall, &w);
	assert_string_equal(w.fix,
			    "thpctl set defrag=madvise  # only MADV_HUGEPAGE regions may stall");
	set_choice(&t->h.thp.defrag, "always [defer] defer+madvise madvise never\n");
	words(t, rule_compact_stall, &w);
	assert_string_equal(w.fix, "none for THP (defrag=defer makes no THP fault compact): look "
				   "for other high-order allocations");
	set_vmstat(&t->h, "compact_stall 150\nthp_fault_alloc 0\nthp_fault_fallback 0\n");
	words(t, rule_compact_stall, &w);
	assert_string_equal(w.evidence,
			    "compact_stall=150; thp_fault_alloc=0 thp_fault_fallback=0");
	assert_string_equal(w.fix, "none for THP (no THP page fault since boot): look for other "
				   "high-order allocations");
	/* defrag unread: unknown, not "does not stall" */
	memset(&t->h.thp.defrag, 0, sizeof(t->h.thp.defrag));
	set_vmstat(&t->h, "compact_stall 5\n");
	words(t, rule_compact_stall, &w);
	assert_string_equal(w.evidence, "compact_stall=5");
	assert_string_equal(w.fix, "unknown: defrag was not read, so whether THP faults are among "
				   "the stalls is unknown; thpctl trace stalls shows who stalls");
}

static void test_deferred_split_words(UNIT_STATE)
{
	struct t *t = *state;
	struct finding_text w;
	set_vmstat(&t->h, "thp_deferred_split_page 10\nthp_split_page 4\n");
	/* since-boot counters alone (before 6.12): "held" is not known, and said so */
	words_are(t, rule_deferred_split, &w,
		  "more huge pages queued for deferred split than split since boot: some may "
		  "be held until memory pressure (how many now: unknown before 6.12)",
		  "thp_deferred_split_page=10 thp_split_page=4", NULL);
	set_vmstat(&t->h, "thp_deferred_split_page 3\nthp_split_page 4\n");
	struct thp_size *sz = add_size(&t->h, 2048, "always [inherit] madvise never\n");
	add_stat(sz, "nr_anon_partially_mapped", 3);
	words(t, rule_deferred_split, &w);
	assert_string_equal(w.title, "partly freed huge pages are held until memory pressure");
	assert_string_equal(
		w.evidence,
		"thp_deferred_split_page=3 thp_split_page=4 nr_anon_partially_mapped=3");
}

static void test_cow_and_large_pmd_words(UNIT_STATE)
{
	struct t *t = *state;
	struct finding_text w;
	set_choice(&t->h.thp.enabled, "[always] madvise never\n");
	set_release(&t->h, "4.19.0-25-amd64");
	words_are(t, rule_cow_copy, &w,
		  "kernel 4.19.0-25-amd64 < 5.8 with enabled=always: a write "
		  "after fork copies a whole huge page",
		  "release 4.19.0-25-amd64 (inferred from version), enabled=always",
		  "thpctl set enabled=madvise");
	t->h.feat.page_size = 65536;
	t->h.feat.pmd_size = 512u << 20;
	words_are(t, rule_large_pmd, &w,
		  "hpage_pmd_size is 512 MiB: each scattered write can cost "
		  "that much",
		  "hpage_pmd_size=536870912, PMD-size policy always",
		  "thpctl set enabled=madvise  # only programs that opt in");
	set_choice(&t->h.thp.enabled, "always [madvise] never\n");
	words(t, rule_large_pmd, &w);
	assert_contains(w.title, "(in MADV_HUGEPAGE regions)");
	assert_string_equal(w.fix, "thpctl set enabled=never  # if no program here needs PMD THP");
	/* the policy unread: no region named, no setting offered */
	memset(&t->h.thp.enabled, 0, sizeof(t->h.thp.enabled));
	words(t, rule_large_pmd, &w);
	assert_contains(w.title, "(where: unknown, the PMD-size policy could not be read)");
	assert_string_equal(w.evidence, "hpage_pmd_size=536870912, PMD-size policy unknown");
	assert_null(strstr(w.fix, "thpctl set"));
}

static void test_mthp_and_hugetlb_words(UNIT_STATE)
{
	struct t *t = *state;
	struct finding_text w;
	add_size(&t->h, 64, "[always] inherit madvise never\n");
	words(t, rule_mthp_no_stats, &w);
	assert_string_equal(
		w.evidence,
		"hugepages-64kB/enabled=always (effective always), no stats/ directory");
	assert_string_equal(w.fix, "thpctl set hugepages-64kB/enabled=never");
	assert_string_equal(w.more, "thpctl ps --folios"); /* there is no `thpctl folios` */
	struct hugetlb_pool *p = &t->h.hugetlb.pools[t->h.hugetlb.npools++];
	*p = (struct hugetlb_pool){.size_kb = 2048,
				   .node = -1,
				   .nr = {512, true},
				   .free = {512, true},
				   .resv = {0, true}};
	words_are(t, rule_hugetlb_idle, &w,
		  "hugetlb pool of 512 x 2048 kB (1024 MiB) is reserved and "
		  "entirely free: memory held for nobody",
		  "hugepages-2048kB: nr_hugepages=512 free_hugepages=512 resv_hugepages=0",
		  "echo 0 > /sys/kernel/mm/hugepages/hugepages-2048kB/"
		  "nr_hugepages  # if no database is about to start");
	assert_int_equal(meminfo_parse(LIT("Hugepagesize:    2048 kB\n"), &t->h.meminfo), 0);
	/* the plan for the pool it holds: `hugetlb plan` needs --for SIZE */
	assert_string_equal(w.more, "thpctl hugetlb plan --for 1G --page 2M");
	words(t, rule_hugetlb_idle, &w);
	assert_string_equal(w.fix, "sysctl vm.nr_hugepages=0  # if no database is about to start");
	p->nr = p->free = (struct opt_u64){3, true}; /* 6 MiB: not a whole GiB */
	words(t, rule_hugetlb_idle, &w);
	assert_string_equal(w.more, "thpctl hugetlb plan --for 6M --page 2M");
}

static void test_khugepaged_and_read_only_words(UNIT_STATE)
{
	struct t *t = *state;
	struct finding_text w;
	t->h.has_khugepaged_cpu = true;
	t->h.uptime_s = 1000;
	t->h.khugepaged_cpu_s = 60;
	words_are(t, rule_khugepaged_cpu, &w, "khugepaged used 6.00% of a CPU since boot",
		  "khugepaged CPU 60.0 s over 1000 s uptime",
		  "thpctl set khugepaged/scan_sleep_millisecs=20000");
	/* started anew long after boot: over its own life, and said */
	t->h.khugepaged_cpu_s = 10;
	t->h.khugepaged_start_s = 900;
	words_are(t, rule_khugepaged_cpu, &w,
		  "khugepaged used 10.00% of a CPU since it started, 900 s after boot",
		  "khugepaged CPU 10.0 s over the 100 s since it started (a new thread each time "
		  "THP is turned back on from never)",
		  NULL);
	t->h.khugepaged_start_s = 0;
	t->h.thp.write_err = -EROFS;
	words_are(t, rule_read_only, &w,
		  "THP settings are read-only here (read-only /sys): host-wide setting",
		  "transparent_hugepage/enabled: Read-only file system",
		  "run thpctl on the host, as root");
	assert_contains(w.why, "change them on the host");
	t->h.thp.write_err = -EACCES;
	words(t, rule_read_only, &w);
	assert_contains(w.title, "not writable by this user");
	assert_string_equal(w.evidence, "transparent_hugepage/enabled: Permission denied");
	assert_string_equal(w.why, "the THP settings are host-wide and only root may change them");
	/* advise names what to change and prints the set lines: `set --dry-run` alone exits 2 */
	assert_string_equal(w.more, "thpctl advise");
}

static void test_tuned_words(UNIT_STATE)
{
	struct t *t = *state;
	struct host_snapshot *h = &t->h;
	struct finding_text w;
	h->has_settings = h->has_tuned = h->tuned.has_active = true;
	h->tuned.running = TRI_YES;
	snprintf(h->tuned.active, sizeof(h->tuned.active), "db");
	tuned_set(h, "enabled", "madvise", true);
	tuned_set(h, "khugepaged/max_ptes_none", "511", false);
	words_are(t, rule_tuned_thp, &w,
		  "tuned profile db sets 2 THP setting(s): it overrides other "
		  "settings at its next apply",
		  "tuned running, active_profile=db: enabled=madvise, khugepaged/max_ptes_none=511",
		  "thpctl persist --format tuned --install  # then tuned-adm profile thpctl");
	tuned_set(h, "defrag", "always", true);
	tuned_set(h, "use_zero_page", "0", false);
	h->tuned.running = TRI_NO;
	h->tuned.enabled = TRI_YES;
	words_are(t, rule_tuned_thp, &w,
		  "tuned profile db sets 4 THP setting(s), 1 unlike the live "
		  "value: its next apply changes them",
		  "tuned not running, enabled at boot, active_profile=db: "
		  "enabled=madvise, khugepaged/max_ptes_none=511, "
		  "defrag=always (live: madvise), use_zero_page=0 (live: -)",
		  NULL);
	assert_string_equal(w.more, "thpctl persist --format tuned"); /* what it would write */
}

/* The verdict line on a narrow terminal keeps its whole title: it is wrapped (util/wrap.h),
 * never cut ("page faults have waited on ~" lost the number). */
static void test_verdict_keeps_the_whole_title_on_a_terminal(UNIT_STATE)
{
	struct t *t = *state;
	set_vmstat(&t->h, "compact_stall 150\ncompact_fail 100\ncompact_success 50\n");
	assert_int_equal(run(t, rule_compact_stall), 1);
	char out[1024] = "";
	FILE *f = fmemopen(out, sizeof(out) - 1, "w");
	assert_non_null(f);
	table_set_width(60);
	status_render_verdict(f, &t->out, false, false);
	table_set_width(0);
	fclose(f);
	assert_non_null(strstr(out, "direct compaction stalled allocations 150 times since boot"));
	assert_null(strchr(out, '~'));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_defrag_always_words),
		T(test_max_ptes_none_words),
		T(test_fault_success_words),
		T(test_compact_stall_words),
		T(test_verdict_keeps_the_whole_title_on_a_terminal),
		T(test_deferred_split_words),
		T(test_cow_and_large_pmd_words),
		T(test_mthp_and_hugetlb_words),
		T(test_khugepaged_and_read_only_words),
		T(test_tuned_words),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
