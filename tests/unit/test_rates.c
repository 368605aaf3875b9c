// SPDX-License-Identifier: MIT
/* Unit tests: src/model/rates.c (per-interval rates) and proc_statm_parse. */
#include "unit.h"

#include <math.h>

#include "kernel/proc_status.h"
#include "model/host.h"
#include "model/rates.h"
#include "render/status_recent.h"

static struct opt_u64 some(uint64_t v)
{
	return (struct opt_u64){.v = v, .present = true};
}

static const struct opt_u64 none = {0};

static void test_rate_basic(UNIT_STATE)
{
	struct rate r;
	struct opt_u64 a = some(100), b = some(150);
	assert_int_equal(rate_compute(&a, &b, 2.0, &r), 0);
	assert_int_equal(r.state, RATE_OK);
	assert_true(rate_valid(&r));
	assert_int_equal(r.delta, 50);
	assert_true(fabs(r.per_s - 25.0) < 1e-9);
	/* unchanged: a valid rate of 0, not absent */
	assert_int_equal(rate_compute(&b, &b, 0.5, &r), 0);
	assert_int_equal(r.state, RATE_OK);
	assert_int_equal(r.delta, 0);
	assert_true(r.per_s == 0.0);
	/* sub-second interval */
	a = some(0);
	b = some(3);
	assert_int_equal(rate_compute(&a, &b, 0.25, &r), 0);
	assert_true(fabs(r.per_s - 12.0) < 1e-9);
	/* full 64-bit range */
	a = some(0);
	b = some(UINT64_MAX);
	assert_int_equal(rate_compute(&a, &b, 1, &r), 0);
	assert_int_equal(r.state, RATE_OK);
	assert_true(r.delta == UINT64_MAX);
}

/* new < old: a reset (file recreated) or a 32-bit wrap; counted from zero, flagged. */
static void test_rate_reset_and_wrap(UNIT_STATE)
{
	struct rate r;
	/* a 32-bit unsigned long wrapped: 4294967290 -> 5 */
	struct opt_u64 a = some(4294967290u), b = some(5);
	assert_int_equal(rate_compute(&a, &b, 1.0, &r), 0);
	assert_int_equal(r.state, RATE_RESET);
	assert_true(rate_valid(&r));
	assert_int_equal(r.delta, 5);
	assert_true(fabs(r.per_s - 5.0) < 1e-9);
	/* a reset to zero: 0 events, still flagged */
	a = some(1234);
	b = some(0);
	assert_int_equal(rate_compute(&a, &b, 2.0, &r), 0);
	assert_int_equal(r.state, RATE_RESET);
	assert_int_equal(r.delta, 0);
	assert_true(r.per_s == 0.0);
	/* 64-bit top: UINT64_MAX -> 10 */
	a = some(UINT64_MAX);
	b = some(10);
	assert_int_equal(rate_compute(&a, &b, 4.0, &r), 0);
	assert_int_equal(r.state, RATE_RESET);
	assert_int_equal(r.delta, 10);
	assert_true(fabs(r.per_s - 2.5) < 1e-9);
}

/* A counter that disappears has no rate (absent, not zero); one that appears has none yet. */
static void test_rate_absent(UNIT_STATE)
{
	struct rate r;
	struct opt_u64 a = some(77);
	assert_int_equal(rate_compute(&a, &none, 1.0, &r), 0);
	assert_int_equal(r.state, RATE_ABSENT);
	assert_false(rate_valid(&r));
	assert_int_equal(r.delta, 0);
	assert_true(r.per_s == 0.0);
	assert_int_equal(rate_compute(&none, &a, 1.0, &r), 0);
	assert_int_equal(r.state, RATE_NEW);
	assert_false(rate_valid(&r));
	assert_int_equal(rate_compute(&none, &none, 1.0, &r), 0);
	assert_int_equal(r.state, RATE_ABSENT);
}

static void test_rate_bad_interval(UNIT_STATE)
{
	struct rate r;
	struct opt_u64 a = some(1), b = some(2);
	assert_int_equal(rate_compute(&a, &b, 0, &r), -EINVAL);
	assert_false(rate_valid(&r));
	assert_int_equal(rate_compute(&a, &b, -1, &r), -EINVAL);
	assert_int_equal(rate_compute(&a, &b, NAN, &r), -EINVAL);
	assert_false(rate_valid(&r));
}

static void test_kv_rates(UNIT_STATE)
{
	struct kvlist a = {0}, b = {0};
	struct rate r;
	assert_int_equal(vmstat_parse(LIT("thp_fault_alloc 10\n"
					  "allocstall_dma32 1\n"
					  "allocstall_normal 2\n"
					  "allocstallx 100\n"
					  "compact_stall 9\n"),
				      &a),
			 0);
	assert_int_equal(vmstat_parse(LIT("thp_fault_alloc 30\n"
					  "allocstall_dma32 1\n"
					  "allocstall_normal 6\n"
					  "allocstallx 200\n"
					  "thp_new_counter 4\n"),
				      &b),
			 0);
	assert_int_equal(rate_kv(&a, &b, "thp_fault_alloc", 10.0, &r), 0);
	assert_int_equal(r.state, RATE_OK);
	assert_int_equal(r.delta, 20);
	assert_true(fabs(r.per_s - 2.0) < 1e-9);
	/* compact_stall disappeared */
	assert_int_equal(rate_kv(&a, &b, "compact_stall", 10.0, &r), 0);
	assert_int_equal(r.state, RATE_ABSENT);
	assert_int_equal(rate_kv(&a, &b, "thp_new_counter", 10.0, &r), 0);
	assert_int_equal(r.state, RATE_NEW);
	/* sums: allocstall_* only, not allocstallx */
	struct opt_u64 s = kv_sum_prefix(&a, "allocstall");
	assert_true(s.present);
	assert_int_equal(s.v, 3);
	s = kv_sum_prefix(&b, "allocstall");
	assert_int_equal(s.v, 7);
	assert_false(kv_sum_prefix(&a, "pgscan_direct").present);
	/* kernels before 4.10: one "allocstall" */
	struct kvlist old = {0};
	assert_int_equal(vmstat_parse(LIT("allocstall 42\n"), &old), 0);
	s = kv_sum_prefix(&old, "allocstall");
	assert_true(s.present);
	assert_int_equal(s.v, 42);
	struct opt_u64 o = kv_opt(&a, "thp_fault_alloc");
	assert_true(o.present);
	assert_int_equal(o.v, 10);
	assert_false(kv_opt(&a, "thp_fault").present);
	kvlist_free(&a);
	kvlist_free(&b);
	kvlist_free(&old);
}

static struct proc_sample ps(pid_t pid, const char *comm, uint64_t rss, uint64_t ahp, bool readable)
{
	struct proc_sample p = {
		.pid = pid, .rss_kb = rss, .anon_huge_kb = ahp, .readable = readable};
	snprintf(p.comm, sizeof(p.comm), "%s", comm);
	return p;
}

static const struct proc_change *find(const struct proc_change *c, size_t n, pid_t pid, bool exited)
{
	for (size_t i = 0; i < n; i++)
		if (c[i].pid == pid && c[i].exited == exited)
			return &c[i];
	return NULL;
}

static void test_top_changes(UNIT_STATE)
{
	struct proc_sample old[] = {
		ps(10, "steady", 1000, 0, true),    /* unchanged: left out */
		ps(20, "grower", 4096, 2048, true), /* +8 MiB AHP */
		ps(30, "leaver", 9000, 4096, true), /* exits */
		ps(40, "reused", 500, 0, true),	    /* pid reused by another program */
		ps(50, "hidden", 1000, 0, false),   /* smaps_rollup denied: RSS only */
	};
	struct proc_sample cur[] = {
		ps(10, "steady", 1000, 0, true),     ps(20, "grower", 12288, 10240, true),
		ps(40, "newprog", 700, 0, true),     ps(50, "hidden", 3000, 0, false),
		ps(60, "starter", 2100, 2048, true),
	};
	struct proc_change out[8];
	size_t n = rates_top_changes(old, 5, cur, 5, 8, out);
	assert_int_equal(n, 6); /* all but "steady" (40 counts twice: exited + started) */
	/* largest first: grower (8192), leaver (-9000 RSS), starter (2100), hidden (2000) ... */
	assert_int_equal(out[0].pid, 30);
	assert_true(out[0].exited);
	assert_int_equal(out[0].rss_delta_kb, -9000);
	assert_int_equal(out[0].anon_huge_delta_kb, -4096);
	assert_int_equal(out[1].pid, 20);
	assert_int_equal(out[1].anon_huge_delta_kb, 8192);
	assert_int_equal(out[1].rss_delta_kb, 8192);
	assert_true(out[1].anon_huge_known);
	assert_false(out[1].appeared || out[1].exited);
	assert_int_equal(out[2].pid, 60);
	assert_true(out[2].appeared);
	assert_int_equal(out[2].anon_huge_delta_kb, 2048);
	const struct proc_change *h = find(out, n, 50, false);
	assert_non_null(h);
	assert_false(h->anon_huge_known);
	assert_int_equal(h->rss_delta_kb, 2000);
	const struct proc_change *x = find(out, n, 40, true), *y = find(out, n, 40, false);
	assert_non_null(x);
	assert_non_null(y);
	assert_string_equal(x->comm, "reused");
	assert_string_equal(y->comm, "newprog");
	assert_true(y->appeared);
	assert_int_equal(y->rss_delta_kb, 700);
	assert_null(find(out, n, 10, false));
	/* TOP bounds the list and keeps the largest */
	n = rates_top_changes(old, 5, cur, 5, 2, out);
	assert_int_equal(n, 2);
	assert_int_equal(out[0].pid, 30);
	assert_int_equal(out[1].pid, 20);
	assert_int_equal(rates_top_changes(old, 5, cur, 5, 0, out), 0);
	/* empty inputs */
	assert_int_equal(rates_top_changes(NULL, 0, NULL, 0, 5, out), 0);
	n = rates_top_changes(NULL, 0, cur, 5, 8, out);
	assert_int_equal(n, 5);
}

/* Fill a sample from text, as sample_collect would from files. */
static void mk_sample(struct sample *s, double t, const char *vm, const char *mi, const char *buddy,
		      uint64_t fault64, bool with_64k_stats)
{
	memset(s, 0, sizeof(*s));
	s->host.mono_s = t;
	s->host.wall_s = 1700000000 + t;
	assert_int_equal(vmstat_parse(vm, strlen(vm), &s->host.vmstat), 0);
	s->host.has_vmstat = true;
	assert_int_equal(meminfo_parse(mi, strlen(mi), &s->host.meminfo), 0);
	s->host.has_meminfo = true;
	s->host.has_buddy = buddyinfo_parse(buddy, strlen(buddy), &s->host.buddy) == 0;
	s->host.has_settings = true;
	s->host.thp.present = true;
	s->host.thp.hpage_pmd_size = some(2 << 20);
	s->host.pmd_order = 9;
	static const uint64_t sizes[] = {16, 64, 2048};
	for (int i = 0; i < 3; i++) {
		struct thp_size *sz = &s->host.thp.sizes[s->host.thp.nsizes++];
		sz->size_kb = sizes[i];
		if (sizes[i] == 64 && !with_64k_stats)
			continue;
		sz->has_stats = true;
		uint64_t a = sizes[i] == 64 ? fault64 : 5, f = sizes[i] == 2048 ? t * 10 : 1;
		assert_int_equal(kvlist_add(&sz->stats, "anon_fault_alloc", 16, a), 0);
		assert_int_equal(kvlist_add(&sz->stats, "anon_fault_fallback", 19, f), 0);
	}
}

static const char buddy[] = "Node 0, zone      DMA      0 0 0 0 0 0 0 0 0 1 3\n"
			    "Node 0, zone    DMA32      1 3 0 2 3 2 1 4 4 2 10\n"
			    "Node 0, zone   Normal    297 191 414 244 130 53 61 90 54 35 5\n";

static void test_watch_derive(UNIT_STATE)
{
	static struct sample a, b;
	static struct watch_row row;
	mk_sample(&a, 100.0,
		  "thp_fault_alloc 100\nthp_fault_fallback 10\ncompact_stall 7\n"
		  "allocstall_normal 1\nallocstall_movable 1\npgscan_direct 50\n"
		  "thp_split_pmd 9\n",
		  "AnonHugePages:   4096 kB\n", buddy, 100, true);
	mk_sample(&b, 102.0,
		  "thp_fault_alloc 140\nthp_fault_fallback 10\ncompact_stall 9\n"
		  "allocstall_normal 3\nallocstall_movable 1\npgscan_direct 10\n",
		  "AnonHugePages:   2048 kB\n", buddy, 164, true);
	assert_int_equal(watch_derive(&a, &b, 0, &row), 0);
	assert_true(fabs(row.interval_s - 2.0) < 1e-9);
	assert_int_equal(row.r[WC_FAULT_ALLOC].state, RATE_OK);
	assert_true(fabs(row.r[WC_FAULT_ALLOC].per_s - 20.0) < 1e-9);
	assert_int_equal(row.r[WC_FAULT_FALLBACK].delta, 0);
	assert_int_equal(row.r[WC_COMPACT_STALL].delta, 2);
	assert_true(fabs(row.r[WC_ALLOCSTALL].per_s - 1.0) < 1e-9);
	/* pgscan_direct went down: a reset, counted from zero */
	assert_int_equal(row.r[WC_PGSCAN_DIRECT].state, RATE_RESET);
	assert_int_equal(row.r[WC_PGSCAN_DIRECT].delta, 10);
	/* thp_split_pmd disappeared, thp_collapse_alloc never was: absent */
	assert_int_equal(row.r[WC_SPLIT_PMD].state, RATE_ABSENT);
	assert_int_equal(row.r[WC_COLLAPSE_ALLOC].state, RATE_ABSENT);
	/* only 64kB moved (16kB did not; 2048kB is the PMD size, left out) */
	assert_int_equal(row.nsizes, 1);
	assert_int_equal(row.sizes[0].size_kb, 64);
	assert_true(fabs(row.sizes[0].alloc.per_s - 32.0) < 1e-9);
	assert_int_equal(row.sizes[0].fallback.delta, 0);
	assert_true(row.anon_huge_kb.present);
	assert_int_equal(row.anon_huge_kb.v, 2048);
	assert_true(row.has_anon_huge_delta);
	assert_int_equal(row.anon_huge_delta_kb, -2048);
	/* orders >= 9, all zones but DMA: DMA32 2 + 10*2, Normal 35 + 5*2 */
	assert_true(row.free_pmd_blocks.present);
	assert_int_equal(row.free_pmd_blocks.v, 2 + 20 + 35 + 10);
	assert_int_equal(row.pmd_kb, 2048);
	assert_int_equal(row.ntop, 0);
	sample_free(&a);
	sample_free(&b);

	/* a per-size stats directory that vanished: no rate for that size */
	mk_sample(&a, 1.0, "thp_fault_alloc 1\n", "AnonHugePages: 0 kB\n", buddy, 10, true);
	mk_sample(&b, 2.0, "thp_fault_alloc 1\n", "Foo: 1 kB\n", "", 99, false);
	assert_int_equal(watch_derive(&a, &b, 0, &row), 0);
	assert_int_equal(row.nsizes, 0);
	assert_false(row.anon_huge_kb.present);
	assert_false(row.has_anon_huge_delta);
	assert_false(row.free_pmd_blocks.present);
	/* time must move forward */
	assert_int_equal(watch_derive(&b, &a, 0, &row), -EINVAL);
	assert_int_equal(watch_derive(&a, &a, 0, &row), -EINVAL);
	sample_free(&a);
	sample_free(&b);
}

static void test_statm(UNIT_STATE)
{
	struct proc_statm sm;
	assert_int_equal(proc_statm_parse(LIT("2667 2411 334 1 0 2137 0\n"), &sm), 0);
	assert_int_equal(sm.size, 2667);
	assert_int_equal(sm.resident, 2411);
	assert_int_equal(sm.shared, 334);
	/* kernel thread */
	assert_int_equal(proc_statm_parse(LIT("0 0 0 0 0 0 0\n"), &sm), 0);
	assert_int_equal(sm.size, 0);
	/* three fields are enough; fewer, or garbage, is not */
	assert_int_equal(proc_statm_parse(LIT("1 2 3\n"), &sm), 0);
	assert_int_equal(proc_statm_parse(LIT("1 2\n"), &sm), -EINVAL);
	assert_int_equal(proc_statm_parse(LIT(""), &sm), -EINVAL);
	assert_int_equal(proc_statm_parse(LIT("1 2x 3\n"), &sm), -EINVAL);
	assert_int_equal(proc_statm_parse(LIT("-1 2 3\n"), &sm), -EINVAL);
	assert_int_equal(proc_statm_parse(LIT("99999999999999999999 2 3\n"), &sm), -EINVAL);
	/* the live file */
	size_t len;
	char *text = unit_slurp_ok("/proc/self/statm", &len);
	assert_int_equal(proc_statm_parse(text, len, &sm), 0);
	assert_true(sm.size > 0 && sm.resident > 0 && sm.resident <= sm.size);
	free(text);
}

/* A light snapshot as `status --sample` reads it: vmstat and khugepaged. */
static void snap(struct host_snapshot *h, double mono_s, const char *vmstat, pid_t khp,
		 double cpu_s)
{
	memset(h, 0, sizeof(*h));
	h->mono_s = mono_s;
	assert_int_equal(vmstat_parse(vmstat, strlen(vmstat), &h->vmstat), 0);
	h->has_vmstat = true;
	h->has_khugepaged_cpu = khp > 0;
	h->khugepaged_pid = khp;
	h->khugepaged_cpu_s = cpu_s;
}

static void test_host_recent(UNIT_STATE)
{
	struct host_snapshot a, b;
	struct host_recent rc;
	snap(&a, 100.0,
	     "thp_fault_alloc 1000\nthp_collapse_alloc 7\nallocstall_dma32 1\nallocstall_normal 2\n",
	     38, 12.50);
	snap(&b, 105.0,
	     "thp_fault_alloc 1060\nthp_collapse_alloc 7\nallocstall_dma32 2\nallocstall_normal 5\n",
	     38, 12.75);
	assert_int_equal(host_recent_derive(&a, &b, &rc), 0);
	assert_true(fabs(rc.interval_s - 5.0) < 1e-9);
	/* 0.25 s of CPU over 5 s: 5% of one CPU */
	assert_true(rc.khugepaged_valid);
	assert_true(fabs(rc.khugepaged_cpu_s - 0.25) < 1e-9);
	assert_true(fabs(rc.khugepaged_cpu_ratio - 0.05) < 1e-9);
	assert_int_equal(rc.r[WC_FAULT_ALLOC].delta, 60);
	assert_true(fabs(rc.r[WC_FAULT_ALLOC].per_s - 12.0) < 1e-9);
	assert_int_equal(rc.r[WC_COLLAPSE_ALLOC].state, RATE_OK);
	assert_int_equal(rc.r[WC_COLLAPSE_ALLOC].delta, 0);
	assert_int_equal(rc.r[WC_ALLOCSTALL].delta, 4); /* summed over zones */
	/* a counter this kernel does not print: no rate, not 0 */
	assert_int_equal(rc.r[WC_SPLIT_PMD].state, RATE_ABSENT);

	/* the JSON object carries them; null when not sampled */
	struct host_derived d = {0};
	json_t *j = status_recent_json(&d);
	assert_true(json_is_null(j));
	json_decref(j);
	d.recent = &rc;
	j = status_recent_json(&d);
	assert_true(fabs(json_real_value(json_object_get(j, "khugepaged_cpu_ratio")) - 0.05) <
		    1e-9);
	json_t *fa = json_object_get(json_object_get(j, "counters"), "thp_fault_alloc");
	assert_int_equal(json_integer_value(json_object_get(fa, "delta")), 60);
	assert_true(json_is_null(json_object_get(json_object_get(j, "counters"), "thp_split_pmd")));
	json_decref(j);
	assert_string_equal(status_recent_hint(&d), "");
	d.recent = NULL;
	assert_contains(status_recent_hint(&d), "thpctl status --sample 5");

	/* khugepaged restarted (THP turned off and on): a new pid, no CPU share */
	b.khugepaged_pid = 4242;
	assert_int_equal(host_recent_derive(&a, &b, &rc), 0);
	assert_false(rc.khugepaged_valid);
	assert_int_equal(rc.r[WC_FAULT_ALLOC].delta, 60);
	/* its CPU time went back, or it was not found in one read */
	b.khugepaged_pid = 38;
	b.khugepaged_cpu_s = 12.0;
	assert_int_equal(host_recent_derive(&a, &b, &rc), 0);
	assert_false(rc.khugepaged_valid);
	b.khugepaged_cpu_s = 13.0;
	b.has_khugepaged_cpu = false;
	assert_int_equal(host_recent_derive(&a, &b, &rc), 0);
	assert_false(rc.khugepaged_valid);
	/* no time between the reads */
	b.mono_s = a.mono_s;
	assert_int_equal(host_recent_derive(&a, &b, &rc), -EINVAL);
	kvlist_free(&a.vmstat);
	kvlist_free(&b.vmstat);
}

UNIT_TESTS(test_rate_basic, test_rate_reset_and_wrap, test_rate_absent, test_rate_bad_interval,
	   test_kv_rates, test_top_changes, test_watch_derive, test_statm, test_host_recent)
