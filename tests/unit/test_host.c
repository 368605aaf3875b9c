// SPDX-License-Identifier: MIT
/*
 * Unit tests: src/model/host.c, the facts every command shares: free blocks of
 * an order, who may stall under defrag, the PMD-size policy, COW, the mTHP
 * listing, and the live value of a knob.
 */
#include "unit.h"

#include "kernel/buddyinfo.h"
#include "model/host.h"
#include "util/units.h"

static const char buddy[] =
	"Node 0, zone      DMA      0      0      0      0      0      0      0      0      1      1      3 \n"
	"Node 0, zone    DMA32      1      3      0      2      3      2      1      4      4      2    752 \n"
	"Node 0, zone   Normal      1      0      1      5      4      3      2      2      3      2     35 \n"
	"Node 1, zone   Normal      0      0      0      0      0      0      0      0      0      4      1 \n";

static void test_free_blocks_count_in_units_of_the_order(UNIT_STATE)
{
	struct buddyinfo bi;
	assert_int_equal(buddyinfo_parse(LIT(buddy), &bi), 0);
	/* one zone: order-10 blocks hold two order-9 blocks each */
	assert_int_equal(zone_free_blocks(&bi.zones[1], 9), 2 + 752 * 2);
	assert_int_equal(zone_free_blocks(&bi.zones[0], 9), 1 + 3 * 2); /* DMA itself counts */
	assert_int_equal(zone_free_blocks(&bi.zones[1], -1), 0);
	assert_int_equal(zone_free_blocks(&bi.zones[1], 64), 0);
	bool found;
	/* order 9 (2M): DMA left out */
	assert_int_equal(host_free_blocks(&bi, 0, 9, &found), 2 + 752 * 2 + 2 + 35 * 2);
	assert_true(found);
	assert_int_equal(host_free_blocks(&bi, 1, 9, &found), 4 + 2);
	assert_int_equal(host_free_blocks(&bi, -1, 10, &found), 752 + 35 + 1);
	assert_int_equal(host_free_blocks(&bi, -1, 9, NULL), 2 + 752 * 2 + 2 + 35 * 2 + 4 + 2);
	assert_int_equal(host_free_blocks(&bi, 2, 9, &found), 0);
	assert_false(found);
	/* above the largest order: nothing */
	assert_int_equal(host_free_blocks(&bi, 0, 18, &found), 0);
	assert_true(found);
}

static void test_pmd_blocks_need_buddyinfo_and_the_order(UNIT_STATE)
{
	struct host_snapshot *h = calloc(1, sizeof(*h));
	assert_non_null(h);
	uint64_t n = 7;
	h->pmd_order = 9;
	assert_false(host_pmd_blocks(h, &n)); /* no buddyinfo */
	assert_int_equal(buddyinfo_parse(LIT(buddy), &h->buddy), 0);
	h->has_buddy = true;
	assert_true(host_pmd_blocks(h, &n));
	assert_int_equal(n, 2 + 752 * 2 + 2 + 35 * 2 + 4 + 2);
	h->pmd_order = -1;
	assert_false(host_pmd_blocks(h, &n));
	/* a zone's row dropped (cut short, or listed twice): the rest is no total, unknown
	 * (the exporter printed the remaining zones' sum as thp_free_pmd_blocks) */
	h->pmd_order = 9;
	h->buddy.bad = 1;
	assert_false(host_pmd_blocks(h, &n));
	h->buddy.bad = 0;
	h->buddy.dup = 1;
	assert_false(host_pmd_blocks(h, &n));
	free(h);
}

static void test_defrag_stalls_by_value(UNIT_STATE)
{
	static const struct unit_str_int c[] = {
		{"[always] defer defer+madvise madvise never", DEFRAG_STALL_ANY},
		{"always defer defer+madvise [madvise] never", DEFRAG_STALL_MADVISED},
		{"always defer [defer+madvise] madvise never", DEFRAG_STALL_MADVISED},
		{"always [defer] defer+madvise madvise never", DEFRAG_STALL_NONE},
		{"always defer defer+madvise madvise [never]", DEFRAG_STALL_NONE},
		{"[sometimes] never", DEFRAG_STALL_UNKNOWN},
	};
	for (size_t i = 0; i < UNIT_LEN(c); i++) {
		struct choice ch;
		unit_row_int(c[i].in, "choice_parse", choice_parse(c[i].in, strlen(c[i].in), &ch),
			     0);
		unit_row_int(c[i].in, "defrag_stalls", defrag_stalls(&ch), c[i].want);
	}
	struct choice unread = {0};
	assert_int_equal(defrag_stalls(&unread), DEFRAG_STALL_UNKNOWN);
}

static void test_pmd_policy_per_size_then_top_level(UNIT_STATE)
{
	struct thp_settings *s = calloc(1, sizeof(*s));
	assert_non_null(s);
	bool inh = true;
	assert_null(thp_pmd_policy_of(s, 2u << 20, &inh));
	assert_false(inh);
	assert_int_equal(choice_parse(LIT("[always] madvise never\n"), &s->enabled), 0);
	/* before 6.8: the top-level file */
	assert_string_equal(thp_pmd_policy_of(s, 2u << 20, &inh), "always");
	assert_false(inh);
	/* 6.8+: hugepages-2048kB/enabled, inherit resolved by the reader */
	struct thp_size *sz = &s->sizes[s->nsizes++];
	sz->size_kb = 2048;
	assert_int_equal(choice_parse(LIT("always [inherit] madvise never\n"), &sz->enabled), 0);
	sz->eff_enabled = s->enabled.selected;
	assert_string_equal(thp_pmd_policy_of(s, 2u << 20, &inh), "always");
	assert_true(inh);
	assert_int_equal(choice_parse(LIT("always inherit madvise [never]\n"), &sz->enabled), 0);
	sz->eff_enabled = sz->enabled.selected;
	assert_string_equal(thp_pmd_policy_of(s, 2u << 20, NULL), "never");
	/* PMD size unknown: the top-level file */
	assert_string_equal(thp_pmd_policy_of(s, 0, NULL), "always");
	free(s);
}

static void test_cow_and_mthp_listing(UNIT_STATE)
{
	struct host_snapshot *h = calloc(1, sizeof(*h));
	assert_non_null(h);
	h->feat.cow_split = TRI_NO;
	assert_int_equal(host_cow_copies_thp(h), TRI_YES);
	h->feat.cow_split = TRI_YES;
	assert_int_equal(host_cow_copies_thp(h), TRI_NO);
	h->feat.cow_split = TRI_UNKNOWN;
	assert_int_equal(host_cow_copies_thp(h), TRI_UNKNOWN);

	assert_int_equal(host_mthp_listing(h), MTHP_LIST_NONE_UNKNOWN);
	assert_int_equal(kernel_version_parse("6.1.0", h->feat.kver), 0);
	assert_int_equal(host_mthp_listing(h), MTHP_LIST_NONE_OLD);
	assert_int_equal(kernel_version_parse("6.8.0", h->feat.kver), 0);
	assert_int_equal(host_mthp_listing(h), MTHP_LIST_NOT_RECORDED);
	h->feat.thp = true;
	h->feat.thp_recorded = REC_WHOLE;
	assert_int_equal(host_mthp_listing(h), MTHP_LIST_NONE_KERNEL);
	h->feat.mthp_sizes = 3;
	assert_int_equal(host_mthp_listing(h), MTHP_LIST_SIZES);
	h->feat.mthp_sizes = 0;
	h->feat.thp_recorded = REC_MISSING;
	assert_int_equal(host_mthp_listing(h), MTHP_LIST_UNRECORDED);
	free(h);
}

/* The per-size keys `thpctl set` takes, and the live value of a knob behind one. */
static void test_size_keys_and_live_values(UNIT_STATE)
{
	char k[64], v[CHOICE_LEN];
	thp_size_key(k, sizeof(k), 64, "enabled");
	assert_string_equal(k, "hugepages-64kB/enabled");
	thp_size_key(k, sizeof(k), 2048, "shmem_enabled");
	assert_string_equal(k, "hugepages-2048kB/shmem_enabled");
	struct host_snapshot *h = calloc(1, sizeof(*h));
	assert_non_null(h);
	assert_int_equal(host_thp_value(h, "enabled", v, sizeof(v)), -ENOENT);
	h->has_settings = h->thp.present = true;
	assert_int_equal(choice_parse(LIT("always [madvise] never\n"), &h->thp.enabled), 0);
	h->thp.khp[KHP_MAX_PTES_NONE] = (struct opt_u64){.v = 511, .present = true};
	for (int i = 0; i < 2; i++) {
		struct thp_size *sz = &h->thp.sizes[h->thp.nsizes++];
		sz->size_kb = i ? 128 : 64;
		assert_int_equal(
			choice_parse(LIT("always inherit madvise [never]\n"), &sz->enabled), 0);
	}
	assert_int_equal(host_thp_value(h, "enabled", v, sizeof(v)), 0);
	assert_string_equal(v, "madvise");
	assert_int_equal(host_thp_value(h, "khugepaged/max_ptes_none", v, sizeof(v)), 0);
	assert_string_equal(v, "511");
	assert_int_equal(host_thp_value(h, "hugepages-*/enabled", v, sizeof(v)), 0);
	assert_string_equal(v, "never");
	assert_int_equal(
		choice_parse(LIT("[always] inherit madvise never\n"), &h->thp.sizes[1].enabled), 0);
	assert_int_equal(host_thp_value(h, "hugepages-*/enabled", v, sizeof(v)), -EDOM);
	assert_int_equal(host_thp_value(h, "hugepages-128kB/enabled", v, sizeof(v)), 0);
	assert_string_equal(v, "always");
	free(h);
}

static void add(struct kvlist *l, const char *name, uint64_t v)
{
	assert_int_equal(kvlist_add(l, name, strlen(name), v), 0);
}

/* A ratio that is not there says why (status prints '-' or "no attempts yet" by it). */
static void test_ratios_say_why_and_shmem_only_sizes(UNIT_STATE)
{
	struct host_snapshot *h = calloc(1, sizeof(*h));
	assert_non_null(h);
	add(&h->vmstat, "thp_fault_alloc", 0);
	add(&h->vmstat, "thp_fault_fallback", 0); /* no thp_collapse_* at all */
	h->thp.nsizes = 3;
	struct thp_size *sz = h->thp.sizes;
	/* 8kB: shmem_enabled only, stats without anon counters */
	sz[0].size_kb = 8;
	assert_int_equal(choice_parse(LIT("always [never]\n"), &sz[0].shmem_enabled), 0);
	sz[0].has_stats = true;
	add(&sz[0].stats, "shmem_alloc", 0);
	/* 16kB: an anon size whose sum passes 2^64; 64kB: 3 of 4 */
	for (int i = 1; i < 3; i++) {
		sz[i].size_kb = i == 1 ? 16 : 64;
		assert_int_equal(choice_parse(LIT("[never] always\n"), &sz[i].enabled), 0);
		sz[i].has_stats = true;
		add(&sz[i].stats, "anon_fault_alloc", i == 1 ? UINT64_MAX : 3);
		add(&sz[i].stats, "anon_fault_fallback", 1);
	}
	struct host_derived d;
	host_derive(h, &d);
	assert_false(d.fault_success.valid);
	assert_int_equal(d.fault_success.gap, RATIO_NO_EVENTS);
	assert_false(d.collapse_alloc_success.valid);
	assert_int_equal(d.collapse_alloc_success.gap, RATIO_ABSENT);
	assert_int_equal(d.nsizes, 3);
	assert_true(d.sizes[0].shmem_only);
	assert_int_equal(d.sizes[0].success.gap, RATIO_ABSENT);
	assert_false(d.sizes[1].shmem_only);
	assert_false(d.sizes[1].success.valid);
	assert_int_equal(d.sizes[1].success.gap, RATIO_WRAPS);
	assert_true(d.sizes[2].success.valid);
	assert_float_equal(d.sizes[2].success.value, 0.75, 1e-9);
	/* an unreadable file: a missing enabled may be that one, so not "shmem only" */
	h->thp.nunread = 1;
	assert_false(host_size_shmem_only(&h->thp, 0));
	for (int i = 0; i < 3; i++)
		kvlist_free(&sz[i].stats);
	kvlist_free(&h->vmstat);
	free(h);
}

/*
 * Collapse success is of the collapses that allocated (thp_collapse_alloc of alloc + failed);
 * the scans that gave up on a max_ptes_* limit are counted apart, each counter as read (one
 * absent: the sum unknown, never a partial sum).
 */
static void test_collapse_alloc_success_and_scans_given_up(UNIT_STATE)
{
	struct host_snapshot *h = calloc(1, sizeof(*h));
	assert_non_null(h);
	add(&h->vmstat, "thp_collapse_alloc", 9999);
	add(&h->vmstat, "thp_collapse_alloc_failed", 1);
	add(&h->vmstat, "thp_scan_exceed_none_pte", 504);
	add(&h->vmstat, "thp_scan_exceed_swap_pte", 3);
	struct host_derived d;
	host_derive(h, &d);
	assert_true(d.collapse_alloc_success.valid);
	assert_int_equal(d.collapse_alloc_success.num, 9999);
	assert_int_equal(d.collapse_alloc_success.den, 10000);
	char pct[24];
	fmt_pct(pct, sizeof(pct), d.collapse_alloc_success.num, d.collapse_alloc_success.den, 1);
	assert_string_equal(pct, "99.99%"); /* a failure is never shown as 100.0% */
	assert_true(d.scan_exceed[0].present);
	assert_int_equal(d.scan_exceed[0].v, 504);
	assert_true(d.scan_exceed[1].present);
	assert_int_equal(d.scan_exceed[1].v, 3);
	assert_false(d.scan_exceed[2].present);
	assert_false(d.scan_exceed_all);
	add(&h->vmstat, "thp_scan_exceed_share_pte", 10);
	host_derive(h, &d);
	assert_true(d.scan_exceed_all);
	assert_true(d.scan_exceed_sum == 517);
	kvlist_free(&h->vmstat);
	free(h);
}

UNIT_TESTS(test_free_blocks_count_in_units_of_the_order,
	   test_collapse_alloc_success_and_scans_given_up,
	   test_pmd_blocks_need_buddyinfo_and_the_order, test_defrag_stalls_by_value,
	   test_pmd_policy_per_size_then_top_level, test_cow_and_mthp_listing,
	   test_size_keys_and_live_values, test_ratios_say_why_and_shmem_only_sizes)
