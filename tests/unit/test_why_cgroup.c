// SPDX-License-Identifier: MIT
/*
 * Unit tests: `why` on a memory cgroup at its limit (model/why_cgroup.c, the stall and
 * khugepaged lines beside it) and kernel/cgroup.c's limit walk over a recorded tree: the
 * headroom beside the limit, and a limit file not read is an unknown limit, never none.
 */
#include "test_why.h"

#include "kernel/buddyinfo.h"
#include "kernel/kv.h"
#include "model/ledger.h"
#include "render/ledger.h"

#include <jansson.h>

static const char *const EN[] = {"always", "madvise", "never"};
static const char *const DF[] = {"always", "defer", "defer+madvise", "madvise", "never"};

static const struct why_line *find(const char *topic)
{
	for (int i = 0; i < R.n; i++)
		if (!strcmp(R.lines[i].topic, topic))
			return &R.lines[i];
	return NULL;
}

/*
 * The trial: a 150 MiB MADV_HUGEPAGE region, one byte written per 2 MiB, in /trial-b
 * limited to 120 MiB: 56 ranges huge, 19 faulted in as one small page each, the cgroup
 * at 99.7% with 336 kB of headroom; 8473 free PMD-order blocks host-wide.
 */
static void trial(uint64_t usage)
{
	unit_host_reset(&H, "6.18.44");
	H.thp.present = true;
	unit_set_choice(&H.thp.enabled, EN, 3, "madvise");
	unit_set_choice(&H.thp.defrag, DF, 5, "madvise");
	H.thp.khp[KHP_MAX_PTES_NONE] = (struct opt_u64){.v = 511, .present = true};
	assert_int_equal(vmstat_parse(LIT("thp_fault_fallback_charge 20\n"
					  "thp_collapse_alloc_failed 0\n"),
				      &H.vmstat),
			 0);
	assert_int_equal(buddyinfo_parse(LIT("Node 0, zone   Normal      0      0      0      0 "
					     "     0      0      0      0      0   8473      0\n"),
					 &H.buddy),
			 0);
	H.has_buddy = true;
	H.pmd_order = 9;
	memset(&IN, 0, sizeof(IN));
	IN.pid = 42;
	IN.h = &H;
	IN.st.thp_enabled = 1;
	struct smaps_vma v = unit_vma(0x7f0000000000ull, 153600, "", VMF_HG);
	v.t.kb[SM_RSS] = v.t.kb[SM_ANONYMOUS] = 56 * 2048 + 19 * 4;
	v.t.kb[SM_ANON_HUGE] = 56 * 2048;
	v.t.present |= (1u << SM_RSS) | (1u << SM_ANON_HUGE) | (1u << SM_ANONYMOUS);
	v.thp_eligible = 1;
	why_vmas_add(&IN.vmas, &v);
	struct ledger_raw creep = {.creep_ranges = 19, .creep_pages = 19 * 511};
	ledger_build(0, &creep, 0, 8, true, 511, 4, 9, &IN.led);
	ledger_smaps(&IN.led, &IN.vmas.t);
	IN.lim.version = 1;
	snprintf(IN.lim.path, sizeof(IN.lim.path), "/trial-b");
	IN.lim.read_any = IN.lim.limited = true;
	IN.lim.limit_bytes = IN.lim.usage_limit_bytes = 120ull << 20;
	snprintf(IN.lim.limit_file, sizeof(IN.lim.limit_file),
		 "sys/fs/cgroup/memory/trial-b/memory.limit_in_bytes");
	IN.lim.has_headroom = true;
	IN.lim.usage_bytes = usage;
	IN.lim.headroom_bytes = (120ull << 20) - usage;
	snprintf(IN.lim.usage_file, sizeof(IN.lim.usage_file),
		 "sys/fs/cgroup/memory/trial-b/memory.usage_in_bytes");
	why_creep_cg(&IN);
	why_explain(&IN, &R);
}

static void test_cgroup_at_its_limit_stands_in_the_way(UNIT_STATE)
{
	trial((120ull << 20) - 336 * 1024);
	const struct why_line *c = find("cgroup");
	assert_non_null(c);
	assert_int_equal(c->id, WI_CG_TIGHT);
	assert_int_equal(c->effect, WE_HINDERS);
	assert_contains(ltext(c), "uses 119.7 MiB of its 120.0 MiB limit (99.7%), 336 kB of "
				  "headroom, under one PMD");
	assert_contains(ltext(c), "need 2048 kB of charge each and are refused");
	assert_contains(ltext(c), "thp_fault_fallback_charge=20");
	assert_contains(ltext(c), "thp_collapse_alloc_failed=0");
	char src[256];
	assert_string_equal(why_source(c, src, sizeof(src)),
			    "/sys/fs/cgroup/memory/trial-b/memory.usage_in_bytes");

	/* the stall line: the 19 ranges hold small pages, the charge refused them */
	const struct why_line *s = find("stall");
	assert_non_null(s);
	assert_int_equal(s->ev.stall.need, 19);
	assert_int_equal(s->ev.stall.small, 19);
	assert_null(strstr(ltext(s), "can cover them"));
	assert_contains(ltext(s), "all of them hold small pages already");
	assert_contains(ltext(s), "8473 free PMD-order blocks");
	assert_contains(ltext(s), "the likely refusal of its huge pages, not fragmentation");

	/* khugepaged cannot collapse there now; the creep is bounded */
	const struct why_line *k = find("khugepaged");
	assert_non_null(k);
	assert_int_equal(k->effect, WE_NEUTRAL);
	assert_contains(ltext(k), "it collapses only if the cgroup gets headroom");
	assert_true(R.creep_cg_bound);
	assert_true(R.room.starved);

	/* JSON: the files as absolute paths, as the text shows them; headroom beside the limit */
	json_t *j = why_to_json(&IN, &R);
	json_t *cg = json_object_get(j, "cgroup");
	assert_string_equal(json_string_value(json_object_get(cg, "limit_file")),
			    "/sys/fs/cgroup/memory/trial-b/memory.limit_in_bytes");
	assert_string_equal(json_string_value(json_object_get(cg, "usage_file")),
			    "/sys/fs/cgroup/memory/trial-b/memory.usage_in_bytes");
	assert_int_equal(json_integer_value(json_object_get(cg, "headroom_bytes")), 336 * 1024);
	assert_true(json_is_true(json_object_get(cg, "tight")));
	assert_true(json_is_true(json_object_get(cg, "limit_known")));
	json_decref(j);
	host_snapshot_free(&H);
}

static void test_cgroup_with_headroom_is_neutral(UNIT_STATE)
{
	trial(60ull << 20); /* 50% */
	const struct why_line *c = find("cgroup");
	assert_int_equal(c->id, WI_CG_LIMITED);
	assert_int_equal(c->effect, WE_NEUTRAL);
	assert_contains(ltext(c), "is limited to 120.0 MiB, uses 60.0 MiB (50.0%");
	const struct why_line *k = find("khugepaged");
	assert_int_equal(k->effect, WE_HELPS);
	assert_null(strstr(ltext(find("stall")), "refusal"));
	assert_false(R.room.tight);
	host_snapshot_free(&H);
	/* 95%: 6 MiB left, collapses still fit, but the cgroup line says it is near full */
	trial(114ull << 20);
	c = find("cgroup");
	assert_int_equal(c->id, WI_CG_TIGHT);
	assert_int_equal(c->effect, WE_HINDERS);
	assert_false(R.room.starved);
	assert_int_equal(find("khugepaged")->effect, WE_HELPS);
	host_snapshot_free(&H);
}

/* A replay whose cgroup's own limit file was not recorded: the limit is unknown. */
static void test_unread_limit_file_is_unknown_not_none(UNIT_STATE)
{
	char root[64];
	struct sysroot sr;
	static const char *const dirs[] = {"sys",
					   "sys/fs",
					   "sys/fs/cgroup",
					   "sys/fs/cgroup/memory",
					   "sys/fs/cgroup/memory/trial-b",
					   NULL};
	unit_tree(root, "why-cg", dirs, &sr);
	unit_put(root, "sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");
	unit_put(root, "sys/fs/cgroup/memory/memory.usage_in_bytes", "1000000\n");
	struct proc_cgroup cg = {.has_v1_memory = true};
	snprintf(cg.v1_memory, sizeof(cg.v1_memory), "/trial-b");
	struct buf b = {0};
	memset(&IN, 0, sizeof(IN));
	assert_int_equal(cgroup_memory_limit(&sr, &cg, &b, &IN.lim), 0);
	assert_true(IN.lim.limit_unknown);
	assert_false(IN.lim.limited);
	assert_string_equal(IN.lim.unknown_file,
			    "sys/fs/cgroup/memory/trial-b/memory.limit_in_bytes");
	unit_host_reset(&H, "6.18.44");
	IN.h = &H;
	IN.pid = 42;
	IN.recorded = true;
	memset(&R, 0, sizeof(R));
	why_explain_cgroup(&IN, &R);
	const struct why_line *c = find("cgroup");
	assert_int_equal(c->id, WI_CG_LIMIT_PARTIAL);
	assert_int_equal(c->effect, WE_UNKNOWN);
	assert_null(strstr(ltext(c), "no memory limit"));
	assert_contains(ltext(c), "its memory limit is unknown");
	assert_contains(ltext(c), "not recorded in this tree");

	/* recorded, with usage: headroom beside the limit */
	unit_put(root, "sys/fs/cgroup/memory/trial-b/memory.limit_in_bytes", "125829120\n");
	unit_put(root, "sys/fs/cgroup/memory/trial-b/memory.usage_in_bytes", "125485056\n");
	sysroot_close(&sr); /* a fresh handle: the old one caches what it found missing */
	assert_int_equal(sysroot_open(&sr, root), 0);
	assert_int_equal(cgroup_memory_limit(&sr, &cg, &b, &IN.lim), 0);
	assert_false(IN.lim.limit_unknown);
	assert_true(IN.lim.limited);
	assert_true(IN.lim.has_headroom);
	assert_int_equal(IN.lim.headroom_bytes, 344064);
	assert_string_equal(IN.lim.usage_file,
			    "sys/fs/cgroup/memory/trial-b/memory.usage_in_bytes");
	buf_free(&b);
	host_snapshot_free(&H);
	unit_tree_remove(root, &sr);
}

/* The trial's creep: 19 ranges of 511 missing pages, 38836 kB (37.9 MiB). */
#define CREEP_KB (19 * 511 * 4)

/* why's first line (render/why_summary.c) and its ledger's creep line (render/ledger.c). */
static char head[1024], creep_line[1024];
static void words(void)
{
	why_summary_words(&R, head, sizeof(head));
	char *p = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&p, &n);
	assert_non_null(f);
	ledger_render_lines(f, &IN.led, false);
	fclose(f);
	const char *c = strstr(p, "  creep ");
	assert_non_null(c);
	size_t l = strcspn(c, "\n");
	assert_true(l < sizeof(creep_line));
	memcpy(creep_line, c, l);
	creep_line[l] = 0;
	free(p);
}

/* The ledger's JSON keys of the creep bound: -1 for null, -2 for absent. */
static long long jkb(const char *key)
{
	json_t *j = why_to_json(&IN, &R);
	json_t *v = json_object_get(json_object_get(j, "ledger"), key);
	long long r = !v		 ? -2
		      : json_is_null(v)	 ? -1
		      : json_is_true(v)	 ? 1
		      : json_is_false(v) ? 0
					 : json_integer_value(v);
	json_decref(j);
	return r;
}

/* Under the creep: the headline and the ledger say the headroom, the unbounded beside it. */
static void test_creep_bounded_by_headroom_below_it(UNIT_STATE)
{
	trial((120ull << 20) - 6144 * 1024); /* 6 MiB of headroom: three collapses */
	assert_int_equal(IN.led.creep_kb, CREEP_KB);
	assert_int_equal(IN.led.creep_cg, LCG_LIMITED);
	assert_true(IN.led.creep_cg_bounded);
	assert_true(R.creep_cg_bound);
	assert_int_equal(IN.led.creep_bound_kb, 6144);
	words();
	assert_contains(head, "khugepaged may add up to 6144 kB, bounded by its memory cgroup's "
			      "headroom (unbounded: up to 37.9 MiB by collapsing 19 PMD ranges, "
			      "max_ptes_none=511)");
	assert_null(strstr(head, "may add up to 37.9 MiB"));
	assert_contains(creep_line,
			"creep        up to 6144 kB  bounded by its memory cgroup's "
			"headroom (unbounded: up to 37.9 MiB if khugepaged collapses 19 "
			"PMD ranges");
	assert_contains(creep_line, "FLAGGED unbounded");
	assert_int_equal(jkb("creep_max_kb"), CREEP_KB); /* its meaning kept: unbounded */
	assert_int_equal(jkb("creep_bound_kb"), 6144);
	assert_int_equal(jkb("creep_cgroup_bounded"), 1);
	host_snapshot_free(&H);

	/* under one PMD: at most the headroom, and none until it gets more */
	trial((120ull << 20) - 336 * 1024);
	assert_int_equal(IN.led.creep_bound_kb, 336);
	words();
	assert_contains(head, "khugepaged may add up to 336 kB, bounded by its memory cgroup's "
			      "headroom, under one PMD: none until it gets headroom (unbounded: "
			      "up to 37.9 MiB");
	assert_contains(creep_line, "up to 336 kB  bounded by");
	assert_int_equal(jkb("creep_bound_kb"), 336);
	host_snapshot_free(&H);
}

/* At or above the creep: the cgroup does not bound it; the words are the plain creep. */
static void test_creep_at_or_under_headroom_stands(UNIT_STATE)
{
	static const uint64_t room_kb[] = {CREEP_KB, 60 * 1024};
	for (int i = 0; i < 2; i++) {
		trial((120ull << 20) - room_kb[i] * 1024);
		assert_int_equal(IN.led.cg_headroom_kb, (int64_t)room_kb[i]);
		assert_false(IN.led.creep_cg_bounded);
		assert_false(R.creep_cg_bound);
		assert_int_equal(IN.led.creep_bound_kb, CREEP_KB);
		words();
		assert_contains(head, "khugepaged may add up to 37.9 MiB by collapsing 19 PMD "
				      "ranges (max_ptes_none=511)");
		assert_null(strstr(head, "bounded"));
		assert_contains(creep_line, "up to 37.9 MiB  if khugepaged collapses 19 PMD ranges "
					    "(max_ptes_none=511; upper bound: resident pages per "
					    "range from PAGEMAP_SCAN)");
		assert_null(strstr(creep_line, "cgroup"));
		assert_int_equal(jkb("creep_bound_kb"), CREEP_KB);
		assert_int_equal(jkb("creep_cgroup_bounded"), 0);
		host_snapshot_free(&H);
	}
}

/* An unknown usage or limit leaves the bound unknown (null), never "no limit"; none is none. */
static void test_creep_bound_unknown_is_not_no_limit(UNIT_STATE)
{
	for (int i = 0; i < 4; i++) {
		trial(60ull << 20);
		if (i == 0)
			IN.lim.has_headroom = false; /* the usage file not read */
		else if (i == 1)
			IN.lim.limited = false, IN.lim.limit_unknown = true;
		else if (i == 2)
			IN.limit_err = -EACCES;
		else
			IN.lim.limited = false; /* no limit on its path */
		why_creep_cg(&IN);
		why_explain(&IN, &R);
		assert_int_equal(IN.led.creep_cg, i == 3 ? LCG_NO_LIMIT : LCG_UNKNOWN);
		assert_false(IN.led.creep_cg_bounded);
		assert_int_equal(IN.led.creep_bound_kb, -1);
		words();
		assert_contains(head,
				"khugepaged may add up to 37.9 MiB by collapsing 19 PMD ranges");
		if (i == 3)
			assert_null(strstr(creep_line, "cgroup"));
		else
			assert_contains(creep_line, "its memory cgroup's headroom, which may bound "
						    "it, unknown");
		assert_int_equal(jkb("creep_bound_kb"), -1);
		assert_int_equal(jkb("creep_cgroup_bounded"), i == 3 ? 0 : -1);
		host_snapshot_free(&H);
	}
}

UNIT_MAIN(cmocka_unit_test(test_cgroup_at_its_limit_stands_in_the_way),
	  cmocka_unit_test(test_cgroup_with_headroom_is_neutral),
	  cmocka_unit_test(test_unread_limit_file_is_unknown_not_none),
	  cmocka_unit_test(test_creep_bounded_by_headroom_below_it),
	  cmocka_unit_test(test_creep_at_or_under_headroom_stands),
	  cmocka_unit_test(test_creep_bound_unknown_is_not_no_limit))
