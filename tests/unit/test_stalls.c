// SPDX-License-Identifier: MIT
/* Unit tests: src/model/stalls.c (trace_pipe line parser, begin/end pairing, summaries). */
#include "unit.h"

#include "kernel/tracefs.h"
#include "model/stalls.h"
#include "render/stalls.h"

/*
 * Lines captured from trace_pipe of a tracefs instance on the 6.18 guest
 * (clock mono): `echo 1 > /proc/sys/vm/compact_memory` from sh, khugepaged,
 * and MADV_COLLAPSE from a test program "t".
 */
static const char cap_compact_memory[] =
	"              sh-22726   [001] .....  3588.579215: mm_compaction_begin: zone_start=0x1 migrate_pfn=0x1 free_pfn=0xe00 zone_end=0x1000, mode=sync\n"
	"              sh-22726   [001] .....  3588.618546: mm_compaction_end: zone_start=0x1 migrate_pfn=0xe00 free_pfn=0xe00 zone_end=0x1000, mode=sync status=complete\n"
	"              sh-22726   [001] .N...  3588.618563: mm_compaction_begin: zone_start=0x1000 migrate_pfn=0x1000 free_pfn=0xffe00 zone_end=0x100000, mode=sync\n"
	"              sh-22726   [001] .....  3588.621488: mm_compaction_end: zone_start=0x1000 migrate_pfn=0xffe00 free_pfn=0xffe00 zone_end=0x100000, mode=sync status=complete\n"
	"              sh-22726   [001] .N...  3588.621515: mm_compaction_begin: zone_start=0x100000 migrate_pfn=0x100000 free_pfn=0x63fe00 zone_end=0x640000, mode=sync\n"
	"      khugepaged-38      [001] .....  3590.153262: mm_khugepaged_scan_pmd: mm=00000000d38cffb2, scan_pfn=0xffffffffffffffff, referenced=0, none_or_zero=0, status=page_pmd_mapped, unmapped=0\n"
	"      khugepaged-38      [001] .....  3590.156975: mm_khugepaged_scan_pmd: mm=00000000d38cffb2, scan_pfn=0xffffffffffffffff, referenced=0, none_or_zero=0, status=page_pmd_mapped, unmapped=0\n"
	"              sh-22726   [001] .....  3591.550324: mm_compaction_end: zone_start=0x100000 migrate_pfn=0x37bc00 free_pfn=0x37bc92 zone_end=0x640000, mode=sync status=complete\n"
	"               t-22747   [001] ...1.  3593.507808: mm_collapse_huge_page_isolate: scan_pfn=0x37b900, none_or_zero=511, referenced=0, status=succeeded\n"
	"               t-22747   [001] .N...  3593.514641: mm_collapse_huge_page: mm=00000000e82d9558, isolated=1, status=succeeded\n"
	"               t-22747   [001] .N...  3593.514644: mm_khugepaged_scan_pmd: mm=00000000e82d9558, scan_pfn=0x37b900, referenced=0, none_or_zero=511, status=succeeded, unmapped=0\n"
	"               t-22747   [001] .....  3593.514905: mm_khugepaged_scan_pmd: mm=00000000e82d9558, scan_pfn=0xffffffffffffffff, referenced=0, none_or_zero=0, status=pmd_none, unmapped=0\n";

#include "test_stalls_capture.h"

static void test_parse_begin(UNIT_STATE)
{
	struct trace_line l;
	assert_int_equal(trace_line_parse(LIT("              sh-22726   [001] .....  3588.579215: "
					      "mm_compaction_begin: zone_start=0x1 migrate_pfn=0x1 "
					      "free_pfn=0xe00 zone_end=0x1000, mode=sync\n"),
					  &l),
			 0);
	assert_int_equal(l.ev, TEV_COMPACT_BEGIN);
	assert_string_equal(l.comm, "sh");
	assert_int_equal(l.pid, 22726);
	assert_int_equal(l.tgid, -1);
	assert_int_equal(l.cpu, 1);
	assert_true(l.ts_ns == 3588579215000ull);
	assert_string_equal(l.event, "mm_compaction_begin");
	assert_int_equal(strncmp(l.fields, "zone_start=0x1 ", 15), 0);
	assert_int_equal(l.fields_len, strlen("zone_start=0x1 migrate_pfn=0x1 free_pfn=0xe00 "
					      "zone_end=0x1000, mode=sync"));
	char v[32];
	assert_int_equal(trace_field(l.fields, l.fields_len, "mode", v, sizeof(v)), 0);
	assert_string_equal(v, "sync");
	assert_int_equal(trace_field(l.fields, l.fields_len, "zone_end", v, sizeof(v)), 0);
	assert_string_equal(v, "0x1000");
	assert_int_equal(trace_field(l.fields, l.fields_len, "status", v, sizeof(v)), -ENOENT);
}

static void test_parse_end_and_collapse(UNIT_STATE)
{
	struct trace_line l;
	char v[32];
	assert_int_equal(
		trace_line_parse(LIT("              sh-22726   [001] .....  3591.550324: "
				     "mm_compaction_end: zone_start=0x100000 "
				     "migrate_pfn=0x37bc00 free_pfn=0x37bc92 zone_end=0x640000, "
				     "mode=sync status=complete"),
				 &l),
		0);
	assert_int_equal(l.ev, TEV_COMPACT_END);
	assert_int_equal(trace_field(l.fields, l.fields_len, "status", v, sizeof(v)), 0);
	assert_string_equal(v, "complete");

	assert_int_equal(
		trace_line_parse(LIT("      khugepaged-38      [001] .....  3590.153262: "
				     "mm_khugepaged_scan_pmd: mm=00000000d38cffb2, "
				     "scan_pfn=0xffffffffffffffff, referenced=0, "
				     "none_or_zero=0, status=page_pmd_mapped, unmapped=0\n"),
				 &l),
		0);
	assert_int_equal(l.ev, TEV_SCAN_PMD);
	assert_string_equal(l.comm, "khugepaged");
	assert_int_equal(l.pid, 38);
	assert_int_equal(trace_field(l.fields, l.fields_len, "status", v, sizeof(v)), 0);
	assert_string_equal(v, "page_pmd_mapped");
	long n;
	assert_int_equal(trace_field_long(l.fields, l.fields_len, "unmapped", &n), 0);
	assert_int_equal(n, 0);
	/* a value that is not a number */
	assert_int_equal(trace_field_long(l.fields, l.fields_len, "status", &n), -EINVAL);

	/* flags with a preempt depth digit ("...1.") are not a timestamp */
	assert_int_equal(trace_line_parse(LIT("               t-22747   [001] ...1.  3593.507808: "
					      "mm_collapse_huge_page_isolate: scan_pfn=0x37b900, "
					      "none_or_zero=511, referenced=0, status=succeeded"),
					  &l),
			 0);
	assert_int_equal(l.ev, TEV_COLLAPSE_ISOLATE);
	assert_true(l.ts_ns == 3593507808000ull);
}

static void test_parse_odd_comms(UNIT_STATE)
{
	struct trace_line l;
	/* comm with a dash and a blank: the pid is after the last dash */
	assert_int_equal(trace_line_parse(LIT("    thp-helper x-1234    [000] d..1.    12.000001: "
					      "mm_vmscan_direct_reclaim_end: nr_reclaimed=7"),
					  &l),
			 0);
	assert_string_equal(l.comm, "thp-helper x");
	assert_int_equal(l.pid, 1234);
	assert_int_equal(l.ev, TEV_RECLAIM_END);
	assert_true(l.ts_ns == 12000001000ull);
	/* a comm holding "[1]" does not pass for the cpu column */
	assert_int_equal(
		trace_line_parse(LIT("  a [1] b-77     [003] .....   5.5: mm_compaction_begin: "
				     "mode=async"),
				 &l),
		0);
	assert_string_equal(l.comm, "a [1] b");
	assert_int_equal(l.pid, 77);
	assert_int_equal(l.cpu, 3);
	assert_true(l.ts_ns == 5500000000ull);
	/* the kernel had no saved name */
	assert_int_equal(trace_line_parse(LIT("           <...>-99      [000] .....   1.000002: "
					      "tracing_mark_write: hello"),
					  &l),
			 0);
	assert_string_equal(l.comm, "<...>");
	assert_int_equal(l.pid, 99);
	assert_int_equal(l.ev, TEV_OTHER);
	assert_string_equal(l.event, "tracing_mark_write");
}

/* Columns printed by options/record-tgid ("(%7d) " or "(-------) ", trace_print_context). */
static void test_parse_tgid_and_no_flags(UNIT_STATE)
{
	struct trace_line l;
	assert_int_equal(
		trace_line_parse(LIT("           java-4243    (   4200) [001] .....   100.250000: "
				     "mm_compaction_begin: zone_start=0x1 migrate_pfn=0x1 "
				     "free_pfn=0xe00 zone_end=0x1000, mode=async"),
				 &l),
		0);
	assert_int_equal(l.pid, 4243);
	assert_int_equal(l.tgid, 4200);
	assert_string_equal(l.comm, "java");
	assert_int_equal(
		trace_line_parse(LIT("          <idle>-0       (-------) [001] d..2.   7.000000: "
				     "mm_compaction_end: status=skipped"),
				 &l),
		0);
	assert_int_equal(l.pid, 0);
	assert_int_equal(l.tgid, -1);
	/* options/irq-info off: no flags column */
	assert_int_equal(trace_line_parse(LIT("              sh-5       [002]   42.000010: "
					      "mm_compaction_end: mode=sync status=success"),
					  &l),
			 0);
	assert_int_equal(l.pid, 5);
	assert_int_equal(l.cpu, 2);
	assert_true(l.ts_ns == 42000010000ull);
	assert_int_equal(l.ev, TEV_COMPACT_END);
}

static void test_parse_lost_and_garbage(UNIT_STATE)
{
	struct trace_line l;
	assert_int_equal(trace_line_parse(LIT("CPU:1 [LOST 123 EVENTS]\n"), &l), 0);
	assert_int_equal(l.ev, TEV_LOST);
	assert_true(l.lost == 123);
	assert_int_equal(l.lost_cpu, 1);
	assert_int_equal(trace_line_parse(LIT("CPU:1 [LOST x EVENTS]"), &l), -EINVAL);
	assert_int_equal(trace_line_parse(LIT("# tracer: nop"), &l), -EINVAL);
	assert_int_equal(trace_line_parse(LIT(""), &l), -EINVAL);
	assert_int_equal(trace_line_parse(LIT("\n"), &l), -EINVAL);
	assert_int_equal(trace_line_parse(LIT("hello world"), &l), -EINVAL);
	assert_int_equal(trace_line_parse(LIT("sh-1 [000] ..... notatime: x: y"), &l), -EINVAL);
	assert_int_equal(trace_line_parse(LIT("sh-x [000] ..... 1.0: mm_compaction_begin: y"), &l),
			 -EINVAL);
	assert_int_equal(trace_line_parse(LIT("sh-1 [000] ..... 1.0:"), &l), -EINVAL);
	/* truncated mid-line: no event name */
	assert_int_equal(trace_line_parse(LIT("              sh-22726   [001] .....  3588.5"), &l),
			 -EINVAL);
}

static void test_field_boundaries(UNIT_STATE)
{
	char v[16];
	/* the LAST key=, at a word boundary: a file name cannot spoof the result */
	static const char f[] = "mm=0, filename=a result=failed, nr=1, result=succeeded";
	assert_int_equal(trace_field(f, strlen(f), "result", v, sizeof(v)), 0);
	assert_string_equal(v, "succeeded");
	static const char g[] = "xstatus=1 status=2,nostatus=3";
	assert_int_equal(trace_field(g, strlen(g), "status", v, sizeof(v)), 0);
	assert_string_equal(v, "2");
	assert_int_equal(trace_field(g, strlen(g), "sta", v, sizeof(v)), -ENOENT);
	/* truncated to the buffer */
	static const char h[] = "status=not_suitable_zone";
	char small[5];
	assert_int_equal(trace_field(h, strlen(h), "status", small, sizeof(small)), 0);
	assert_string_equal(small, "not_");
	/* key at the very end, empty value */
	assert_int_equal(trace_field(LIT("a=1 status="), "status", v, sizeof(v)), 0);
	assert_string_equal(v, "");
}

/* Feed lines built from a template: "comm-pid [000] ..... ts: event: fields". */
static void feed(struct stalls *s, const char *comm, int pid, double ts, const char *ev,
		 const char *fields)
{
	char line[512];
	int n = snprintf(line, sizeof(line), "%16s-%-7d [000] ..... %.6f: %s: %s\n", comm, pid, ts,
			 ev, fields);
	stalls_feed(s, line, (size_t)n);
}

static const struct stall_proc *proc_of(const struct stalls *s, int tgid)
{
	for (size_t i = 0; i < s->nprocs; i++)
		if (s->procs[i].tgid == tgid)
			return &s->procs[i];
	return NULL;
}

static void test_pair_real_capture(UNIT_STATE)
{
	struct stalls s;
	stalls_init(&s);
	stalls_feed(&s, cap_compact_memory, strlen(cap_compact_memory));
	stalls_finish(&s, NULL, NULL);
	assert_int_equal(s.unparsed, 0);
	assert_true(s.events[TEV_COMPACT_BEGIN] == 3 && s.events[TEV_COMPACT_END] == 3);
	assert_int_equal(s.nprocs, 1);
	const struct stall_proc *p = proc_of(&s, 22726);
	assert_non_null(p);
	assert_string_equal(p->comm, "sh");
	const struct stall_stats *c = &p->k[STALL_COMPACTION];
	assert_true(c->n == 3);
	/* 39331 + 2925 + 2928809 us */
	assert_true(c->total_ns == (39331ull + 2925 + 2928809) * 1000);
	assert_true(c->max_ns == 2928809000ull);
	assert_true(c->p50_ns == 39331000ull);
	assert_true(c->p99_ns == 2928809000ull);
	assert_int_equal(c->nwhy, 1);
	assert_string_equal(c->why[0].name, "complete");
	assert_true(c->sync == 3 && c->async == 0);
	assert_true(c->order_unknown == 3); /* compact_memory: no try_to_compact_pages */
	assert_true(s.hist[STALL_COMPACTION][stall_hist_bucket(2925000)] >= 1);
	/* collapse: khugepaged and t, by status */
	uint64_t kh = 0, t_ok = 0, t_none = 0;
	for (size_t i = 0; i < s.ncollapse; i++) {
		const struct collapse_count *cc = &s.collapse[i];
		if (cc->tgid == 38 && cc->ev == TEV_SCAN_PMD &&
		    strcmp(cc->status, "page_pmd_mapped") == 0)
			kh += cc->n;
		if (cc->tgid == 22747 && strcmp(cc->status, "succeeded") == 0)
			t_ok += cc->n;
		if (cc->tgid == 22747 && strcmp(cc->status, "pmd_none") == 0)
			t_none += cc->n;
	}
	assert_true(kh == 2 && t_ok == 3 && t_none == 1);
	stalls_free(&s);
}

static void test_pair_unmatched(UNIT_STATE)
{
	struct stalls s;
	stalls_init(&s);
	/* an end whose begin preceded the trace, then a begin that never ends */
	feed(&s, "app", 10, 1.0, "mm_compaction_end", "mode=async status=success");
	feed(&s, "app", 10, 2.0, "mm_compaction_begin", "mode=async");
	feed(&s, "app", 11, 2.5, "mm_vmscan_direct_reclaim_end", "nr_reclaimed=5");
	stalls_finish(&s, NULL, NULL);
	assert_true(s.unmatched_end[STALL_COMPACTION] == 1);
	assert_true(s.unmatched_end[STALL_RECLAIM] == 1);
	const struct stall_proc *p = proc_of(&s, 10);
	assert_non_null(p);
	assert_true(p->k[STALL_COMPACTION].n == 0);
	assert_true(p->k[STALL_COMPACTION].in_progress == 1);
	assert_true(p->k[STALL_COMPACTION].nwhy ==
		    0); /* the unmatched end's status is not counted */
	assert_true(s.all[STALL_COMPACTION].in_progress == 1);
	assert_true(s.all[STALL_RECLAIM].n == 0);
	stalls_free(&s);
}

static void test_pair_nested(UNIT_STATE)
{
	struct stalls s;
	stalls_init(&s);
	/* begin, begin, end, end: LIFO, the inner pair first */
	feed(&s, "app", 20, 1.000000, "mm_compaction_begin", "mode=async");
	feed(&s, "app", 20, 1.000100, "mm_compaction_begin", "mode=sync");
	feed(&s, "app", 20, 1.000300, "mm_compaction_end", "mode=sync status=contended");
	feed(&s, "app", 20, 1.001000, "mm_compaction_end", "mode=async status=deferred");
	/* reclaim nested around nothing, compaction and reclaim kept apart */
	feed(&s, "app", 20, 2.0, "mm_vmscan_direct_reclaim_begin",
	     "order=9 gfp_flags=GFP_TRANSHUGE");
	feed(&s, "app", 20, 2.0005, "mm_compaction_end", "mode=sync status=success");
	feed(&s, "app", 20, 2.002, "mm_vmscan_direct_reclaim_end", "nr_reclaimed=32");
	stalls_finish(&s, NULL, NULL);
	const struct stall_proc *p = proc_of(&s, 20);
	assert_non_null(p);
	const struct stall_stats *c = &p->k[STALL_COMPACTION];
	assert_true(c->n == 2);
	assert_true(c->total_ns == 200000 + 1000000);
	assert_true(c->max_ns == 1000000);
	assert_true(s.unmatched_end[STALL_COMPACTION] == 1);
	assert_true(c->sync == 1 && c->async == 1);
	assert_int_equal(c->nwhy, 2);
	const struct stall_stats *r = &p->k[STALL_RECLAIM];
	assert_true(r->n == 1 && r->total_ns == 2000000 && r->reclaimed == 32);
	assert_true(r->order_n[9] == 1);
	stalls_free(&s);
}

static void test_pair_interleaved_tasks(UNIT_STATE)
{
	struct stalls s;
	stalls_init(&s);
	feed(&s, "a", 100, 1.0, "mm_compaction_try_to_compact_pages",
	     "order=9 gfp_mask=GFP_TRANSHUGE priority=2");
	feed(&s, "a", 100, 1.000001, "mm_compaction_begin", "mode=async");
	feed(&s, "b", 200, 1.000002, "mm_compaction_begin", "mode=async");
	feed(&s, "a", 100, 1.000010, "mm_compaction_end", "mode=async status=success");
	feed(&s, "c", 300, 1.000015, "mm_compaction_end", "mode=async status=success");
	feed(&s, "b", 200, 1.000500, "mm_compaction_end", "mode=async status=skipped");
	stalls_finish(&s, NULL, NULL);
	assert_true(s.unmatched_end[STALL_COMPACTION] == 1); /* c's */
	const struct stall_proc *a = proc_of(&s, 100), *b = proc_of(&s, 200);
	assert_non_null(a);
	assert_non_null(b);
	assert_true(a->k[STALL_COMPACTION].n == 1 && a->k[STALL_COMPACTION].total_ns == 9000);
	assert_true(a->k[STALL_COMPACTION].order_n[9] == 1);
	assert_string_equal(a->k[STALL_COMPACTION].why[0].name, "success");
	assert_true(b->k[STALL_COMPACTION].n == 1 && b->k[STALL_COMPACTION].total_ns == 498000);
	assert_true(b->k[STALL_COMPACTION].order_unknown == 1);
	assert_string_equal(b->k[STALL_COMPACTION].why[0].name, "skipped");
	/* sorted by total stall time: b first */
	assert_int_equal(s.procs[0].tgid, 200);
	assert_true(s.all[STALL_COMPACTION].n == 2);
	stalls_free(&s);
}

/* Threads 501 and 502 belong to process 500. */
static bool resolve_threads(void *ctx, int pid, int *tgid, char *name, size_t n)
{
	(void)ctx;
	if (pid != 501 && pid != 502 && pid != 500)
		return false;
	*tgid = 500;
	snprintf(name, n, "%s", "server");
	return true;
}

static void test_group_threads_percentiles(UNIT_STATE)
{
	struct stalls s;
	stalls_init(&s);
	/* 100 stalls of 1..100 us, alternately on two threads */
	for (int i = 1; i <= 100; i++) {
		int pid = i % 2 ? 501 : 502;
		double t = i * 1.0;
		feed(&s, "worker", pid, t, "mm_compaction_begin", "mode=async");
		feed(&s, "worker", pid, t + i * 1e-6, "mm_compaction_end",
		     "mode=async status=success");
	}
	feed(&s, "khugepaged", 38, 200.0, "mm_collapse_huge_page",
	     "mm=0, isolated=1, status=succeeded");
	feed(&s, "worker", 501, 201.0, "mm_collapse_huge_page",
	     "mm=0, isolated=1, status=succeeded");
	feed(&s, "worker", 502, 202.0, "mm_collapse_huge_page",
	     "mm=0, isolated=1, status=succeeded");
	stalls_finish(&s, resolve_threads, NULL);
	assert_int_equal(s.nprocs, 1);
	const struct stall_proc *p = proc_of(&s, 500);
	assert_non_null(p);
	assert_string_equal(p->comm, "server");
	const struct stall_stats *c = &p->k[STALL_COMPACTION];
	assert_true(c->n == 100);
	assert_true(c->total_ns == 5050 * 1000ull);
	assert_true(c->max_ns == 100000);
	/* nearest rank: p50 = 50 us, p99 = 99 us */
	assert_true(c->p50_ns == 50000);
	assert_true(c->p99_ns == 99000);
	assert_true(c->why[0].n == 100);
	/* collapse: the two threads merged into one row, khugepaged its own */
	int rows500 = 0;
	for (size_t i = 0; i < s.ncollapse; i++)
		if (s.collapse[i].tgid == 500) {
			rows500++;
			assert_true(s.collapse[i].n == 2);
			assert_string_equal(s.collapse[i].comm, "server");
		}
	assert_int_equal(rows500, 1);
	stalls_free(&s);
}

static void test_hist_buckets(UNIT_STATE)
{
	assert_int_equal(stall_hist_bucket(0), 0);
	assert_int_equal(stall_hist_bucket(999), 0);
	assert_int_equal(stall_hist_bucket(1000), 1);
	assert_int_equal(stall_hist_bucket(1999), 1);
	assert_int_equal(stall_hist_bucket(2000), 2);
	assert_int_equal(stall_hist_bucket(1023999), 10);
	assert_int_equal(stall_hist_bucket(1024000), 11);
	assert_int_equal(stall_hist_bucket(UINT64_MAX), STALL_HIST_BUCKETS - 1);
	assert_true(stall_hist_lo_us(0) == 0 && stall_hist_lo_us(1) == 1);
	assert_true(stall_hist_lo_us(11) == 1024);
	/* every latency falls in [lo, next lo) */
	for (uint64_t us = 0; us < 5000; us += 7) {
		int b = stall_hist_bucket(us * 1000);
		assert_true(stall_hist_lo_us(b) <= us && us < stall_hist_lo_us(b + 1));
	}
}

static void test_lost_and_stream(UNIT_STATE)
{
	struct stalls s;
	stalls_init(&s);
	static const char text[] =
		"CPU:0 [LOST 5 EVENTS]\n"
		"garbage line\n"
		"\n"
		"              sh-1   [000] .....  1.000000: mm_compaction_begin: mode=sync\n"
		"              sh-1   [000] .....  1.000004: mm_compaction_end: mode=sync "
		"status=success"; /* no final newline */
	stalls_feed(&s, text, strlen(text));
	stalls_finish(&s, NULL, NULL);
	assert_true(s.lost == 5);
	assert_true(s.unparsed == 1);
	assert_true(s.all[STALL_COMPACTION].n == 1);
	assert_true(s.all[STALL_COMPACTION].total_ns == 4000);
	/* finish is once; adding after it changes nothing */
	feed(&s, "sh", 1, 2.0, "mm_compaction_begin", "mode=sync");
	assert_true(s.events[TEV_COMPACT_BEGIN] == 1);
	stalls_free(&s);
}

static void test_depth_limit(UNIT_STATE)
{
	struct stalls s;
	stalls_init(&s);
	for (int i = 0; i < STALL_DEPTH + 3; i++)
		feed(&s, "deep", 7, 1.0 + i * 1e-6, "mm_compaction_begin", "mode=sync");
	for (int i = 0; i < STALL_DEPTH + 3; i++)
		feed(&s, "deep", 7, 2.0 + i * 1e-6, "mm_compaction_end",
		     "mode=sync status=success");
	stalls_finish(&s, NULL, NULL);
	assert_true(s.dropped_deep[STALL_COMPACTION] == 3);
	assert_true(s.all[STALL_COMPACTION].n == STALL_DEPTH);
	assert_true(s.unmatched_end[STALL_COMPACTION] == 3);
	stalls_free(&s);
}

static void test_many_tasks(UNIT_STATE)
{
	struct stalls s;
	stalls_init(&s);
	/* enough tasks to grow the task table and its hash several times */
	for (int pid = 1; pid <= 3000; pid++)
		feed(&s, "t", pid, 1.0, "mm_vmscan_direct_reclaim_begin",
		     "order=0 gfp_flags=GFP_KERNEL");
	for (int pid = 3000; pid >= 1; pid--)
		feed(&s, "t", pid, 1.5, "mm_vmscan_direct_reclaim_end", "nr_reclaimed=1");
	stalls_finish(&s, NULL, NULL);
	assert_int_equal(s.nprocs, 3000);
	assert_true(s.all[STALL_RECLAIM].n == 3000);
	assert_true(s.all[STALL_RECLAIM].reclaimed == 3000);
	assert_true(s.all[STALL_RECLAIM].order_n[0] == 3000);
	assert_true(s.unmatched_end[STALL_RECLAIM] == 0);
	stalls_free(&s);
}

static void test_real_fragmenter_capture(UNIT_STATE)
{
	struct stalls s;
	stalls_init(&s);
	stalls_feed(&s, cap_fragmenter, strlen(cap_fragmenter));
	stalls_finish(&s, NULL, NULL);
	assert_int_equal(s.unparsed, 0);
	assert_true(s.events[TEV_COMPACT_TRY] == 52);
	assert_true(s.events[TEV_COMPACT_BEGIN] == 16 && s.events[TEV_RECLAIM_BEGIN] == 13);
	assert_true(s.unmatched_end[STALL_COMPACTION] == 0 && s.unmatched_end[STALL_RECLAIM] == 0);
	const struct stall_proc *p = proc_of(&s, 11219);
	assert_non_null(p);
	assert_string_equal(p->comm, "thpctl");
	/* 16 direct compactions of a THP fault (one zone each), 15 async and 1 sync */
	const struct stall_stats *c = &p->k[STALL_COMPACTION];
	assert_true(c->n == 16);
	assert_true(c->total_ns == 9669000);
	assert_true(c->max_ns == 1145000);
	assert_true(c->p50_ns == 357000);
	assert_true(c->p99_ns == 1145000);
	assert_true(c->order_n[9] == 16 && c->order_unknown == 0);
	assert_true(c->async == 15 && c->sync == 1);
	assert_int_equal(c->nwhy, 1);
	assert_string_equal(c->why[0].name, "success");
	assert_true(c->why[0].n == 16);
	assert_true(c->in_progress == 0);
	/* 13 direct reclaims for order 9 (compaction was skipped right before) */
	const struct stall_stats *r = &p->k[STALL_RECLAIM];
	assert_true(r->n == 13);
	assert_true(r->total_ns == 1560000);
	assert_true(r->max_ns == 315000);
	assert_true(r->p50_ns == 73000);
	assert_true(r->p99_ns == 315000);
	assert_true(r->reclaimed == 389);
	assert_true(r->order_n[9] == 13);
	/* khugepaged: 8 collapses (isolate, collapse, scan_pmd each), 16 PMDs already huge */
	uint64_t ok = 0, mapped = 0;
	for (size_t i = 0; i < s.ncollapse; i++) {
		if (s.collapse[i].tgid != 38)
			continue;
		if (strcmp(s.collapse[i].status, "succeeded") == 0)
			ok += s.collapse[i].n;
		if (strcmp(s.collapse[i].status, "page_pmd_mapped") == 0)
			mapped += s.collapse[i].n;
	}
	assert_true(ok == 24 && mapped == 16);
	/* the process table: the lab first (most stall time), khugepaged has none */
	assert_int_equal(s.procs[0].tgid, 11219);
	stalls_free(&s);
}

static void test_tracefs_mounts(UNIT_STATE)
{
	static const char none[] = "proc /proc proc rw 0 0\nsysfs /sys sysfs rw 0 0\n";
	assert_null(tracefs_find_mount(none, strlen(none)));
	static const char both[] =
		"debugfs /sys/kernel/debug debugfs rw 0 0\n"
		"tracefs /sys/kernel/debug/tracing tracefs rw,relatime 0 0\n"
		"tracefs /sys/kernel/tracing tracefs rw,nosuid,nodev,noexec,relatime 0 0\n";
	assert_string_equal(tracefs_find_mount(both, strlen(both)), "sys/kernel/tracing");
	static const char dbg[] = "nodev /sys/kernel/debug/tracing tracefs rw 0 0";
	assert_string_equal(tracefs_find_mount(dbg, strlen(dbg)), "sys/kernel/debug/tracing");
	/* elsewhere, or another fs type at the place */
	static const char other[] = "tracefs /mnt/t tracefs rw 0 0\n"
				    "tmpfs /sys/kernel/tracing tmpfs rw 0 0\n"
				    "tracefs /sys/kernel/tracingX tracefs rw 0 0\n";
	assert_null(tracefs_find_mount(other, strlen(other)));
	assert_true(tracefs_instance_name_ok("thpctl-123"));
	assert_false(tracefs_instance_name_ok("thpctl-"));
	assert_false(tracefs_instance_name_ok("thpctl-1/../x"));
	assert_false(tracefs_instance_name_ok("other-1"));
}

/* The overhead line of TEXT rendered from a report on the capture with RECORD_NS and NOISE. */
static char *overhead_text(double record_ns, bool noise)
{
	struct stalls s;
	stalls_init(&s);
	stalls_feed(&s, LIT(cap_compact_memory));
	stalls_finish(&s, NULL, NULL);
	struct trace_report r = {
		.s = &s, .elapsed_s = 10, .record_ns = record_ns, .record_noise = noise};
	struct unit_mem m;
	stalls_render_text(unit_mem_open(&m), &r, false);
	char *text = unit_mem_text(&m);
	stalls_free(&s);
	char *oh = strstr(text, "Tracing overhead");
	assert_non_null(oh);
	char *nl = strchr(oh, '\n');
	if (nl)
		*nl = '\0';
	char *out = strdup(oh);
	free(text);
	return out;
}

/* Lost events and no stall seen: inconclusive, never "no task entered"; the JSON says
 * incomplete; begins too deep to time and unread lines are said. */
static void test_lost_events_make_it_inconclusive(UNIT_STATE)
{
	struct stalls s;
	stalls_init(&s);
	static const char text[] = "CPU:0 [LOST 5000 EVENTS]\n"
				   "garbage line\n"
				   "      khugepaged-40  [000] .....  1.000000: "
				   "mm_khugepaged_scan_pmd: mm=0x1 pfn=0x2\n";
	stalls_feed(&s, text, strlen(text));
	stalls_finish(&s, NULL, NULL);
	struct trace_report r = {.s = &s, .elapsed_s = 1, .record_ns = -1};
	struct unit_mem m;
	stalls_render_text(unit_mem_open(&m), &r, false);
	char *t = unit_mem_text(&m);
	assert_contains(t, "inconclusive: no stall seen, but 5000 event(s) were lost");
	assert_null(strstr(t, "no task entered"));
	assert_contains(t, "1 trace line(s) that were not events left out");
	free(t);
	json_t *j = stalls_render_json(&r);
	assert_true(json_is_true(json_object_get(j, "incomplete")));
	json_decref(j);
	stalls_free(&s);
	/* begins nested past STALL_DEPTH: said, and the JSON incomplete */
	stalls_init(&s);
	for (int i = 0; i < STALL_DEPTH + 2; i++)
		feed(&s, "deep", 7, 1.0 + i * 1e-6, "mm_compaction_begin", "mode=sync");
	for (int i = 0; i < STALL_DEPTH + 2; i++)
		feed(&s, "deep", 7, 2.0 + i * 1e-6, "mm_compaction_end",
		     "mode=sync status=success");
	stalls_finish(&s, NULL, NULL);
	r.s = &s;
	stalls_render_text(unit_mem_open(&m), &r, false);
	t = unit_mem_text(&m);
	assert_contains(t, "2 begin event(s) nested more than 8 deep in one task were not timed");
	free(t);
	j = stalls_render_json(&r);
	assert_true(json_is_true(json_object_get(j, "incomplete")));
	json_decref(j);
	stalls_free(&s);
}

static void test_overhead_calibration_below_noise_is_dash(UNIT_STATE)
{
	char *t = overhead_text(-1, true);
	assert_contains(
		t,
		"in the traced tasks - per event (trace_marker calibration came out below its own noise)");
	assert_null(strstr(t, "0.00 us per event"));
	free(t);
	t = overhead_text(1500, false);
	assert_contains(t, "in the traced tasks ~1.50 us per event (trace_marker calibration)");
	free(t);
	t = overhead_text(-1, false); /* not calibrated at all: no claim */
	assert_null(strstr(t, "traced tasks"));
	free(t);
}

UNIT_TESTS(test_parse_begin, test_parse_end_and_collapse, test_parse_odd_comms,
	   test_parse_tgid_and_no_flags, test_parse_lost_and_garbage, test_field_boundaries,
	   test_pair_real_capture, test_pair_unmatched, test_pair_nested,
	   test_pair_interleaved_tasks, test_group_threads_percentiles, test_hist_buckets,
	   test_lost_and_stream, test_lost_events_make_it_inconclusive, test_depth_limit,
	   test_many_tasks, test_real_fragmenter_capture, test_tracefs_mounts,
	   test_overhead_calibration_below_noise_is_dash)
