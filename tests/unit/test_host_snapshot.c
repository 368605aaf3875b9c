// SPDX-License-Identifier: MIT
/*
 * The one host collector (kernel/host_snapshot.h) over recorded trees:
 * what `status` reads and what `watch`/`exporter` sample are the same numbers.
 */
#include "unit.h"

#include "kernel/host_snapshot.h"
#include "kernel/sample.h"
#include "model/host.h"

static struct sysroot open_fixture(const char *name)
{
	char dir[256];
	snprintf(dir, sizeof(dir), "tests/fixtures/%s", name);
	struct sysroot sr;
	assert_int_equal(sysroot_open(&sr, dir), 0);
	return sr;
}

/* The host snapshot of the recorded tree SR (opened with open_fixture), malloc'd. */
static struct host_snapshot *read_snapshot(struct sysroot *sr)
{
	struct host_snapshot *h = calloc(1, sizeof(*h));
	assert_non_null(h);
	assert_int_equal(host_snapshot_read(sr, h), 0);
	return h;
}

/* Free what read_snapshot and open_fixture gave. */
static void close_snapshot(struct host_snapshot *h, struct sysroot *sr)
{
	host_snapshot_free(h);
	free(h);
	sysroot_close(sr);
}

static void a_recorded_tree_gives_counters_settings_and_khugepaged(UNIT_STATE)
{
	struct sysroot sr = open_fixture("linux-6.18-x86");
	struct host_snapshot *h = read_snapshot(&sr);
	assert_true(h->has_vmstat && h->has_meminfo && h->has_buddy && h->has_settings);
	assert_int_equal(h->nmissing, 0);
	assert_int_equal(h->pmd_order, 9);
	assert_int_equal(h->feat.page_size, 4096);
	assert_true(h->has_khugepaged_cpu);
	assert_true(h->khugepaged_cpu_s == 0.0);
	assert_true(h->uptime_s > 966.0 && h->uptime_s < 966.1);
	struct host_derived d;
	host_derive(h, &d);
	assert_true(d.khugepaged_cpu.valid);
	uint64_t blocks;
	assert_true(host_pmd_blocks(h, &blocks));
	assert_int_equal(blocks, d.free_pmd_blocks);
	close_snapshot(h, &sr);
}

static void a_malformed_tree_lists_its_bad_files_in_order(UNIT_STATE)
{
	struct sysroot sr = open_fixture("malformed");
	struct host_snapshot *h = read_snapshot(&sr);
	assert_int_equal(h->nmissing, 3);
	assert_string_equal(h->missing[0], "proc/vmstat (malformed or truncated lines)");
	assert_string_equal(h->missing[1], "proc/buddyinfo (malformed lines)");
	assert_string_equal(h->missing[2], "transparent_hugepage (malformed files)");
	close_snapshot(h, &sr);
}

static void the_sampler_reads_what_status_reads(UNIT_STATE)
{
	static const char *const trees[] = {"linux-6.18-x86", "arm64-64k", "linux-4.14-x86",
					    "malformed"};
	for (size_t t = 0; t < UNIT_LEN(trees); t++) {
		struct sysroot sr = open_fixture(trees[t]);
		struct host_snapshot *h = read_snapshot(&sr);
		struct sample *s = calloc(1, sizeof(*s));
		assert_true(h && s);
		struct sampler smp;
		sampler_init(&smp, &sr, h->feat.page_size,
			     SAMPLE_SETTINGS | SAMPLE_HUGETLB | SAMPLE_KHUGEPAGED);
		/* twice: the second sample reuses the first one's memory */
		for (int round = 0; round < 2; round++) {
			assert_int_equal(sample_collect(&smp, s), 0);
			assert_int_equal(s->host.vmstat.n, h->vmstat.n);
			for (size_t i = 0; i < h->vmstat.n; i++)
				assert_true(s->host.vmstat.items[i].value ==
					    h->vmstat.items[i].value);
			assert_int_equal(s->host.meminfo.n, h->meminfo.n);
			assert_int_equal(s->host.pmd_order, h->pmd_order);
			assert_int_equal(s->host.thp.nsizes, h->thp.nsizes);
			assert_int_equal(s->host.hugetlb.npools, h->hugetlb.npools);
			assert_int_equal(s->host.has_khugepaged_cpu, h->has_khugepaged_cpu);
			assert_true(s->host.khugepaged_cpu_s == h->khugepaged_cpu_s);
			assert_int_equal(s->host.nmissing, h->nmissing);
		}
		/* the reader keeps the pid it found: [khugepaged] is pid 38 in every tree */
		assert_int_equal(smp.host.khugepaged, 38);
		sample_free(s);
		sampler_free(&smp);
		free(s);
		close_snapshot(h, &sr);
	}
}

static void without_uptime_khugepaged_cpu_is_no_ratio(UNIT_STATE)
{
	struct host_snapshot h = {.has_khugepaged_cpu = true, .khugepaged_cpu_s = 5};
	struct host_derived d;
	host_derive(&h, &d);
	assert_false(d.khugepaged_cpu.valid);
	h.uptime_s = 100;
	host_derive(&h, &d);
	assert_true(d.khugepaged_cpu.valid);
	assert_true(d.khugepaged_cpu.value == 0.05);
}

/* thp_fault_alloc + thp_fault_fallback past 2^64: unknown, not "200.0% (2^64-1 of 2^63-1)" */
static void a_success_ratio_whose_sum_wraps_is_unknown(UNIT_STATE)
{
	struct host_snapshot h = {0};
	assert_int_equal(vmstat_parse(LIT("thp_fault_alloc 18446744073709551615\n"
					  "thp_fault_fallback 9223372036854775808\n"
					  "thp_collapse_alloc 458\nthp_collapse_alloc_failed 0\n"),
				      &h.vmstat),
			 0);
	struct host_derived d;
	host_derive(&h, &d);
	assert_false(d.fault_success.valid);
	assert_true(d.collapse_alloc_success.valid);
	assert_true(d.collapse_alloc_success.value <= 1.0);
	kvlist_free(&h.vmstat);
}

/*
 * A capture with no readable smaps (a non-root --pid of another user's process): the page
 * size comes from capture/version's line; without it the snapshot is partial and names it
 * (the PMD order is unknown, not guessed). The PR_THP_DISABLE_EXCEPT_ADVISED probe comes from
 * capture/status.json; null there stays unknown.
 */
static void a_capture_without_smaps_takes_page_size_from_version_or_says_partial(UNIT_STATE)
{
	static const char *const dirs[] = {"proc",
					   "proc/sys",
					   "proc/sys/kernel",
					   "sys",
					   "sys/kernel",
					   "sys/kernel/mm",
					   "sys/kernel/mm/transparent_hugepage",
					   "capture",
					   NULL};
	for (int with = 0; with < 2; with++) {
		char root[64];
		struct sysroot sr;
		unit_tree(root, "nosmaps", dirs, &sr);
		unit_put(root, "proc/sys/kernel/osrelease", "6.18.44\n");
		unit_put(root, "proc/buddyinfo",
			 "Node 0, zone   Normal      1      1      1      1      1      1      1"
			 "      1      1      3      2\n");
		unit_put(root, "sys/kernel/mm/transparent_hugepage/hpage_pmd_size", "2097152\n");
		unit_put(root, "capture/version",
			 with ? "thpctl 1\nkernel 6.18.44\nmachine x86_64\npage_size 4096\n"
			      : "thpctl 1\nkernel 6.18.44\nmachine x86_64\ncaptured x\n");
		unit_put(root, "capture/status.json",
			 with ? "{\"capabilities\": {\"pr_thp_disable_except_advised\": true}}"
			      : "{\"capabilities\": {\"pr_thp_disable_except_advised\": null}}");
		struct host_snapshot *h = read_snapshot(&sr);
		if (with) {
			assert_int_equal(h->feat.page_size, 4096);
			assert_int_equal(h->pmd_order, 9);
			assert_int_equal(h->feat.except_advised, TRI_YES);
			for (int i = 0; i < h->nmissing; i++)
				assert_null(strstr(h->missing[i], "page size"));
		} else {
			assert_int_equal(h->feat.page_size, 0);
			assert_true(h->pmd_order < 0);
			assert_int_equal(h->feat.except_advised, TRI_UNKNOWN);
			bool named = false;
			for (int i = 0; i < h->nmissing; i++)
				named |= strstr(h->missing[i], "base page size") != NULL;
			assert_true(named);
		}
		host_snapshot_free(h);
		free(h);
		unit_tree_remove(root, &sr);
	}
}

UNIT_TESTS(a_recorded_tree_gives_counters_settings_and_khugepaged,
	   a_capture_without_smaps_takes_page_size_from_version_or_says_partial,
	   a_success_ratio_whose_sum_wraps_is_unknown,
	   a_malformed_tree_lists_its_bad_files_in_order, the_sampler_reads_what_status_reads,
	   without_uptime_khugepaged_cpu_is_no_ratio)
