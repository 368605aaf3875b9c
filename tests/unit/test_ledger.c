// SPDX-License-Identifier: MIT
/* Unit tests: the THP ledger's pure parts (kernel/ledger.c, model/ledger.c). */
#include "unit.h"

#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kernel/ledger.h"
#include "kernel/pagemap.h"
#include "kernel/smaps.h"
#include "kernel/sysroot.h"
#include "model/ledger.h"
#include "render/ledger.h"

#include "test_ledger_split.h"

#define THP (KPF_M_THP | KPF_M_ANON)

static void test_samples_fall_one_per_stratum(UNIT_STATE)
{
	for (uint64_t addr = 0x200000; addr < 0x200000 * 50; addr += 0x200000)
		for (int i = 0; i < 8; i++) {
			unsigned p = ledger_sample_pos(addr, i, 8, 512);
			assert_true(p >= (unsigned)i * 64 && p < (unsigned)(i + 1) * 64);
		}
	/* k = nsub reads every subpage once, in order */
	for (int i = 0; i < 512; i++)
		assert_int_equal(ledger_sample_pos(0x400000, i, 512, 512), i);
}

static void test_samples_differ_between_thps(UNIT_STATE)
{
	int same = 0;
	for (uint64_t a = 1; a <= 100; a++)
		same += ledger_sample_pos(a << 21, 0, 8, 512) ==
			ledger_sample_pos((a + 1) << 21, 0, 8, 512);
	assert_true(same < 10); /* 1 in 64 expected by chance */
}

static void test_creep_is_what_khugepaged_may_add(UNIT_STATE)
{
	assert_int_equal(ledger_creep_pages(1, 512, 511), 511);
	assert_int_equal(ledger_creep_pages(300, 512, 511), 212);
	assert_int_equal(ledger_creep_pages(300, 512, 212), 212);
	assert_int_equal(ledger_creep_pages(300, 512, 211), 0); /* 212 none PTEs > 211 */
	assert_int_equal(ledger_creep_pages(300, 512, 0), 0);
	assert_int_equal(ledger_creep_pages(0, 512, 511), 0);	/* nothing to collapse */
	assert_int_equal(ledger_creep_pages(512, 512, 511), 0); /* already whole */
	assert_int_equal(ledger_creep_pages(100, 512, -1), 0);	/* unknown knob */
}

static void test_folio_found_from_a_tail(UNIT_STATE)
{
	uint64_t kf[512] = {0};
	/* a 16-page folio at frames 1000+32 .. +47, a PMD folio elsewhere */
	kf[32] = THP | KPF_M_HEAD;
	for (int i = 33; i < 48; i++)
		kf[i] = THP | KPF_M_TAIL;
	kf[48] = KPF_M_ANON; /* a small page after it */
	struct ledger_folio f = ledger_folio_of(kf, 512, 1024, 1024 + 40);
	assert_int_equal(f.head, 1024 + 32);
	assert_int_equal(f.pages, 16);
	f = ledger_folio_of(kf, 512, 1024, 1024 + 32);
	assert_int_equal(f.head, 1024 + 32);
	assert_int_equal(f.pages, 16);
	/* a small page and a frame outside the block are no folio */
	assert_int_equal(ledger_folio_of(kf, 512, 1024, 1024 + 48).pages, 0);
	assert_int_equal(ledger_folio_of(kf, 512, 1024, 99).pages, 0);
	/* a file THP and the huge zero page are not anonymous memory held */
	kf[100] = KPF_M_THP | KPF_M_HEAD;
	assert_int_equal(ledger_folio_of(kf, 512, 1024, 1024 + 100).pages, 0);
	kf[200] = THP | KPF_M_HEAD | KPF_M_ZERO;
	assert_int_equal(ledger_folio_of(kf, 512, 1024, 1024 + 200).pages, 0);
	/* a tail with no head before it in the block: not trusted */
	uint64_t lone[512] = {0};
	lone[3] = THP | KPF_M_TAIL;
	assert_int_equal(ledger_folio_of(lone, 512, 0, 3).pages, 0);
}

static void test_partial_folios_hold_their_unmapped_pages(UNIT_STATE)
{
	struct ledger_folios s = {0};
	struct ledger_raw raw = {0};
	struct ledger_folio pmd1 = {5120, 512}, pmd2 = {6144, 512}, m16 = {9000, 16};
	assert_int_equal(ledger_folios_add(&s, pmd1, 1), 0);
	assert_int_equal(ledger_folios_add(&s, m16, 16), 0); /* whole: not partial */
	assert_int_equal(ledger_folios_add(&s, pmd2, 10), 0);
	assert_int_equal(ledger_folios_add(&s, pmd1, 1), 0); /* same folio, mapped twice apart */
	ledger_folios_finish(&s, 512, &raw);
	assert_int_equal(raw.partial_folios, 2);
	assert_int_equal(raw.partial_mapped, 12);
	assert_int_equal(raw.held_pages, (512 - 2) + (512 - 10));
	assert_int_equal(raw.mthp_pages[4], 16); /* the whole 16-page folio is mTHP (64 kB) */
	assert_null(s.v);
}

/* Folios seen whole leave the list at once: 10 000 mTHPs keep one entry, not 10 000. */
static void test_whole_folios_do_not_pile_up(UNIT_STATE)
{
	struct ledger_folios s = {0};
	struct ledger_raw raw = {0};
	for (uint64_t i = 0; i < 10000; i++) {
		struct ledger_folio f = {1000000 + i * 16, 16};
		assert_int_equal(ledger_folios_add(&s, f, 6), 0);
		assert_int_equal(ledger_folios_add(&s, f, 10), 0); /* the rest, next run */
		assert_true(s.n <= 1);
	}
	struct ledger_folio part = {5120, 512}, pmd = {6144, 512};
	assert_int_equal(ledger_folios_add(&s, part, 100), 0);
	assert_int_equal(ledger_folios_add(&s, pmd, 512), 0); /* whole PMD-size, PTE-mapped */
	assert_int_equal(ledger_folios_add(&s, part, 12), 0); /* more of PART, elsewhere */
	ledger_folios_finish(&s, 512, &raw);
	assert_int_equal(raw.mthp_pages[4], 160000);
	assert_int_equal(raw.mthp_pages[9], 0); /* PMD size is not mTHP */
	assert_int_equal(raw.partial_folios, 1);
	assert_int_equal(raw.partial_mapped, 112);
	assert_int_equal(raw.held_pages, 400);
}

static void test_build_estimates_invented_from_samples(UNIT_STATE)
{
	struct ledger_raw raw = {
		.thps = 512, .thps_sampled = 512, .samples = 4096, .zero_samples = 4095};
	struct thp_ledger l;
	ledger_build(1048576, &raw, 0, 8, false, 511, 4, 9, &l);
	assert_int_equal(l.method, LM_SAMPLED);
	/* 4095/4096 of 512 x 2048 kB */
	assert_int_equal(l.invented_kb, 1048320);
	assert_true(l.bloated);
	assert_int_equal(l.held_gap, LG_NOT_ASKED);
	assert_int_equal(l.held_kb, -1);
	assert_int_equal(l.creep_kb, 0);
	/* k = 512: every subpage read, exact */
	raw.samples = 512 * 512;
	raw.zero_samples = 0;
	ledger_build(1048576, &raw, 0, 512, false, 511, 4, 9, &l);
	assert_int_equal(l.method, LM_EXACT);
	assert_int_equal(l.invented_kb, 0);
	assert_false(l.bloated);
}

static void test_build_says_unknown_never_zero(UNIT_STATE)
{
	struct ledger_raw raw = {.thps = 10, .mem_err = -EACCES, .held_err = -EPERM};
	struct thp_ledger l;
	ledger_build(20480, &raw, 0, 8, true, 511, 4, 9, &l);
	assert_int_equal(l.invented_kb, -1);
	assert_int_equal(l.invented_gap, LG_DENIED);
	assert_int_equal(l.held_kb, -1);
	assert_int_equal(l.held_gap, LG_DENIED);
	assert_false(l.bloated);
	/* no PAGEMAP_SCAN: all three unknown */
	struct ledger_raw none = {.scan_err = -ENOTTY};
	ledger_build(0, &none, 0, 8, true, 511, 4, 9, &l);
	assert_int_equal(l.invented_gap, LG_NO_SCAN);
	assert_int_equal(l.held_gap, LG_NO_SCAN);
	assert_int_equal(l.creep_gap, LG_NO_SCAN);
	assert_true(l.invented_kb == -1 && l.held_kb == -1 && l.creep_kb == -1);
	/* a budget cut: the sampled part extrapolated, said so */
	struct ledger_raw cut = {
		.thps = 100, .thps_sampled = 50, .samples = 400, .zero_samples = 200};
	ledger_build(204800, &cut, 0, 8, false, 511, 4, 9, &l);
	assert_int_equal(l.invented_kb, 102400);
	assert_int_equal(l.invented_gap, LG_BUDGET);
}

static void test_bloat_needs_a_quarter_and_16_mib(UNIT_STATE)
{
	assert_true(ledger_is_bloated(16 * 1024 + 1, 65536));
	assert_false(ledger_is_bloated(16 * 1024, 65536));	/* not over 16 MiB */
	assert_false(ledger_is_bloated(20 * 1024, 100 * 1024)); /* 20%: not over 25% */
	assert_true(ledger_is_bloated(26 * 1024, 100 * 1024));
	assert_false(ledger_is_bloated(-1, 100 * 1024));
}

/* The three rebuilt cases of issue 22 (numbers as measured there), and lazy free from smaps. */
static void test_largest_cost_past_its_threshold(UNIT_STATE)
{
	struct thp_ledger l;
	/* huge 16 MiB, ~15.8 MiB invented (under 16 MiB), 56 folios x 2044 kB held */
	ledger_split_build(&l);
	struct smaps_totals t = {.present = 1u << SM_RSS | 1u << SM_ANON_HUGE | 1u << SM_LAZYFREE};
	t.kb[SM_RSS] = 16700;
	t.kb[SM_ANON_HUGE] = 16384;
	ledger_smaps(&l, &t);
	assert_int_equal(l.held_kb, 56 * 2044);
	assert_false(ledger_cost_flagged(&l, LC_INVENTED)); /* 16128 kB: not over 16 MiB */
	assert_true(ledger_cost_flagged(&l, LC_HELD));
	assert_int_equal(ledger_top_cost(&l), LC_HELD);
	assert_int_equal(l.lazyfree_kb, 0);
	/* 256 MiB touched one page in 16, then hg: 32 of 512 resident per range, creep 240 MiB */
	struct ledger_raw creep = {.creep_ranges = 128, .creep_pages = 128 * 480};
	ledger_build(0, &creep, 0, 8, true, 511, 4, 9, &l);
	t.kb[SM_RSS] = 16384 + 1500;
	t.kb[SM_ANON_HUGE] = 0;
	ledger_smaps(&l, &t);
	assert_int_equal(l.creep_kb, 240 * 1024);
	assert_int_equal(ledger_top_cost(&l), LC_CREEP);
	/* MADV_FREE of all but one page per 2 MiB of 512 MiB: LazyFree ~510 MiB of 513 */
	struct ledger_raw none = {0};
	ledger_build(0, &none, 0, 8, true, 511, 4, 9, &l);
	t.kb[SM_RSS] = 513 * 1024;
	t.kb[SM_LAZYFREE] = 256 * 2044;
	ledger_smaps(&l, &t);
	assert_int_equal(l.lazyfree_kb, 256 * 2044);
	assert_int_equal(ledger_top_cost(&l), LC_LAZYFREE);
	/* the same 510 MiB lazily freed in a 4 GiB process: under 25%, not flagged */
	t.kb[SM_RSS] = 4u << 20;
	ledger_smaps(&l, &t);
	assert_false(ledger_cost_flagged(&l, LC_LAZYFREE));
	assert_int_equal(ledger_top_cost(&l), LC_NONE);
	/* a kernel without LazyFree (< 4.12): unknown, never 0 */
	t.present &= ~(1u << SM_LAZYFREE);
	ledger_smaps(&l, &t);
	assert_int_equal(l.lazyfree_kb, -1);
	assert_int_equal(ledger_cost_kb(&l, LC_LAZYFREE), -1);
	/* the largest wins: invented 300 MiB of 400, creep 380 MiB */
	struct ledger_raw both = {.thps = 200,
				  .thps_sampled = 200,
				  .samples = 1600,
				  .zero_samples = 1200,
				  .creep_ranges = 190,
				  .creep_pages = 190 * 512};
	ledger_build(409600, &both, 0, 8, false, 511, 4, 9, &l);
	t.kb[SM_RSS] = 409600;
	t.kb[SM_ANON_HUGE] = 409600;
	ledger_smaps(&l, &t);
	assert_true(ledger_cost_flagged(&l, LC_INVENTED));
	assert_true(ledger_cost_flagged(&l, LC_CREEP));
	assert_int_equal(ledger_top_cost(&l), LC_CREEP);
}

/* The ledger block: mTHP bytes are never counted as underused; lazy free has its line. */
static void test_render_mthp_and_lazyfree(UNIT_STATE)
{
	struct ledger_raw raw = {.mthp_pages = {[4] = 4096}};
	struct thp_ledger l;
	ledger_build(0, &raw, 0, 8, true, 511, 4, 9, &l);
	struct smaps_totals t = {.present = 1u << SM_RSS | 1u << SM_LAZYFREE | 1u << SM_ANON_HUGE};
	t.kb[SM_RSS] = 20000;
	t.kb[SM_LAZYFREE] = 0;
	ledger_smaps(&l, &t);
	struct unit_mem m;
	ledger_render_lines(unit_mem_open(&m), &l, false);
	char *text = unit_mem_text(&m);
	assert_contains(text, "64kB folios 16.0 MiB");
	assert_contains(text, "mTHP folios are never counted as underused by the shrinker");
	assert_contains(text, "lazy free    0 kB");
	free(text);
	/* 64 KiB base pages (arm64): order 1 is a 128 kB folio (it said 8kB, keyed "8") */
	struct ledger_raw big = {.mthp_pages = {[1] = 4}};
	ledger_build(0, &big, 0, 8, true, 511, 64, 13, &l);
	ledger_render_lines(unit_mem_open(&m), &l, false);
	text = unit_mem_text(&m);
	assert_contains(text, "128kB folios 256 kB");
	assert_null(strstr(text, " 8kB folios"));
	free(text);
	json_t *jb = ledger_to_json(&l);
	assert_int_equal(json_integer_value(json_object_get(
				 json_object_get(jb, "mthp_kb_by_folio_kb"), "128")),
			 256);
	json_decref(jb);
	/* without mTHP folios: no such line */
	struct ledger_raw none = {0};
	ledger_build(0, &none, 0, 8, true, 511, 4, 9, &l);
	ledger_render_lines(unit_mem_open(&m), &l, false);
	text = unit_mem_text(&m);
	assert_null(strstr(text, "mTHP folios are never"));
	assert_contains(text, "lazy free    -"); /* not from smaps here: unknown, not 0 */
	free(text);
	/* held and lazy free flagged: their lines say so (only invented's did), the lazy-free
	 * line is one sentence for the stdout filter to wrap, and JSON has a flag for each */
	t.kb[SM_RSS] = 200000;
	t.kb[SM_LAZYFREE] = 100000;
	ledger_smaps(&l, &t);
	l.held_kb = 100000;
	l.partial_folios = 50;
	ledger_render_lines(unit_mem_open(&m), &l, false);
	text = unit_mem_text(&m);
	assert_contains(text, "or at exit: FLAGGED, over 25% of RSS plus held and over 16 MiB\n");
	assert_contains(text, "counted in RSS and in the memory cgroup; reclaimed only under "
			      "memory pressure: FLAGGED, over 25% of RSS and over 16 MiB\n");
	free(text);
	json_t *j = ledger_to_json(&l);
	assert_true(json_is_true(json_object_get(j, "held_flagged")));
	assert_true(json_is_true(json_object_get(j, "lazyfree_flagged")));
	assert_true(json_is_false(json_object_get(j, "creep_flagged")));
	json_decref(j);
	l.held_kb = -1; /* unknown: null, never false */
	j = ledger_to_json(&l);
	assert_true(json_is_null(json_object_get(j, "held_flagged")));
	json_decref(j);
}

/*
 * The invented line names its method: a sampled estimate says what was read and that a
 * written subpage no read fell on counts as never written (a trial read "100% of huge-backed
 * never written" for THPs whose first 4 KiB was written); an exact count never rounds a
 * share with written subpages up to 100%.
 */
static void test_render_invented_names_its_method(UNIT_STATE)
{
	/* 32 THPs with one byte written at their start: 8 reads each, none fell on it */
	struct ledger_raw raw = {
		.thps = 32, .thps_sampled = 32, .samples = 256, .zero_samples = 256};
	struct thp_ledger l;
	ledger_build(65536, &raw, 0, 8, false, 511, 4, 9, &l);
	assert_int_equal(l.invented_kb, 65536);
	assert_int_equal(l.samples, 256);
	assert_int_equal(l.zero_samples, 256);
	struct unit_mem m;
	ledger_render_lines(unit_mem_open(&m), &l, false);
	char *text = unit_mem_text(&m);
	assert_null(strstr(text, "of huge-backed never written"));
	assert_contains(text, "~64.0 MiB  an estimate: 256 of the 256 subpages read were all-zero "
			      "(100%), counted as never written: 8 of each THP's 512, one at a "
			      "random offset in each 64, 32 of 32 THPs sampled, /proc/PID/mem; a "
			      "written subpage no read fell on counts as never written (every one: "
			      "thpctl maps PID --underused): FLAGGED");
	free(text);
	json_t *j = ledger_to_json(&l);
	assert_int_equal(json_integer_value(json_object_get(j, "invented_subpages_read")), 256);
	assert_int_equal(json_integer_value(json_object_get(j, "invented_subpages_zero")), 256);
	json_decref(j);
	/* one read fell on a written subpage: 99.6%, not rounded up to 100% */
	raw.zero_samples = 255;
	ledger_build(65536, &raw, 0, 8, false, 511, 4, 9, &l);
	ledger_render_lines(unit_mem_open(&m), &l, false);
	text = unit_mem_text(&m);
	assert_contains(text, "255 of the 256 subpages read were all-zero (99.6%)");
	free(text);
	/* exact (every subpage, maps --underused): 16352 of 16384 is 99.8% of huge-backed */
	l.method = LM_EXACT;
	l.invented_kb = 16352 * 4;
	ledger_render_lines(unit_mem_open(&m), &l, false);
	text = unit_mem_text(&m);
	assert_contains(text, "99.8% of huge-backed never written (all-zero subpages; exact, "
			      "every subpage of 32 THPs read");
	free(text);
	j = ledger_to_json(&l);
	assert_true(json_is_null(json_object_get(j, "invented_subpages_read")));
	json_decref(j);
}

/* Held from the host's counters: 1 only when every partial count and every sub-PMD nr_anon is 0. */
static void test_host_counters_say_no_held(UNIT_STATE)
{
	char dir[] = "/tmp/thpctl-noheld.XXXXXX";
	assert_non_null(mkdtemp(dir));
	static const char *const sizes[] = {"64kB", "2048kB"};
	char rel[128];
	for (int i = 0; i < 2; i++) {
		snprintf(rel, sizeof(rel),
			 "sys/kernel/mm/transparent_hugepage/hugepages-%s/enabled", sizes[i]);
		unit_put_deep(dir, rel, "always inherit madvise [never]\n");
		snprintf(
			rel, sizeof(rel),
			"sys/kernel/mm/transparent_hugepage/hugepages-%s/stats/nr_anon_partially_mapped",
			sizes[i]);
		unit_put_deep(dir, rel, "0\n");
		snprintf(rel, sizeof(rel),
			 "sys/kernel/mm/transparent_hugepage/hugepages-%s/stats/nr_anon", sizes[i]);
		unit_put_deep(dir, rel, i ? "7\n" : "0\n"); /* PMD-size THPs are not mTHP */
	}
	/* a size for files only (8kB on 6.18): no anon policy, no anon counters */
	unit_put_deep(dir, "sys/kernel/mm/transparent_hugepage/hugepages-8kB/stats/split", "0\n");
	struct sysroot sr;
	assert_int_equal(sysroot_open(&sr, dir), 0);
	assert_int_equal(ledger_host_no_held(&sr, 2048), 1);
	/* one 64kB mTHP anywhere: the walk decides */
	unit_put(dir, "sys/kernel/mm/transparent_hugepage/hugepages-64kB/stats/nr_anon", "1\n");
	assert_int_equal(ledger_host_no_held(&sr, 2048), 0);
	unit_put(dir, "sys/kernel/mm/transparent_hugepage/hugepages-64kB/stats/nr_anon", "0\n");
	/* one partially mapped PMD-size folio */
	unit_put(
		dir,
		"sys/kernel/mm/transparent_hugepage/hugepages-2048kB/stats/nr_anon_partially_mapped",
		"3\n");
	assert_int_equal(ledger_host_no_held(&sr, 2048), 0);
	/* damaged: not a number, never taken as 0 */
	unit_put(
		dir,
		"sys/kernel/mm/transparent_hugepage/hugepages-2048kB/stats/nr_anon_partially_mapped",
		"x\n");
	assert_int_equal(ledger_host_no_held(&sr, 2048), -EINVAL);
	/* a kernel before 6.12: an anon size without the count */
	unit_put(
		dir,
		"sys/kernel/mm/transparent_hugepage/hugepages-2048kB/stats/nr_anon_partially_mapped",
		"0\n");
	snprintf(
		rel, sizeof(rel),
		"%s/sys/kernel/mm/transparent_hugepage/hugepages-64kB/stats/nr_anon_partially_mapped",
		dir);
	assert_int_equal(unlink(rel), 0);
	assert_int_equal(ledger_host_no_held(&sr, 2048), -ENOENT);
	unit_tree_remove(dir, &sr);

	/* the ledger then says 0 held, from the counters, and no mTHP line */
	struct ledger_raw raw = {.mthp_pages = {[4] = 16}};
	struct thp_ledger l;
	ledger_build(0, &raw, 0, 8, false, 511, 4, 9, &l);
	ledger_held_none(&l);
	assert_int_equal(l.held_kb, 0);
	assert_int_equal(l.held_gap, LG_OK);
	assert_int_equal(l.mthp_kb[4], 0);
	struct unit_mem m;
	ledger_render_lines(unit_mem_open(&m), &l, false);
	char *text = unit_mem_text(&m);
	assert_contains(text, "held         0 kB  (nothing is held anywhere: the host has no "
			      "partially mapped anonymous THP and no anonymous mTHP when read");
	assert_contains(text, "nr_anon_partially_mapped and nr_anon");
	assert_null(strstr(text, "mTHP folios are never"));
	free(text);
}

static void test_whole_only_when_every_part_asked_is_known(UNIT_STATE)
{
	struct thp_ledger l = {.invented_gap = LG_OK, .held_gap = LG_NOT_ASKED, .creep_gap = LG_OK};
	assert_true(ledger_whole(&l));
	static const enum ledger_gap gaps[] = {LG_DENIED, LG_NO_SCAN, LG_BUDGET, LG_ERROR,
					       LG_RECORDED};
	for (size_t i = 0; i < sizeof(gaps) / sizeof(gaps[0]); i++) {
		struct thp_ledger a = l, b = l, c = l;
		a.invented_gap = gaps[i];
		b.held_gap = gaps[i];
		c.creep_gap = gaps[i];
		assert_false(ledger_whole(&a));
		assert_false(ledger_whole(&b));
		assert_false(ledger_whole(&c));
	}
}

/*
 * A region marked MADV_NOHUGEPAGE (nh) and written in full: never huge, not even by
 * MADV_COLLAPSE, so its fully written PMD ranges are no gain (a `would gain` for memory the
 * program opted out). Scans this process live (PAGEMAP_SCAN, 6.7+: skipped without it).
 */
static void test_nh_ranges_are_no_gain(UNIT_STATE)
{
	size_t pmd = 2u << 20, len = 2 * pmd;
	char *m = mmap(NULL, len + pmd, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(m != MAP_FAILED);
	char *p = (char *)(((uintptr_t)m + pmd - 1) & ~(uintptr_t)(pmd - 1));
	assert_int_equal(madvise(p, len, MADV_NOHUGEPAGE), 0);
	memset(p, 1, len);
	struct smaps_vma sv = {.start = (uintptr_t)p, .end = (uintptr_t)p + len, .name = ""};
	sv.has_vmflags = true;
	sv.vmflags = VMF_NH;
	struct ledger_vmas lv = {0};
	ledger_vmas_add(&lv, &sv, "madvise");
	assert_int_equal(lv.n, 1);
	assert_true(lv.v[0].nh);
	struct sysroot sr;
	assert_int_equal(sysroot_open(&sr, NULL), 0);
	struct ledger_opts o = {
		.max_ptes_none = 511, .page = (unsigned)sysconf(_SC_PAGESIZE), .pmd_order = 9};
	struct ledger_raw raw;
	int e = ledger_scan(&sr, getpid(), lv.v, lv.n, &o, &raw);
	if (!e && !raw.scan_err && o.page == 4096) {
		assert_int_equal(raw.pte_full_ranges, 0);
		/* the same pages without the nh mark: two fully written ranges */
		lv.v[0].nh = 0;
		assert_int_equal(ledger_scan(&sr, getpid(), lv.v, lv.n, &o, &raw), 0);
		assert_int_equal(raw.pte_full_ranges, 2);
	}
	sysroot_close(&sr);
	ledger_vmas_free(&lv);
	munmap(m, len + pmd);
}

/*
 * Creep at max_ptes_none=511 and what of it stays at PMD/8 (64): three ranges, 1, 460 and 512
 * pages written: 511 + 52 pages at 511; at 64 only the range with 52 empty pages is still
 * filled. Scans this process live (PAGEMAP_SCAN, 6.7+: skipped without it); the region is nh
 * so that no fault makes it huge, and marked a creep candidate by hand.
 */
static void test_creep_at_an_eighth_counts_the_ranges_still_filled(UNIT_STATE)
{
	size_t pmd = 2u << 20, len = 3 * pmd, pg = 4096;
	char *m = mmap(NULL, len + pmd, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(m != MAP_FAILED);
	char *p = (char *)(((uintptr_t)m + pmd - 1) & ~(uintptr_t)(pmd - 1));
	assert_int_equal(madvise(p, len, MADV_NOHUGEPAGE), 0);
	p[0] = 1;
	memset(p + pmd, 1, 460 * pg);
	memset(p + 2 * pmd, 1, pmd);
	struct ledger_vma v = {.start = (uintptr_t)p, .end = (uintptr_t)p + len, .creep = 1};
	struct sysroot sr;
	assert_int_equal(sysroot_open(&sr, NULL), 0);
	struct ledger_opts o = {
		.max_ptes_none = 511, .page = (unsigned)sysconf(_SC_PAGESIZE), .pmd_order = 9};
	struct ledger_raw raw;
	int e = ledger_scan(&sr, getpid(), &v, 1, &o, &raw);
	if (!e && !raw.scan_err && o.page == pg) {
		assert_int_equal(raw.creep_ranges, 2);
		assert_int_equal(raw.creep_pages, 511 + 52);
		assert_int_equal(raw.creep_pages_eighth, 52);
		struct thp_ledger l;
		ledger_build(0, &raw, 0, 8, false, 511, 4, 9, &l);
		assert_int_equal(l.creep_kb, 563 * 4);
		assert_int_equal(l.creep_eighth_kb, 52 * 4);
		/* already below an eighth: what stays is the creep at that value */
		o.max_ptes_none = 40;
		assert_int_equal(ledger_scan(&sr, getpid(), &v, 1, &o, &raw), 0);
		assert_int_equal(raw.creep_pages, 0);
		assert_int_equal(raw.creep_pages_eighth, 0);
	}
	sysroot_close(&sr);
	munmap(m, len + pmd);
}

UNIT_TESTS(test_nh_ranges_are_no_gain, test_creep_at_an_eighth_counts_the_ranges_still_filled,
	   test_render_invented_names_its_method, test_whole_only_when_every_part_asked_is_known,
	   test_samples_fall_one_per_stratum, test_samples_differ_between_thps,
	   test_creep_is_what_khugepaged_may_add, test_folio_found_from_a_tail,
	   test_partial_folios_hold_their_unmapped_pages, test_whole_folios_do_not_pile_up,
	   test_build_estimates_invented_from_samples, test_build_says_unknown_never_zero,
	   test_bloat_needs_a_quarter_and_16_mib, test_largest_cost_past_its_threshold,
	   test_render_mthp_and_lazyfree, test_host_counters_say_no_held)
