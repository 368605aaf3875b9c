// SPDX-License-Identifier: MIT
/*
 * Unit tests: src/model/findings.c. Each rule gets a host built by hand (as
 * host_snapshot_read would fill it from a recorded tree), host_derive(), then the
 * rule: it must fire with the right id, severity and evidence, and stay quiet
 * on the healthy host.
 */
#include "test_findings_host.h"

static void test_healthy_host_has_no_findings(UNIT_STATE)
{
	struct t *t = *state;
	host_derive(&t->h, &t->d);
	findings_evaluate(&t->h, &t->d, &t->out);
	for (int i = 0; i < t->out.n; i++)
		print_error("unexpected finding %s\n", t->out.f[i].id);
	assert_int_equal(t->out.n, 0);
	/* what the healthy counters derive to */
	assert_true(t->d.fault_success.valid);
	assert_int_equal(t->d.fault_success.num, 900);
	assert_int_equal(t->d.fault_success.den, 1000);
	assert_int_equal(t->d.pmd_order, 9);
	assert_int_equal(t->d.free_pmd_blocks, 35 + 244 * 2);
}

static void test_defrag_always(UNIT_STATE)
{
	struct t *t = *state;
	assert_int_equal(run(t, rule_defrag_always), 0);
	set_choice(&t->h.thp.defrag, "[always] defer defer+madvise madvise never\n");
	const struct finding *f = fires(t, rule_defrag_always, "defrag-always", SEV_WARN);
	assert_int_equal(f->kind, FK_DEFRAG_ALWAYS);
	/* the fix is a setting, with its key and value for set and persist */
	assert_string_equal(f->set_key, "defrag");
	assert_string_equal(f->set_value, "madvise");
	assert_false(f->sysctl);
	assert_int_equal(f->area, AREA_LATENCY);
	/* the other stalling-free values do not fire */
	set_choice(&t->h.thp.defrag, "always defer [defer+madvise] madvise never\n");
	assert_int_equal(run(t, rule_defrag_always), 0);
	set_choice(&t->h.thp.defrag, "always [defer] madvise never\n");
	assert_int_equal(run(t, rule_defrag_always), 0);
	/* an unreadable file is not "always" */
	memset(&t->h.thp.defrag, 0, sizeof(t->h.thp.defrag));
	assert_int_equal(run(t, rule_defrag_always), 0);
}

static void test_always_max_ptes_none(UNIT_STATE)
{
	struct t *t = *state;
	/* madvise + 511: healthy */
	assert_int_equal(run(t, rule_always_max_ptes_none), 0);
	set_choice(&t->h.thp.enabled, "[always] madvise never\n");
	const struct finding *f =
		fires(t, rule_always_max_ptes_none, "always-max-ptes-none", SEV_WARN);
	assert_int_equal(f->ev.max_ptes_none, 511);
	/* fix: 1/8 of a PMD's pages */
	assert_string_equal(f->set_key, "khugepaged/max_ptes_none");
	assert_string_equal(f->set_value, "64");
	assert_int_equal(f->area, AREA_MEMORY);
	/* a lowered max_ptes_none is fine */
	t->h.thp.khp[KHP_MAX_PTES_NONE].v = 64;
	assert_int_equal(run(t, rule_always_max_ptes_none), 0);
	t->h.thp.khp[KHP_MAX_PTES_NONE].v = 510;
	assert_int_equal(run(t, rule_always_max_ptes_none), 0);
	/* unreadable max_ptes_none: no evidence, no finding */
	t->h.thp.khp[KHP_MAX_PTES_NONE] = (struct opt_u64){.v = 511, .present = false};
	assert_int_equal(run(t, rule_always_max_ptes_none), 0);
}

static void test_always_max_ptes_none_per_size(UNIT_STATE)
{
	struct t *t = *state;
	/* 6.8+: hugepages-2048kB decides for the PMD size */
	add_size(&t->h, 64, "always inherit madvise [never]\n");
	struct thp_size *pmd = add_size(&t->h, 2048, "always [inherit] madvise never\n");
	/* inherit from the top-level madvise: healthy */
	assert_string_equal(pmd->eff_enabled, "madvise");
	assert_int_equal(run(t, rule_always_max_ptes_none), 0);
	/* inherit from top-level always: fires */
	set_choice(&t->h.thp.enabled, "[always] madvise never\n");
	pmd->eff_enabled = t->h.thp.enabled.selected;
	assert_int_equal(run(t, rule_always_max_ptes_none), 1);
	only(t, "always-max-ptes-none", SEV_WARN);
	/* per-size never overrides the top-level always */
	set_choice(&pmd->enabled, "always inherit madvise [never]\n");
	pmd->eff_enabled = pmd->enabled.selected;
	assert_int_equal(run(t, rule_always_max_ptes_none), 0);
	/* per-size always with top-level never: fires */
	set_choice(&t->h.thp.enabled, "always madvise [never]\n");
	set_choice(&pmd->enabled, "[always] inherit madvise never\n");
	pmd->eff_enabled = pmd->enabled.selected;
	assert_int_equal(run(t, rule_always_max_ptes_none), 1);
	only(t, "always-max-ptes-none", SEV_WARN);
}

static void test_always_max_ptes_none_page_sizes(UNIT_STATE)
{
	struct t *t = *state;
	set_choice(&t->h.thp.enabled, "[always] madvise never\n");
	/* arm64 with 64 KiB pages: PMD 512 MiB = 8192 pages, so 511 is not "full" */
	t->h.feat.page_size = 65536;
	t->h.feat.pmd_size = 512u << 20;
	assert_int_equal(run(t, rule_always_max_ptes_none), 0);
	t->h.thp.khp[KHP_MAX_PTES_NONE].v = 8191;
	assert_int_equal(run(t, rule_always_max_ptes_none), 1);
	assert_string_equal(t->out.f[0].set_value, "1024");
	/* page size unknown (a recorded tree): 511 is taken as full */
	t->h.feat.page_size = 0;
	t->h.feat.pmd_size = 2u << 20;
	t->h.thp.khp[KHP_MAX_PTES_NONE].v = 511;
	assert_int_equal(run(t, rule_always_max_ptes_none), 1);
	assert_string_equal(t->out.f[0].set_value, "64");
}

static void test_fault_success_low(UNIT_STATE)
{
	struct t *t = *state;
	assert_int_equal(run(t, rule_fault_success_low), 0);
	set_vmstat(&t->h, "thp_fault_alloc 40\nthp_fault_fallback 60\n");
	const struct finding *f = fires(t, rule_fault_success_low, "fault-success-low", SEV_WARN);
	assert_int_equal(f->ev.fault.r.num, 40);
	assert_int_equal(f->ev.fault.r.den, 100);
	assert_int_equal(f->ev.fault.size_kb, 0); /* the PMD size */
	assert_int_equal(f->ev.fault.pmd_order, 9);
	assert_int_equal(f->ev.fault.free_pmd_blocks, 523);
	assert_true(f->ev.fault.has_free_blocks);
	/* buddyinfo not read: the count is unknown, never the 0 an empty zone list sums to */
	t->h.has_buddy = false;
	f = fires(t, rule_fault_success_low, "fault-success-low", SEV_WARN);
	assert_false(f->ev.fault.has_free_blocks);
	t->h.has_buddy = true;
	/* 99 attempts is too few to judge */
	set_vmstat(&t->h, "thp_fault_alloc 40\nthp_fault_fallback 59\n");
	assert_int_equal(run(t, rule_fault_success_low), 0);
	/* exactly half is not low */
	set_vmstat(&t->h, "thp_fault_alloc 50\nthp_fault_fallback 50\n");
	assert_int_equal(run(t, rule_fault_success_low), 0);
	set_vmstat(&t->h, "thp_fault_alloc 49\nthp_fault_fallback 51\n");
	assert_int_equal(run(t, rule_fault_success_low), 1);
	/* one counter missing: no ratio */
	set_vmstat(&t->h, "thp_fault_fallback 1000\n");
	assert_int_equal(run(t, rule_fault_success_low), 0);
	/* page size unknown: no free-block evidence */
	set_vmstat(&t->h, "thp_fault_alloc 0\nthp_fault_fallback 500\n");
	t->h.feat.page_size = 0;
	assert_int_equal(run(t, rule_fault_success_low), 1);
	assert_int_equal(t->out.f[0].ev.fault.pmd_order, -1);
	assert_int_equal(t->out.f[0].ev.fault.r.den, 500);
}

static void test_fault_success_low_mthp(UNIT_STATE)
{
	struct t *t = *state;
	/* PMD faults fine; 64 kB mTHP faults mostly fall back (only stats/ shows it) */
	struct thp_size *sz = add_size(&t->h, 64, "[always] inherit madvise never\n");
	add_stat(sz, "anon_fault_alloc", 10);
	add_stat(sz, "anon_fault_fallback", 190);
	const struct finding *f = fires(t, rule_fault_success_low, "fault-success-low", SEV_WARN);
	assert_int_equal(f->ev.fault.size_kb, 64);
	assert_int_equal(f->ev.fault.r.num, 10);
	assert_int_equal(f->ev.fault.r.den, 200);
	assert_int_equal(t->d.nsizes, 1);
	assert_int_equal(t->d.sizes[0].size_kb, 64);
	/* under 100 attempts: quiet */
	kvlist_clear(&sz->stats);
	add_stat(sz, "anon_fault_alloc", 1);
	add_stat(sz, "anon_fault_fallback", 98);
	assert_int_equal(run(t, rule_fault_success_low), 0);
}

static void test_compact_stall(UNIT_STATE)
{
	struct t *t = *state;
	assert_int_equal(run(t, rule_compact_stall), 0); /* compact_stall 0 */
	set_vmstat(&t->h, "compact_stall 150\ncompact_fail 100\ncompact_success 50\n");
	const struct finding *f = fires(t, rule_compact_stall, "compact-stall", SEV_WARN);
	assert_int_equal(f->ev.compact.stall, 150);
	assert_int_equal(f->ev.compact.fail, 100);
	assert_int_equal(f->ev.compact.success, 50);
	assert_true(f->ev.compact.has_outcome);
	/* defrag=madvise: only advised regions' THP faults compact, in a share no counter tells
	 * (compact_stall counts every direct compaction): no setting is offered */
	assert_int_equal(f->ev.compact.who, DEFRAG_STALL_MADVISED);
	assert_int_equal(f->ev.compact.cause, COMPACT_CAUSE_MADVISED);
	assert_false(f->ev.compact.has_faults);
	assert_string_equal(f->set_key, "");
	/* no THP page fault since boot: none of the stalls is one, whatever defrag is; not a
	 * THP warning, however many */
	set_vmstat(&t->h, "compact_stall 150\nthp_fault_alloc 0\nthp_fault_fallback 0\n");
	f = fires(t, rule_compact_stall, "compact-stall", SEV_INFO);
	assert_int_equal(f->ev.compact.cause, COMPACT_CAUSE_NO_FAULTS);
	assert_true(f->ev.compact.has_faults);
	assert_string_equal(f->set_key, "");
	set_vmstat(&t->h, "compact_stall 150\ncompact_fail 100\ncompact_success 50\n");
	/* defrag=never stalls no THP fault: no setting to change, and info */
	set_choice(&t->h.thp.defrag, "always defer defer+madvise madvise [never]\n");
	f = fires(t, rule_compact_stall, "compact-stall", SEV_INFO);
	assert_int_equal(f->ev.compact.who, DEFRAG_STALL_NONE);
	assert_string_equal(f->ev.compact.defrag, "never");
	assert_string_equal(f->set_key, "");
	set_choice(&t->h.thp.defrag, "[always] defer defer+madvise madvise never\n");
	f = fires(t, rule_compact_stall, "compact-stall", SEV_WARN);
	assert_int_equal(f->ev.compact.who, DEFRAG_STALL_ANY);
	assert_int_equal(f->ev.compact.cause, COMPACT_CAUSE_ANY_FAULT);
	assert_string_equal(f->set_value, "madvise");
	set_vmstat(&t->h, "compact_stall 100\ncompact_fail 0\ncompact_success 100\n");
	assert_int_equal(run(t, rule_compact_stall), 1);
	only(t, "compact-stall", SEV_WARN); /* 100 is already a warning */
	/* a few stalls: info */
	set_vmstat(&t->h, "compact_stall 99\ncompact_fail 1\ncompact_success 98\n");
	assert_int_equal(run(t, rule_compact_stall), 1);
	only(t, "compact-stall", SEV_INFO);
	set_vmstat(&t->h, "compact_stall 5\n");
	assert_int_equal(run(t, rule_compact_stall), 1);
	assert_int_equal(t->out.f[0].ev.compact.stall, 5);
	assert_false(t->out.f[0].ev.compact.has_outcome);
	/* no counter at all (CONFIG_COMPACTION=n) */
	set_vmstat(&t->h, "thp_fault_alloc 1\n");
	assert_int_equal(run(t, rule_compact_stall), 0);
}

static void test_deferred_split(UNIT_STATE)
{
	struct t *t = *state;
	assert_int_equal(run(t, rule_deferred_split), 0); /* 4 deferred, 4 split */
	set_vmstat(&t->h, "thp_deferred_split_page 10\nthp_split_page 4\n");
	const struct finding *f = fires(t, rule_deferred_split, "deferred-split", SEV_INFO);
	assert_int_equal(f->ev.split.deferred, 10);
	assert_int_equal(f->ev.split.split, 4);
	assert_false(f->ev.split.has_partially_mapped);
	set_vmstat(&t->h, "thp_deferred_split_page 3\nthp_split_page 4\n");
	assert_int_equal(run(t, rule_deferred_split), 0);
	/* 6.12+: a gauge of partially mapped THPs per size */
	struct thp_size *sz = add_size(&t->h, 2048, "always [inherit] madvise never\n");
	add_stat(sz, "nr_anon", 20);
	add_stat(sz, "nr_anon_partially_mapped", 0);
	assert_int_equal(run(t, rule_deferred_split), 0);
	kvlist_clear(&sz->stats);
	add_stat(sz, "nr_anon_partially_mapped", 3);
	assert_int_equal(run(t, rule_deferred_split), 1);
	assert_true(t->out.f[0].ev.split.has_partially_mapped);
	assert_int_equal(t->out.f[0].ev.split.partially_mapped, 3);
}

static void test_shrink_underused_noop(UNIT_STATE)
{
	struct t *t = *state;
	/* shrink_underused=0: nothing to say */
	assert_int_equal(run(t, rule_shrink_underused_noop), 0);
	t->h.thp.shrink_underused.v = 1;
	const struct finding *f =
		fires(t, rule_shrink_underused_noop, "shrink-underused-noop", SEV_INFO);
	assert_int_equal(f->ev.shrink.max_ptes_none, 511);
	assert_false(f->ev.shrink.measured); /* render words it as the kernel's source */
	assert_string_equal(f->set_key, "khugepaged/max_ptes_none");
	assert_string_equal(f->set_value, "64");
	/* measured by lab shrinker on this kernel: nothing split at 511, all at 64 */
	struct shrinker_record *rec = shrinker_measured(&t->h);
	f = fires(t, rule_shrink_underused_noop, "shrink-underused-noop", SEV_INFO);
	assert_true(f->ev.shrink.measured);
	assert_string_equal(f->ev.shrink.time, "2026-12-02T04:40:00Z");
	assert_int_equal(f->ev.shrink.before_kb, 65536);
	assert_int_equal(f->ev.shrink.after_kb, 65536);
	assert_true(f->ev.shrink.has_low);
	assert_int_equal(f->ev.shrink.low_mpn, 64);
	assert_int_equal(f->ev.shrink.low_after_kb, 0);
	/* ... on another kernel: not this one's measurement */
	char keep[sizeof(rec->kernel)];
	memcpy(keep, rec->kernel, sizeof(keep));
	snprintf(rec->kernel, sizeof(rec->kernel), "6.12.1-other");
	f = fires(t, rule_shrink_underused_noop, "shrink-underused-noop", SEV_INFO);
	assert_false(f->ev.shrink.measured);
	/* measured, and this kernel did split at 511: no "noop" finding */
	memcpy(rec->kernel, keep, sizeof(keep));
	rec->p[0].ahp_after_kb = 0;
	assert_int_equal(run(t, rule_shrink_underused_noop), 0);
	t->h.has_shrinker = false;
	/* with max_ptes_none lowered the shrinker works */
	t->h.thp.khp[KHP_MAX_PTES_NONE].v = 255;
	assert_int_equal(run(t, rule_shrink_underused_noop), 0);
	/* before 6.12 there is no such file */
	t->h.thp.khp[KHP_MAX_PTES_NONE].v = 511;
	t->h.thp.shrink_underused = (struct opt_u64){0};
	assert_int_equal(run(t, rule_shrink_underused_noop), 0);
}

static void test_cow_copy(UNIT_STATE)
{
	struct t *t = *state;
	set_choice(&t->h.thp.enabled, "[always] madvise never\n");
	set_release(&t->h, "4.19.0-25-amd64");
	assert_int_equal(t->h.feat.cow_split, TRI_NO);
	const struct finding *f = fires(t, rule_cow_copy, "cow-copy", SEV_WARN);
	assert_int_equal(host_cow_copies_thp(&t->h), TRI_YES);
	assert_string_equal(f->ev.release, "4.19.0-25-amd64");
	assert_string_equal(f->set_value, "madvise");
	/* 5.8 split the PMD instead of copying */
	set_release(&t->h, "5.8.0");
	assert_int_equal(run(t, rule_cow_copy), 0);
	set_release(&t->h, "5.7.19");
	assert_int_equal(run(t, rule_cow_copy), 1);
	/* madvise: only opted-in regions, no finding */
	set_choice(&t->h.thp.enabled, "always [madvise] never\n");
	assert_int_equal(run(t, rule_cow_copy), 0);
	/* unknown version: no inference */
	set_choice(&t->h.thp.enabled, "[always] madvise never\n");
	t->h.feat.cow_split = TRI_UNKNOWN;
	assert_int_equal(run(t, rule_cow_copy), 0);
}

static void test_large_pmd(UNIT_STATE)
{
	struct t *t = *state;
	assert_int_equal(run(t, rule_large_pmd), 0); /* 2 MiB */
	t->h.feat.page_size = 65536;
	t->h.feat.pmd_size = 512u << 20;
	/* the harness starts at madvise: only advised regions are at risk */
	const struct finding *f = fires(t, rule_large_pmd, "large-pmd", SEV_INFO);
	assert_int_equal(f->ev.pmd.pmd_size, 536870912);
	assert_string_equal(f->ev.pmd.policy, "madvise");
	assert_false(f->ev.pmd.always);
	assert_string_equal(f->set_value, "never");
	set_choice(&t->h.thp.enabled, "[always] madvise never\n");
	f = fires(t, rule_large_pmd, "large-pmd", SEV_WARN);
	assert_string_equal(f->ev.pmd.policy, "always");
	assert_true(f->ev.pmd.always);
	assert_string_equal(f->set_key, "enabled");
	assert_string_equal(f->set_value, "madvise");
	/* never: nothing faults in a PMD */
	set_choice(&t->h.thp.enabled, "always madvise [never]\n");
	assert_int_equal(run(t, rule_large_pmd), 0);
	/* the policy unread: neither "in MADV_HUGEPAGE regions" nor a fix (it may be always) */
	memset(&t->h.thp.enabled, 0, sizeof(t->h.thp.enabled));
	f = fires(t, rule_large_pmd, "large-pmd", SEV_INFO);
	assert_null(f->ev.pmd.policy);
	assert_true(f->set_key == NULL || f->set_key[0] == '\0');
	/* hpage_pmd_size absent (before 4.10) */
	t->h.feat.pmd_size = 0;
	assert_int_equal(run(t, rule_large_pmd), 0);
}

static void test_mthp_no_stats(UNIT_STATE)
{
	struct t *t = *state;
	/* 6.8/6.9: per-size directories but no stats/ */
	add_size(&t->h, 16, "always inherit madvise [never]\n");
	struct thp_size *sz = add_size(&t->h, 64, "always inherit madvise [never]\n");
	add_size(&t->h, 2048, "always [inherit] madvise never\n");
	assert_int_equal(run(t, rule_mthp_no_stats), 0);
	set_choice(&sz->enabled, "[always] inherit madvise never\n");
	sz->eff_enabled = sz->enabled.selected;
	const struct finding *f = fires(t, rule_mthp_no_stats, "mthp-no-stats", SEV_WARN);
	assert_int_equal(f->ev.mthp.size_kb, 64);
	assert_string_equal(f->ev.mthp.enabled, "always");
	assert_string_equal(f->ev.mthp.effective, "always");
	assert_string_equal(f->set_key, "hugepages-64kB/enabled");
	assert_string_equal(f->set_value, "never");
	assert_int_equal(f->area, AREA_VISIBILITY);
	/* 6.10+: stats/ exists */
	add_stat(sz, "anon_fault_alloc", 0);
	assert_int_equal(run(t, rule_mthp_no_stats), 0);
}

static void test_mthp_no_stats_pmd_size_skipped(UNIT_STATE)
{
	struct t *t = *state;
	/* the PMD size is counted by thp_* in vmstat: not an mTHP blind spot */
	set_choice(&t->h.thp.enabled, "[always] madvise never\n");
	add_size(&t->h, 2048, "always [inherit] madvise never\n");
	assert_int_equal(run(t, rule_mthp_no_stats), 0);
	/* a shmem-only size (8 kB on x86) has no anon policy */
	add_size(&t->h, 8, NULL);
	assert_int_equal(run(t, rule_mthp_no_stats), 0);
	/* madvise counts as enabled */
	add_size(&t->h, 32, "always inherit [madvise] never\n");
	assert_int_equal(run(t, rule_mthp_no_stats), 1);
	assert_int_equal(t->out.f[0].ev.mthp.size_kb, 32);
	assert_string_equal(t->out.f[0].ev.mthp.enabled, "madvise");
}

static void test_hugetlb_idle(UNIT_STATE)
{
	struct t *t = *state;
	assert_int_equal(run(t, rule_hugetlb_idle), 0); /* no pools */
	struct hugetlb_pool *node = &t->h.hugetlb.pools[t->h.hugetlb.npools++];
	*node = (struct hugetlb_pool){.size_kb = 2048,
				      .node = 0,
				      .nr = {512, true},
				      .free = {512, true},
				      .surplus = {0, true}};
	/* per-node pools do not count on their own */
	assert_int_equal(run(t, rule_hugetlb_idle), 0);
	struct hugetlb_pool *p = &t->h.hugetlb.pools[t->h.hugetlb.npools++];
	*p = (struct hugetlb_pool){.size_kb = 2048,
				   .node = -1,
				   .nr = {512, true},
				   .free = {512, true},
				   .resv = {0, true},
				   .surplus = {0, true},
				   .overcommit = {0, true}};
	const struct finding *f = fires(t, rule_hugetlb_idle, "hugetlb-idle", SEV_WARN);
	assert_int_equal(f->ev.pool.size_kb, 2048);
	assert_int_equal(f->ev.pool.nr, 512);
	assert_int_equal(f->ev.pool.free, 512);
	assert_int_equal(f->ev.pool.resv, 0);
	/* not the default size (no Hugepagesize here): the per-size file, no sysctl */
	assert_false(f->ev.pool.default_size);
	assert_string_equal(f->set_key, "");
	/* the default size: vm.nr_hugepages, which persist --format sysctl writes */
	assert_int_equal(meminfo_parse(LIT("Hugepagesize:    2048 kB\n"), &t->h.meminfo), 0);
	f = fires(t, rule_hugetlb_idle, "hugetlb-idle", SEV_WARN);
	assert_true(f->ev.pool.default_size);
	assert_string_equal(f->set_key, "vm.nr_hugepages");
	assert_string_equal(f->set_value, "0");
	assert_true(f->sysctl);
	assert_int_equal(f->area, AREA_HUGETLB);
	/* in use, reserved, or empty: fine */
	p->free.v = 500;
	assert_int_equal(run(t, rule_hugetlb_idle), 0);
	p->free.v = 512;
	p->resv.v = 512;
	assert_int_equal(run(t, rule_hugetlb_idle), 0);
	p->resv.v = 0;
	p->nr.v = p->free.v = 0;
	assert_int_equal(run(t, rule_hugetlb_idle), 0);
	/* 1 GiB pages, resv unreadable: a reservation may hold it, so not "held for nobody"
	 * (it fired, with resv_hugepages=0 in its evidence) */
	*p = (struct hugetlb_pool){
		.size_kb = 1048576, .node = -1, .nr = {4, true}, .free = {4, true}};
	assert_int_equal(run(t, rule_hugetlb_idle), 0);
	p->resv = (struct opt_u64){0, true};
	assert_int_equal(run(t, rule_hugetlb_idle), 1);
	assert_int_equal(t->out.f[0].ev.pool.nr, 4);
	assert_int_equal(t->out.f[0].ev.pool.size_kb, 1048576);
}

static void test_khugepaged_cpu(UNIT_STATE)
{
	struct t *t = *state;
	assert_int_equal(run(t, rule_khugepaged_cpu), 0); /* not measured */
	t->h.has_khugepaged_cpu = true;
	t->h.uptime_s = 1000;
	t->h.khugepaged_cpu_s = 60;
	const struct finding *f = fires(t, rule_khugepaged_cpu, "khugepaged-cpu", SEV_WARN);
	assert_float_equal(f->ev.khp.share, 0.06, 1e-12);
	assert_float_equal(f->ev.khp.cpu_s, 60, 0);
	assert_float_equal(f->ev.khp.uptime_s, 1000, 0);
	assert_string_equal(f->set_key, "khugepaged/scan_sleep_millisecs");
	assert_string_equal(f->set_value, "20000");
	/* 5% is the limit, not over it */
	t->h.khugepaged_cpu_s = 50;
	assert_int_equal(run(t, rule_khugepaged_cpu), 0);
	t->h.khugepaged_cpu_s = 1;
	assert_int_equal(run(t, rule_khugepaged_cpu), 0);
	/* started anew 900 s after boot (THP was off): 10 s over its 100 s is 10%, not the
	 * 1% of the uptime that kept the finding quiet */
	t->h.khugepaged_cpu_s = 10;
	t->h.khugepaged_start_s = 900;
	f = fires(t, rule_khugepaged_cpu, "khugepaged-cpu", SEV_WARN);
	assert_float_equal(f->ev.khp.share, 0.1, 1e-12);
	assert_float_equal(f->ev.khp.alive_s, 100, 1e-9);
	/* a start after the uptime read (damage): no ratio */
	t->h.khugepaged_start_s = 2000;
	assert_int_equal(run(t, rule_khugepaged_cpu), 0);
	t->h.khugepaged_start_s = 0;
}

static void test_read_only(UNIT_STATE)
{
	struct t *t = *state;
	assert_int_equal(run(t, rule_read_only), 0); /* writable */
	t->h.thp.write_err = -EROFS;
	const struct finding *f = fires(t, rule_read_only, "settings-read-only", SEV_INFO);
	assert_int_equal(f->ev.write_err, -EROFS);
	t->h.thp.write_err = -EACCES;
	assert_int_equal(run(t, rule_read_only), 1);
	assert_int_equal(t->out.f[0].ev.write_err, -EACCES);
	t->h.thp.write_err = -ENOENT;
	assert_int_equal(run(t, rule_read_only), 0);
	/* no THP at all: nothing to write */
	t->h.thp.write_err = -EROFS;
	t->h.thp.present = false;
	assert_int_equal(run(t, rule_read_only), 0);
}

static void test_tuned_thp(UNIT_STATE)
{
	struct t *t = *state;
	struct host_snapshot *h = &t->h;
	h->has_settings = true;
	assert_int_equal(run(t, rule_tuned_thp), 0); /* no tuned read */
	h->has_tuned = true;
	h->tuned.installed = TRI_YES;
	h->tuned.running = TRI_YES;
	assert_int_equal(run(t, rule_tuned_thp), 0); /* no active profile */
	h->tuned.has_active = true;
	snprintf(h->tuned.active, sizeof(h->tuned.active), "db");
	assert_int_equal(run(t, rule_tuned_thp), 0); /* the profile sets no THP knob */
	/* the same values as live: info, tuned still owns them */
	tuned_set(h, "enabled", "madvise", true);
	tuned_set(h, "khugepaged/max_ptes_none", "511", false);
	const struct finding *f = fires(t, rule_tuned_thp, "tuned-sets-thp", SEV_INFO);
	assert_int_equal(f->ev.tuned.nset, 2);
	assert_int_equal(f->ev.tuned.ndiff, 0);
	assert_false(f->ev.tuned.set[0].differs || f->ev.tuned.set[1].differs);
	assert_ptr_equal(f->ev.tuned.t, &h->tuned);
	assert_int_equal(f->area, AREA_ACCESS);
	/* one differs, one unknown live value, a glob over sizes */
	tuned_set(h, "defrag", "always", true);
	tuned_set(h, "use_zero_page", "0", false);
	f = fires(t, rule_tuned_thp, "tuned-sets-thp", SEV_WARN);
	assert_int_equal(f->ev.tuned.nset, 4);
	assert_int_equal(f->ev.tuned.ndiff, 1);
	assert_true(f->ev.tuned.set[2].differs);
	assert_string_equal(f->ev.tuned.set[2].live, "madvise");
	assert_true(f->ev.tuned.set[3].unread);
	assert_false(f->ev.tuned.set[3].differs);
	/* transparent_hugepage= on the kernel command line: tuned skips its [vm] enabled */
	h->tuned.nset = 1;
	snprintf(h->tuned.set[0].value, sizeof(h->tuned.set[0].value), "never");
	assert_int_equal(run(t, rule_tuned_thp), 1);
	assert_int_equal(t->out.f[0].sev, SEV_WARN);
	snprintf(h->feat.cmdline_thp, sizeof(h->feat.cmdline_thp), "madvise");
	assert_int_equal(run(t, rule_tuned_thp), 0);
	h->feat.cmdline_thp[0] = '\0';
	/* not running and not enabled at boot: nothing applies it */
	h->tuned.running = TRI_NO;
	h->tuned.enabled = TRI_NO;
	assert_int_equal(run(t, rule_tuned_thp), 0);
	h->tuned.enabled = TRI_YES;
	f = fires(t, rule_tuned_thp, "tuned-sets-thp", SEV_WARN);
	assert_int_equal(f->ev.tuned.t->running, TRI_NO);
	/* a recorded tree without run/: running unknown, still a finding */
	h->tuned.running = TRI_UNKNOWN;
	h->tuned.enabled = TRI_UNKNOWN;
	assert_int_equal(run(t, rule_tuned_thp), 1);
}

/* With tuned setting THP, a setting fix persists as a tuned profile. */
static void test_tuned_persist_route(UNIT_STATE)
{
	struct t *t = *state;
	struct host_snapshot *h = &t->h;
	h->has_settings = true;
	set_choice(&h->thp.defrag, "[always] defer defer+madvise madvise never\n");
	host_derive(h, &t->d);
	findings_evaluate(h, &t->d, &t->out);
	assert_true(t->out.n > 0);
	for (int i = 0; i < t->out.n; i++)
		assert_false(t->out.f[i].via_tuned);
	h->has_tuned = true;
	h->tuned.has_active = true;
	h->tuned.running = TRI_YES;
	snprintf(h->tuned.active, sizeof(h->tuned.active), "db");
	tuned_set(h, "enabled", "never", true);
	findings_evaluate(h, &t->d, &t->out);
	int n = 0;
	for (int i = 0; i < t->out.n; i++) {
		const struct finding *f = &t->out.f[i];
		if (strcmp(f->id, "defrag-always") == 0) {
			assert_true(f->via_tuned);
			n++;
		}
		if (strcmp(f->id, "tuned-sets-thp") == 0) {
			assert_false(f->via_tuned); /* its fix is not a setting */
			n++;
		}
	}
	assert_int_equal(n, 2);
}

static void test_evaluate_order(UNIT_STATE)
{
	struct t *t = *state;
	/* two warnings and three infos, raised in an interleaved rule order */
	set_choice(&t->h.thp.defrag, "[always] defer defer+madvise madvise never\n");
	set_vmstat(&t->h, "compact_stall 5\ncompact_fail 1\ncompact_success 4\n"
			  "thp_deferred_split_page 9\nthp_split_page 1\n");
	t->h.feat.pmd_size = 32u << 20;				   /* arm64 16 KiB pages */
	set_choice(&t->h.thp.enabled, "[always] madvise never\n"); /* large-pmd: warn */
	t->h.feat.cow_split = TRI_YES;
	t->h.feat.page_size = 16384;
	t->h.thp.write_err = -EROFS;
	host_derive(&t->h, &t->d);
	findings_evaluate(&t->h, &t->d, &t->out);
	const char *want[] = {"defrag-always", "large-pmd", "compact-stall", "deferred-split",
			      "settings-read-only"};
	assert_int_equal(t->out.n, 5);
	for (int i = 0; i < 5; i++)
		assert_string_equal(t->out.f[i].id, want[i]);
	for (int i = 1; i < t->out.n; i++)
		assert_true(t->out.f[i - 1].sev >= t->out.f[i].sev);
	/* evaluating again starts from an empty list */
	findings_evaluate(&t->h, &t->d, &t->out);
	assert_int_equal(t->out.n, 5);
}

/* The verdict: the first of the most severe finding of each area, -1 for none. */
static void test_worst_per_area(UNIT_STATE)
{
	struct t *t = *state;
	int w[AREA_N];
	t->out.n = 0;
	findings_worst_per_area(&t->out, w);
	for (int a = 0; a < AREA_N; a++)
		assert_int_equal(w[a], -1);
	/* as findings_evaluate leaves them: most severe first */
	struct finding *f = t->out.f;
	f[0] = (struct finding){.id = "a", .sev = SEV_CRIT, .area = AREA_MEMORY};
	f[1] = (struct finding){.id = "b", .sev = SEV_WARN, .area = AREA_LATENCY};
	f[2] = (struct finding){.id = "c", .sev = SEV_WARN, .area = AREA_MEMORY};
	f[3] = (struct finding){.id = "d", .sev = SEV_INFO, .area = AREA_LATENCY};
	f[4] = (struct finding){.id = "e", .sev = SEV_INFO, .area = AREA_ACCESS};
	/* unsorted input still gives the most severe: an info before a warn */
	f[5] = (struct finding){.id = "f", .sev = SEV_INFO, .area = AREA_HUGETLB};
	f[6] = (struct finding){.id = "g", .sev = SEV_WARN, .area = AREA_HUGETLB};
	t->out.n = 7;
	findings_worst_per_area(&t->out, w);
	assert_int_equal(w[AREA_MEMORY], 0);
	assert_int_equal(w[AREA_LATENCY], 1);
	assert_int_equal(w[AREA_ACCESS], 4);
	assert_int_equal(w[AREA_HUGETLB], 6);
	assert_int_equal(w[AREA_FRAGMENTATION], -1);
	assert_int_equal(w[AREA_KHUGEPAGED], -1);
	assert_int_equal(w[AREA_VISIBILITY], -1);
	assert_string_equal(finding_area_name(AREA_FRAGMENTATION), "fragmentation");
	assert_string_equal(finding_area_name(AREA_N), "?");
}

/* Every finding names its kind, its id and an area. */
static void test_every_finding_has_kind_and_area(UNIT_STATE)
{
	struct t *t = *state;
	set_choice(&t->h.thp.defrag, "[always] defer defer+madvise madvise never\n");
	set_choice(&t->h.thp.enabled, "[always] madvise never\n");
	set_vmstat(&t->h, "compact_stall 500\nthp_fault_alloc 10\nthp_fault_fallback 990\n"
			  "thp_deferred_split_page 9\nthp_split_page 1\n");
	t->h.thp.write_err = -EROFS;
	host_derive(&t->h, &t->d);
	findings_evaluate(&t->h, &t->d, &t->out);
	assert_true(t->out.n >= 5);
	for (int i = 0; i < t->out.n; i++) {
		const struct finding *f = &t->out.f[i];
		assert_true((unsigned)f->area < AREA_N);
		assert_true((unsigned)f->kind < FK_N);
		assert_string_equal(f->id, finding_id(f->kind));
	}
}

static void test_full_list(UNIT_STATE)
{
	struct t *t = *state;
	set_choice(&t->h.thp.defrag, "[always] defer defer+madvise madvise never\n");
	host_derive(&t->h, &t->d);
	t->out.n = FINDINGS_MAX;
	rule_defrag_always(&t->h, &t->d, &t->out);
	assert_int_equal(t->out.n, FINDINGS_MAX);
}

static void test_severity_names(UNIT_STATE)
{
	/* every kind has its id (and its rule beside it in rules[]) */
	for (int k = 0; k < FK_N; k++)
		assert_string_not_equal(finding_id((enum finding_kind)k), "?");
	assert_string_equal(finding_id(FK_N), "?");
	assert_string_equal(severity_name(SEV_INFO), "info");
	assert_string_equal(severity_name(SEV_WARN), "warn");
	assert_string_equal(severity_name(SEV_CRIT), "crit");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_healthy_host_has_no_findings),
		T(test_defrag_always),
		T(test_always_max_ptes_none),
		T(test_always_max_ptes_none_per_size),
		T(test_always_max_ptes_none_page_sizes),
		T(test_fault_success_low),
		T(test_fault_success_low_mthp),
		T(test_compact_stall),
		T(test_deferred_split),
		T(test_shrink_underused_noop),
		T(test_cow_copy),
		T(test_large_pmd),
		T(test_mthp_no_stats),
		T(test_mthp_no_stats_pmd_size_skipped),
		T(test_hugetlb_idle),
		T(test_khugepaged_cpu),
		T(test_read_only),
		T(test_tuned_thp),
		T(test_tuned_persist_route),
		T(test_evaluate_order),
		T(test_worst_per_area),
		T(test_every_finding_has_kind_and_area),
		T(test_full_list),
		cmocka_unit_test(test_severity_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
