// SPDX-License-Identifier: MIT
/*
 * Unit tests: the folio classifier of src/kernel/pagemap.c on constructed
 * pagemap entries and kpageflags values (a PMD THP, 64K folios aligned and
 * not, folios cut by the VMA, file folios, the zero pages, swap, --cont).
 */
#include "unit.h"

#include "kernel/folio_int.h"
#include "kernel/pagemap.h"

/* A model of physical memory: kpageflags of PFNs PBASE .. PBASE + NPHYS - 1. */
#define PBASE 0x100000ULL /* 2048-aligned, as real folios are */
#define NPHYS 8192
#define VMAX 4096

static uint64_t phys[NPHYS];

struct vma {
	uint64_t vfn0;
	size_t n;
	uint64_t pm[VMAX], kf[VMAX], after[VMAX];
};

static struct vma V;

static void reset(uint64_t vfn0, size_t n)
{
	memset(phys, 0, sizeof(phys));
	memset(&V, 0, sizeof(V));
	V.vfn0 = vfn0;
	V.n = n;
}

/* A folio of 2^ORDER pages at physical index IDX with extra flags F (KPF_M_ANON...). */
static void phys_folio(size_t idx, int order, uint64_t f)
{
	size_t n = (size_t)1 << order;
	assert_true(idx % n == 0 && idx + n <= NPHYS);
	for (size_t i = 0; i < n; i++)
		phys[idx + i] =
			f | (order ? KPF_M_THP : 0) | (order ? (i ? KPF_M_TAIL : KPF_M_HEAD) : 0);
}

/* N folios of 2^ORDER pages with flags F, the first at physical index FIRST, STRIDE apart. */
static void phys_run(size_t first, size_t stride, int n, int order, uint64_t f)
{
	for (int i = 0; i < n; i++)
		phys_folio(first + (size_t)i * stride, order, f);
}

/* Map virtual page index VI (from vfn0) to physical index PI; FILE sets PM_FILE. */
static void map(size_t vi, size_t pi, bool file)
{
	V.pm[vi] = PM_PRESENT | (PBASE + pi) | (file ? PM_FILE : 0);
	V.kf[vi] = phys[pi];
	V.after[vi] = pi + 1 < NPHYS ? phys[pi + 1] : 0;
}

/* Map N virtual pages from VI to physical pages from PI. */
static void map_n(size_t vi, size_t pi, size_t n, bool file)
{
	for (size_t i = 0; i < n; i++)
		map(vi + i, pi + i, file);
}

/* Refresh kf/after after phys[] changed (the flags are read after the entries). */
static void reflag(void)
{
	for (size_t i = 0; i < V.n; i++) {
		if (!(V.pm[i] & PM_PRESENT))
			continue;
		uint64_t pi = (V.pm[i] & PM_PFN_MASK) - PBASE;
		V.kf[i] = phys[pi];
		V.after[i] = pi + 1 < NPHYS ? phys[pi + 1] : 0;
	}
}

/* Classify the whole VMA in pieces of PIECE pages (0: one piece). */
static void classify(uint64_t cont, size_t piece, struct folio_acct *c)
{
	struct folio_walk w;
	memset(c, 0, sizeof(*c));
	folio_walk_init(&w, cont);
	if (!piece)
		piece = V.n;
	for (size_t i = 0; i < V.n; i += piece) {
		size_t n = V.n - i < piece ? V.n - i : piece;
		folio_walk_feed(&w, V.vfn0 + i, n, V.pm + i, V.kf + i, V.after + i, c);
	}
	folio_walk_end(&w, c);
}

static uint64_t sum_orders(const uint64_t *a)
{
	uint64_t s = 0;
	for (int o = 0; o < FOLIO_ORDERS; o++)
		s += a[o];
	return s;
}

static void test_pmd_thp(UNIT_STATE)
{
	struct folio_acct c;
	reset(0x7f0000, 1024); /* vfn 0x7f0000 is 512-aligned */
	phys_folio(0, 9, KPF_M_ANON);
	phys_folio(512, 9, KPF_M_ANON);
	map_n(0, 512, 512, false); /* the second folio first: physical order is free */
	map_n(512, 0, 512, false);
	classify(0, 0, &c);
	assert_int_equal(c.aligned[FT_ANON][9], 1024);
	assert_int_equal(c.rss[FT_ANON], 1024);
	assert_int_equal(c.partial[FT_ANON], 0);
	assert_int_equal(sum_orders(c.unaligned[FT_ANON]), 0);
	/* no PAGEMAP_SCAN: smaps says both are PMD-mapped */
	folio_acct_split_pmd(&c, 9, 1024, 0);
	assert_int_equal(c.pmd[FT_ANON], 1024);
	assert_int_equal(c.aligned[FT_ANON][9], 0);
	assert_int_equal(folio_acct_order(&c, FT_ANON, 9, 9), 1024);
	assert_int_equal(folio_acct_thp(&c, FT_ANON), 1024);
	/* --cont 64K: the PMD-mapped THPs are whole blocks, counted as PMD-mapped */
	classify(16, 0, &c);
	assert_int_equal(c.cont_pte[FT_ANON], 1024);
	folio_acct_split_pmd(&c, 9, 1024, 0);
	assert_int_equal(c.cont_pte[FT_ANON], 0);
	/* a race: smaps reported more than pagemap found: clamped, never negative */
	folio_acct_split_pmd(&c, 9, 4096, 0);
	assert_int_equal(c.aligned[FT_ANON][9], 0);
}

static void test_64k_aligned(UNIT_STATE)
{
	struct folio_acct c;
	reset(0x1000, 64);
	for (int i = 0; i < 4; i++)
		phys_folio((size_t)(3 - i) * 16 + 64, 4, KPF_M_ANON); /* not physically in order */
	for (int i = 0; i < 4; i++)
		map_n((size_t)i * 16, (size_t)(3 - i) * 16 + 64, 16, false);
	classify(0, 0, &c);
	assert_int_equal(c.aligned[FT_ANON][4], 64);
	assert_int_equal(sum_orders(c.unaligned[FT_ANON]), 0);
	assert_int_equal(c.partial[FT_ANON], 0);
	/* physically contiguous folios form one range: same answer */
	reset(0x1000, 64);
	phys_run(0, 16, 4, 4, KPF_M_ANON);
	map_n(0, 0, 64, false);
	classify(0, 0, &c);
	assert_int_equal(c.aligned[FT_ANON][4], 64);
	assert_int_equal(c.partial[FT_ANON], 0);
}

static void test_64k_unaligned(UNIT_STATE)
{
	struct folio_acct c;
	/* mremap()ed 16 kB past a 64 kB boundary: every head's vfn is 4 mod 16 */
	reset(0x1004, 64);
	phys_run(0, 32, 4, 4, KPF_M_ANON);
	for (int i = 0; i < 4; i++)
		map_n((size_t)i * 16, (size_t)i * 32, 16, false);
	classify(16, 0, &c);
	assert_int_equal(c.unaligned[FT_ANON][4], 64);
	assert_int_equal(sum_orders(c.aligned[FT_ANON]), 0);
	assert_int_equal(c.cont_pte[FT_ANON], 0); /* no aligned 64K block */
}

static void test_cut_at_vma_start_and_end(UNIT_STATE)
{
	struct folio_acct c;
	/* the VMA starts 6 pages into a 64K folio and ends 10 pages into another */
	reset(0x2006, 10 + 32 + 10);
	phys_run(0, 16, 4, 4, KPF_M_ANON);
	map_n(0, 6, 10 + 32 + 10, false);
	classify(0, 0, &c);
	assert_int_equal(c.partial[FT_ANON], 10 + 10);
	assert_int_equal(c.aligned[FT_ANON][4], 32);
	assert_int_equal(c.rss[FT_ANON], 52);
	/* the same fed one page at a time */
	classify(0, 1, &c);
	assert_int_equal(c.partial[FT_ANON], 20);
	assert_int_equal(c.aligned[FT_ANON][4], 32);
}

static void test_punched_page(UNIT_STATE)
{
	struct folio_acct c;
	/* MADV_DONTNEED of the 6th page of each 64K folio: 15 pages of each left */
	reset(0x3000, 64);
	phys_run(0, 16, 4, 4, KPF_M_ANON);
	map_n(0, 0, 64, false);
	for (int i = 0; i < 4; i++)
		V.pm[i * 16 + 5] = 0;
	classify(0, 0, &c);
	assert_int_equal(c.partial[FT_ANON], 60);
	assert_int_equal(sum_orders(c.aligned[FT_ANON]), 0);
	assert_int_equal(c.rss[FT_ANON], 60);
	/* pieces of 7 pages: pieces end mid-folio, nothing changes */
	classify(0, 7, &c);
	assert_int_equal(c.partial[FT_ANON], 60);
}

static void test_file_folios(UNIT_STATE)
{
	struct folio_acct c;
	/* page cache: 8K (order 1, which thpmaps drops), 32K, 128K, no KPF_ANON */
	reset(0x4000, 2 + 8 + 32 + 6);
	phys_folio(2, 1, 0);
	phys_folio(8, 3, 0);
	phys_folio(32, 5, 0);
	map_n(0, 2, 2, true);
	map_n(2, 8, 8, true);
	map_n(10, 32, 32, true);
	classify(0, 0, &c);
	/* vfn 0x4000 aligned for 8K; 0x4002 not 32K-aligned; 0x400a not 128K-aligned */
	assert_int_equal(c.aligned[FT_FILE][1], 2);
	assert_int_equal(c.unaligned[FT_FILE][3], 8);
	assert_int_equal(c.unaligned[FT_FILE][5], 32);
	assert_int_equal(c.rss[FT_FILE], 42);
	assert_int_equal(c.rss[FT_ANON], 0);
	assert_int_equal(folio_acct_thp(&c, FT_ANON), 0);
	/* the unmapped tail of the VMA (6 pages) changes nothing */
	assert_int_equal(folio_acct_thp(&c, FT_FILE), 42);
}

static void test_zero_pages(UNIT_STATE)
{
	struct folio_acct c;
	/* the huge zero page: HEAD/TAIL + THP + ZERO_PAGE, PMD-mapped, read-only */
	reset(0x200000, 512 + 8);
	phys_folio(0, 9, KPF_M_ZERO);
	map_n(0, 0, 512, false);
	/* the small zero page, mapped 8 times */
	phys[1000] = KPF_M_ZERO;
	for (int i = 0; i < 8; i++)
		map(512 + (size_t)i, 1000, false);
	classify(0, 0, &c);
	assert_int_equal(c.zero_pmd, 512);
	assert_int_equal(c.zero_pte, 8);
	assert_int_equal(c.rss[FT_ANON] + c.rss[FT_FILE], 0);
	assert_int_equal(folio_acct_thp(&c, FT_FILE), 0); /* thpmaps: file THP */
	assert_int_equal(folio_acct_thp(&c, FT_ANON), 0);
}

static void test_swapped_entries(UNIT_STATE)
{
	struct folio_acct c;
	/* a 64K folio with 2 pages swapped out; swap entries carry type/offset, no PFN */
	reset(0x5000, 16);
	phys_folio(0, 4, KPF_M_ANON);
	map_n(0, 0, 16, false);
	V.pm[3] = PM_SWAP | (0x1234ULL << 5) | 1;
	V.pm[9] = PM_SWAP | (0x1235ULL << 5) | 1;
	classify(0, 0, &c);
	assert_int_equal(c.swap, 2);
	assert_int_equal(c.rss[FT_ANON], 14);
	assert_int_equal(c.partial[FT_ANON], 14);
	assert_int_equal(sum_orders(c.aligned[FT_ANON]), 0);
}

static void test_small_pages_break_ranges(UNIT_STATE)
{
	struct folio_acct c;
	/* small pages, a 16K folio, small pages, a 16K folio whose physical
	 * successor is a small page: everything contiguous */
	reset(0x6000, 16);
	phys_folio(4, 2, KPF_M_ANON);
	phys_folio(12, 2, KPF_M_ANON);
	for (size_t i = 0; i < 16; i++)
		if (!phys[i])
			phys[i] = KPF_M_ANON;
	map_n(0, 0, 16, false);
	classify(0, 0, &c);
	assert_int_equal(c.aligned[FT_ANON][2], 8);
	assert_int_equal(c.partial[FT_ANON], 0);
	assert_int_equal(c.rss[FT_ANON], 16);
}

static void test_hugetlb_not_thp(UNIT_STATE)
{
	struct folio_acct c;
	reset(0x400, 512);
	for (size_t i = 0; i < 512; i++)
		phys[i] = KPF_M_HUGE | (i ? KPF_M_TAIL : KPF_M_HEAD);
	map_n(0, 0, 512, false);
	classify(0, 0, &c);
	assert_int_equal(c.hugetlb, 512);
	assert_int_equal(c.rss[FT_ANON], 0);
	assert_int_equal(folio_acct_thp(&c, FT_ANON), 0);
}

static void test_order_rule_of_thpmaps(UNIT_STATE)
{
	struct folio_acct c;
	/* heads 12 pages apart (not a real layout: an 8-page folio and then
	 * unflagged tails): thpmaps counts 1 << floor(log2(12)) = 8 pages */
	reset(0x7000, 16);
	phys_folio(0, 4, KPF_M_ANON);
	phys[12] = KPF_M_ANON | KPF_M_THP | KPF_M_HEAD;
	map_n(0, 0, 16, false);
	classify(0, 0, &c);
	assert_int_equal(c.aligned[FT_ANON][3], 8);
	assert_int_equal(c.aligned[FT_ANON][2], 4);
}

static void test_cont_blocks(UNIT_STATE)
{
	struct folio_acct c;
	/* a 128K folio (2 x 64K blocks), 4 x 16K folios (no 64K block: heads
	 * inside), a 64K folio physically misaligned to its virtual address */
	reset(0x8000, 32 + 16 + 16);
	phys_folio(0, 5, KPF_M_ANON);
	phys_run(64, 4, 4, 2, KPF_M_ANON);
	phys_folio(128, 4, KPF_M_ANON);
	map_n(0, 0, 32, false);
	map_n(32, 64, 16, false);
	map_n(48, 128, 16, false);
	classify(16, 0, &c);
	assert_int_equal(c.cont_pte[FT_ANON], 32 + 16); /* vfn 0x8030 and pfn ..80 agree mod 16 */
	classify(16, 5, &c);
	assert_int_equal(c.cont_pte[FT_ANON], 48);
	/* shift the physical address of the last folio by 4 pages: no block */
	reset(0x8000, 16);
	phys_folio(128, 2, KPF_M_ANON);
	phys_folio(132, 2, KPF_M_ANON);
	phys_folio(136, 3, KPF_M_ANON);
	map_n(0, 132, 12, false);
	classify(16, 0, &c);
	assert_int_equal(c.cont_pte[FT_ANON], 0);
	/* 2 blocks of 16K inside one aligned 64K folio cut at the end: blocks
	 * count whole blocks of one folio, even of a partially mapped folio */
	reset(0x9000, 10);
	phys_folio(0, 4, KPF_M_ANON);
	map_n(0, 0, 10, false);
	classify(4, 0, &c);
	assert_int_equal(c.cont_pte[FT_ANON], 8);
	assert_int_equal(c.partial[FT_ANON], 10);
}

static void test_pieces_equal_whole(UNIT_STATE)
{
	struct folio_acct a, b;
	/* a mixed layout, classified whole and in pieces of every size 1..70 */
	reset(0xa003, 300);
	size_t p = 0;
	for (int k = 0; k < 20; k++) {
		int order = k % 5;
		size_t sz = (size_t)1 << order;
		p = (p + sz - 1) & ~(sz - 1);
		phys_folio(p, order, (k % 3) ? KPF_M_ANON : 0);
		p += sz + (k % 2) * sz;
	}
	for (size_t i = 0; i < 300; i++)
		map(i, (i * 5 / 4) % 700, (i / 50) % 2);
	reflag();
	V.pm[77] = 0;
	V.pm[150] = PM_SWAP | 7;
	classify(16, 0, &a);
	for (size_t piece = 1; piece <= 70; piece++) {
		classify(16, piece, &b);
		assert_memory_equal(&a, &b, sizeof(a));
	}
}

static void test_counts_add(UNIT_STATE)
{
	struct folio_acct a = {0}, b = {0};
	a.pmd[FT_ANON] = 512;
	a.aligned[FT_FILE][3] = 8;
	a.zero_pte = 1;
	b.pmd[FT_ANON] = 512;
	b.unaligned[FT_ANON][4] = 16;
	b.swap = 3;
	folio_acct_add(&b, &a);
	assert_int_equal(b.pmd[FT_ANON], 1024);
	assert_int_equal(b.aligned[FT_FILE][3], 8);
	assert_int_equal(b.unaligned[FT_ANON][4], 16);
	assert_int_equal(b.zero_pte, 1);
	assert_int_equal(b.swap, 3);
	assert_int_equal(folio_acct_thp(&b, FT_ANON), 1040);
	assert_int_equal(folio_acct_order(&b, FT_ANON, 4, 9), 16);
	assert_int_equal(folio_acct_order(&b, FT_ANON, 99, 9), 0);
}

/* The proof's break-even order from timed reads (two kernels measured by bench/folios.sh). */
static void test_probe_order_from_timings(void **state)
{
	(void)state;
	/* ~150 ns a frame, 1.5 us a call: two calls (3 us) < 2^5 frames (4.8 us), not 2^4 (2.4) */
	assert_int_equal(folio_probe_order_for(1500, 1500 + 1023 * 150, 1024), 5);
	/* ~30 ns a frame, 1 us a call: 2 us < 2^7 * 30 = 3.84 us, not 2^6 (1.92) */
	assert_int_equal(folio_probe_order_for(1000, 1000 + 1023 * 30, 1024), 7);
	/* dear frames: from the lowest order allowed */
	assert_int_equal(folio_probe_order_for(100, 100 + 1023 * 1000, 1024),
			 FOLIO_PROBE_MIN_ORDER);
	/* frames free (or the span timed no slower than one call): never prove */
	assert_int_equal(folio_probe_order_for(1000, 900, 1024), 64);
	assert_int_equal(folio_probe_order_for(1000, 1000, 1024), 64);
	assert_int_equal(folio_probe_order_for(1000, 5000, 1), 64);
	/* a frame a hundred-millionth of a call: past order 30, never */
	assert_int_equal(folio_probe_order_for(1000000000, 1000000000 + 1023, 1024), 64);
}

UNIT_TESTS(test_pmd_thp, test_64k_aligned, test_64k_unaligned, test_cut_at_vma_start_and_end,
	   test_punched_page, test_file_folios, test_zero_pages, test_swapped_entries,
	   test_small_pages_break_ranges, test_hugetlb_not_thp, test_order_rule_of_thpmaps,
	   test_cont_blocks, test_pieces_equal_whole, test_counts_add,
	   test_probe_order_from_timings)
