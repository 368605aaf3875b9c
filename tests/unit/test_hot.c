// SPDX-License-Identifier: MIT
/* Unit tests: src/model/hot.c (why --hot: the hot set against the calibrated TLB reach). */
#include "unit.h"

#include "model/hot.h"
#include "render/hot.h"

#include <math.h>
#include <string.h>

#define assert_near(a, b, eps) assert_true(fabs((a) - (b)) <= (eps))

static void vma(struct hot_sum *s, uint64_t rss, uint64_t ahp, uint64_t ref)
{
	struct smaps_totals t;
	memset(&t, 0, sizeof(t));
	t.kb[SM_RSS] = rss;
	t.kb[SM_ANON_HUGE] = ahp;
	t.kb[SM_REFERENCED] = ref;
	hot_add(s, &t);
}

/* This host's lab tlb --quick record of 07:18: 4K reach 8 MiB, 2M reach 64 MiB (a step). */
static struct tlb_record rec(bool step2m)
{
	struct tlb_record r = {.guest = true, .quick = true, .n = 2};
	r.c[0] = (struct tlb_calib){4, true, 8ull << 20, 16ull << 20, 1694.48, 978.07, 2687.6};
	r.c[1] = (struct tlb_calib){2048, step2m, 64ull << 20, step2m ? 128ull << 20 : 0,
				    213,  166,	  314};
	return r;
}

static void test_hot_calls(UNIT_STATE)
{
	struct tlb_record r = rec(true);
	struct hot_verdict v;
	/* chase_malloc 256M on small pages, 2 s: 257 MiB referenced, no AnonHugePages */
	struct hot_sum s = {0};
	vma(&s, 263000, 0, 263000);
	vma(&s, 1200, 0, 300);
	hot_judge(&s, &r, 2048, NULL, false, &v);
	assert_int_equal(v.call, HOT_BEYOND_2M);
	assert_near(v.x4k, 263300.0 * 1024 / (8 << 20), 1e-9);
	assert_near(v.huge_share, 0, 0);
	/* the same within a 2 MiB reach that is only a lower bound: likely to gain */
	struct tlb_record r2 = rec(false);
	hot_judge(&s, &r2, 2048, NULL, false, &v);
	assert_int_equal(v.call, HOT_LIKELY_GAIN);
	assert_true(v.reach2m_lower);
	/* mostly huge-backed: estimate per VMA Referenced x AHP / Rss */
	struct hot_sum h = {0};
	vma(&h, 262144, 262144, 200000);
	vma(&h, 10000, 0, 10000);
	hot_judge(&h, &r, 2048, NULL, false, &v);
	assert_near(v.huge_share, 200000.0 / 210000, 1e-12);
	assert_int_equal(v.call, HOT_ALREADY_HUGE);
	/* small: within the 4 KiB reach */
	struct hot_sum sm = {0};
	vma(&sm, 9000, 0, 4096);
	hot_judge(&sm, &r, 2048, NULL, false, &v);
	assert_int_equal(v.call, HOT_FITS_4K);
	/* nothing referenced, and no record */
	struct hot_sum z = {0};
	vma(&z, 9000, 0, 0);
	hot_judge(&z, &r, 2048, NULL, false, &v);
	assert_int_equal(v.call, HOT_COLD);
	assert_int_equal(z.vmas_hot, 0);
	hot_judge(&s, NULL, 2048, NULL, false, &v);
	assert_int_equal(v.call, HOT_NO_CALIB);
	assert_true(v.x4k < 0 && v.x2m < 0);
	/* a damaged VMA with AnonHugePages over Rss: the share stays <= 1 */
	struct hot_sum d = {0};
	vma(&d, 100, 4096, 100);
	hot_judge(&d, &r, 2048, NULL, false, &v);
	assert_near(v.huge_share, 1, 1e-12);
}

/* The accessed-bit probe: what it lost decides which calls stand. */
static void test_hot_probe(UNIT_STATE)
{
	/* this guest under load: a 64 MiB chase read 8 kB, the probe 20 of its 4096 kB */
	static const struct hot_probe lost = {true, 4096, 20, 11}, kept = {true, 4096, 4096, 11},
				      none = {false, 0, 0, 0};
	/* the 90% line: 3687 of 4096 kept (90.01%), 3686 lost */
	static const struct hot_probe edge_kept = {true, 4096, 3687, 11},
				      edge_lost = {true, 4096, 3686, 11};
	assert_true(hot_probe_lost(&lost));
	assert_false(hot_probe_lost(&kept));
	assert_false(hot_probe_lost(&edge_kept));
	assert_true(hot_probe_lost(&edge_lost));
	assert_false(hot_probe_lost(&none));
	/* one VMA (RSS, AHP, REF kB) judged with PROBE (GUEST): CALL; ABITS and UNSURE (-1: not checked) */
	static const struct {
		const char *name;
		uint64_t rss, ahp, ref;
		const struct hot_probe *probe;
		bool guest;
		enum hot_call call;
		int abits, unsure;
	} c[] = {
		{"the probe lost its bits", 67000, 0, 8, &lost, false, HOT_ABITS_LOST, 1, -1},
		{"the same reading with the probe kept (4096 of 4096): it fits the 4 KiB reach",
		 67000, 0, 8, &kept, false, HOT_FITS_4K, 0, -1},
		{"nothing read and bits lost: not \"cold\"", 9000, 0, 0, &lost, false,
		 HOT_ABITS_LOST, -1, -1},
		{"a lower bound already past both reaches decides: beyond the 2 MiB reach stands",
		 263000, 0, 200000, &lost, false, HOT_BEYOND_2M, 1, -1},
		{"a probe not taken is no evidence either way", 67000, 0, 8, &none, false,
		 HOT_FITS_4K, -1, -1},
		/* tlb.sh here: 484 kB of a 64 MiB chase, probe 4096 of 4096 kB */
		{"a guest of an unnamed hypervisor: the low reading with the probe kept decides nothing",
		 67000, 0, 484, &kept, true, HOT_GUEST_LOW, -1, 1},
		{"a guest, nothing read, the probe kept", 9000, 0, 0, &kept, true, HOT_GUEST_LOW,
		 -1, -1},
		{"a guest: a high reading still decides there", 263000, 0, 200000, &kept, true,
		 HOT_BEYOND_2M, -1, -1},
		{"lost bits take precedence over the guest's doubt", 67000, 0, 484, &lost, true,
		 HOT_ABITS_LOST, -1, -1},
	};
	struct tlb_record r = rec(true);
	for (size_t i = 0; i < UNIT_LEN(c); i++) {
		struct hot_sum s = {0};
		struct hot_verdict v;
		vma(&s, c[i].rss, c[i].ahp, c[i].ref);
		hot_judge(&s, &r, 2048, c[i].probe, c[i].guest, &v);
		unit_row_int(c[i].name, "the call", v.call, c[i].call);
		if (c[i].abits >= 0)
			unit_row_int(c[i].name, "abits_lost", v.abits_lost, c[i].abits);
		if (c[i].unsure >= 0)
			unit_row_int(c[i].name, "guest_unsure", v.guest_unsure, c[i].unsure);
	}
}

/* Every call has its JSON id and its words (the guest call once had no id: "call" went missing). */
static void test_hot_every_call_rendered(UNIT_STATE)
{
	static const char *const ids[] = {"no-calibration",
					  "cold",
					  "fits-4k-reach",
					  "already-huge",
					  "likely-gain",
					  "beyond-2m-reach",
					  "inconclusive-abits-lost",
					  "inconclusive-guest"};
	struct hot_sum s = {0};
	struct hot_probe p = {true, 4096, 4096, 11};
	for (int c = HOT_NO_CALIB; c <= HOT_GUEST_LOW; c++) {
		struct hot_verdict v = {.call = (enum hot_call)c, .x4k = -1, .x2m = -1};
		struct hot_report h = {1, 1, &s, &v, NULL, -1, &p};
		json_t *o = hot_to_json(&h);
		assert_non_null(o);
		assert_string_equal(json_string_value(json_object_get(o, "call")), ids[c]);
		const char *t = json_string_value(json_object_get(o, "text"));
		assert_non_null(t);
		assert_string_not_equal(t, "?");
		json_decref(o);
	}
}

UNIT_TESTS(test_hot_calls, test_hot_probe, test_hot_every_call_rendered)
