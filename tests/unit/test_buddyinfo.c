// SPDX-License-Identifier: MIT
/* Unit tests: src/kernel/buddyinfo.c (/proc/buddyinfo). */
#include "unit.h"

#include "kernel/buddyinfo.h"
#include "kernel/sysroot.h"

/* A 6.18 x86-64 guest: MAX_PAGE_ORDER 10, 11 columns, a trailing blank on each line. */
static const char buddy_618[] =
	"Node 0, zone      DMA      0      0      0      0      0      0      0      0      1      1      3 \n"
	"Node 0, zone    DMA32      1      3      0      2      3      2      1      4      4      2    752 \n"
	"Node 0, zone   Normal    297    191    414    244    130     53     61     90     54     35    244 \n";

/* Parse TEXT (LEN bytes) into BI: it must succeed with NZONES zones and BAD bad lines. */
static void parse_ok(const char *text, size_t len, struct buddyinfo *bi, int nzones, int bad)
{
	assert_int_equal(buddyinfo_parse(text, len, bi), 0);
	assert_int_equal(bi->nzones, nzones);
	assert_int_equal(bi->bad, bad);
}

static void test_buddy_real(UNIT_STATE)
{
	struct buddyinfo bi;
	parse_ok(LIT(buddy_618), &bi, 3, 0);
	assert_int_equal(bi.zones[0].node, 0);
	assert_string_equal(bi.zones[0].zone, "DMA");
	assert_string_equal(bi.zones[1].zone, "DMA32");
	assert_string_equal(bi.zones[2].zone, "Normal");
	for (int i = 0; i < 3; i++)
		assert_int_equal(bi.zones[i].norders, 11);
	const struct buddy_zone *n = &bi.zones[2];
	assert_int_equal(n->free[0], 297);
	assert_int_equal(n->free[3], 244);
	assert_int_equal(n->free[9], 35);
	assert_int_equal(n->free[10], 244);
	assert_int_equal(bi.zones[1].free[10], 752);
}

static void test_buddy_at_least(UNIT_STATE)
{
	struct buddyinfo bi;
	assert_int_equal(buddyinfo_parse(LIT(buddy_618), &bi), 0);
	const struct buddy_zone *n = &bi.zones[2];
	/* PMD order 9 with 4 KiB pages */
	assert_int_equal(buddy_blocks_at_least(n, 9), 35 + 244);
	assert_int_equal(buddy_pages_at_least(n, 9), 35 * 512 + 244 * 1024);
	assert_int_equal(buddy_blocks_at_least(n, 10), 244);
	/* beyond the orders printed: nothing */
	assert_int_equal(buddy_blocks_at_least(n, 11), 0);
	assert_int_equal(buddy_pages_at_least(n, 11), 0);
	/* order 0 and below count everything */
	uint64_t all = 297 + 191 + 414 + 244 + 130 + 53 + 61 + 90 + 54 + 35 + 244;
	assert_int_equal(buddy_blocks_at_least(n, 0), all);
	assert_int_equal(buddy_blocks_at_least(n, -3), all);
	uint64_t pages = 297 + 191 * 2 + 414 * 4 + 244 * 8 + 130 * 16 + 53 * 32 + 61 * 64 +
			 90 * 128 + 54 * 256 + 35 * 512 + 244 * 1024;
	assert_int_equal(buddy_pages_at_least(n, 0), pages);
	const struct buddy_zone *dma = &bi.zones[0];
	assert_int_equal(buddy_pages_at_least(dma, 9), 512 + 3 * 1024);
}

/*
 * fuzz finding: sums of huge counts wrapped around to small plausible numbers; then they
 * saturated at 2^64-1, a number as wrong (issue 24): now exact, beyond 64 bits
 */
static void test_buddy_at_least_exact_beyond_u64(UNIT_STATE)
{
	struct buddyinfo bi;
	assert_int_equal(buddyinfo_parse(LIT("Node 0, zone   Normal 1 2 3 18446744073709551615 "
					     "155555555555555555 7\n"),
					 &bi),
			 0);
	const struct buddy_zone *z = &bi.zones[0];
	assert_int_equal(z->norders, 6);
	u128 max = UINT64_MAX;
	assert_true(buddy_blocks_at_least(z, 0) == 1 + 2 + 3 + max + 155555555555555555ull + 7);
	assert_true(buddy_blocks_at_least(z, 4) == 155555555555555555ull + 7);
	assert_true(buddy_blocks_at_least(z, 5) == 7);
	assert_true(buddy_pages_at_least(z, 4) == 155555555555555555ull * 16 + 7 * 32);
	assert_true(buddy_pages_at_least(z, 3) ==
		    max * 8 + (u128)155555555555555555ull * 16 + 7 * 32);
	assert_true(buddy_pages_at_least(z, 0) ==
		    1 + 2 * 2 + 3 * 4 + max * 8 + (u128)155555555555555555ull * 16 + 7 * 32);
	char d[40];
	fmt_u128(d, sizeof(d), buddy_pages_at_least(z, 3));
	assert_string_equal(d,
			    "150062841478565302024"); /* (2^64-1)*8 + 155555555555555555*16 + 224 */
	struct buddy_zone big = {.norders = 11};
	big.free[10] = (UINT64_MAX >> 10) + 1; /* fits in blocks, not in pages */
	assert_true(buddy_blocks_at_least(&big, 9) == (UINT64_MAX >> 10) + 1);
	assert_true(buddy_pages_at_least(&big, 9) == (u128)1 << 64);
	/* every order at 2^64-1: 16 orders, the largest sum there is */
	struct buddy_zone all = {.norders = BUDDY_MAX_ORDERS};
	for (int o = 0; o < BUDDY_MAX_ORDERS; o++)
		all.free[o] = UINT64_MAX;
	assert_true(buddy_blocks_at_least(&all, 0) == max * 16);
	assert_true(buddy_pages_at_least(&all, 0) == max * 65535);
}

static void test_buddy_numa_and_formats(UNIT_STATE)
{
	/* two nodes, 4 orders each; CRLF; a last line without its newline was cut: unknown */
	const char text[] = "Node 0, zone   Normal      1      2      3      4\r\n"
			    "Node 1, zone  Movable     10     20     30     40\n"
			    "Node 12, zone   Normal      5      6      7      8";
	struct buddyinfo bi;
	parse_ok(LIT(text), &bi, 2, 1);
	assert_int_equal(bi.zones[0].norders, 4);
	assert_int_equal(bi.zones[0].free[2], 3);
	assert_int_equal(bi.zones[1].node, 1);
	assert_string_equal(bi.zones[1].zone, "Movable");
	assert_int_equal(bi.zones[1].norders, 4);
	assert_int_equal(bi.zones[1].free[3], 40);
	/* zones of differing lengths: the shorter rows were cut short */
	const char mixed[] = "Node 0, zone   Normal      1      2      3\n"
			     "Node 1, zone  Movable     10     20     30     40\n";
	parse_ok(LIT(mixed), &bi, 1, 1);
	assert_string_equal(bi.zones[0].zone, "Movable");
	/* a row cut short showed 0 free blocks for its missing orders: now that zone is unknown */
	const char cut[] = "Node 0, zone      DMA      0 0 0 0 0 0 0 0 1 1 3\n"
			   "Node 0, zone    DMA32      5 4 3 2 1 0 0 0 0 1 2\n"
			   "Node 0, zone   Normal   1174 490 12\n";
	parse_ok(LIT(cut), &bi, 2, 1);
	assert_string_equal(bi.zones[1].zone, "DMA32");
	assert_int_equal(buddy_blocks_at_least(&bi.zones[1], 9), 3);
}

static void test_buddy_bad_lines(UNIT_STATE)
{
	char many[BUDDY_MAX_ORDERS * 4 + 64] = "Node 0, zone Normal";
	for (int i = 0; i <= BUDDY_MAX_ORDERS; i++)
		strcat(many, " 1");
	const char *bad[] = {
		"node 0, zone Normal 1 2 3",		      /* lowercase */
		"Node x, zone Normal 1 2 3",		      /* no node number */
		"Node 0 zone Normal 1 2 3",		      /* missing comma */
		"Node 0, Normal 1 2 3",			      /* missing "zone" */
		"Node 0, zone Normal",			      /* no counts */
		"Node 0, zone Normal 1 2 x",		      /* not a number */
		"Node 0, zone Normal 1 99999999999999999999", /* overflow */
		"Node 0, zone ThisZoneNameIsTooLong 1 2",     /* name >= 16 */
		"Node 70000, zone Normal 1",		      /* node out of range */
		many,					      /* more orders than fit */
	};
	for (size_t i = 0; i < UNIT_LEN(bad); i++) {
		char text[256];
		snprintf(text, sizeof(text), "%s\nNode 0, zone DMA 4 5\n", bad[i]);
		struct buddyinfo bi;
		assert_int_equal(buddyinfo_parse(text, strlen(text), &bi), 0);
		/* the bad line is counted and skipped; the good one kept */
		assert_int_equal(bi.bad, 1);
		assert_int_equal(bi.nzones, 1);
		assert_string_equal(bi.zones[0].zone, "DMA");
		assert_int_equal(bi.zones[0].free[1], 5);
		/* alone, nothing parses */
		assert_int_equal(buddyinfo_parse(bad[i], strlen(bad[i]), &bi), -EINVAL);
		assert_int_equal(bi.nzones, 0);
	}
	/* exactly BUDDY_MAX_ORDERS orders fit */
	many[strlen(many) - 2] = '\0';
	strcat(many, "\n"); /* a whole line ends in a newline */
	struct buddyinfo bi;
	assert_int_equal(buddyinfo_parse(many, strlen(many), &bi), 0);
	assert_int_equal(bi.zones[0].norders, BUDDY_MAX_ORDERS);
}

/* A zone listed twice is damage: both rows dropped, counted; the other zones kept. */
static void test_buddy_zone_twice(UNIT_STATE)
{
	static const char text[] = "Node 0, zone    DMA32      1      3      0 \n"
				   "Node 0, zone   Normal      1      0      1 \n"
				   "Node 1, zone   Normal      5      5      5 \n"
				   "Node 0, zone   Normal      9      9      9 \n";
	struct buddyinfo bi;
	assert_int_equal(buddyinfo_parse(LIT(text), &bi), 0);
	assert_int_equal(bi.dup, 1);
	assert_int_equal(bi.bad, 0);
	assert_int_equal(bi.nzones, 2);
	assert_string_equal(bi.zones[0].zone, "DMA32");
	assert_int_equal(bi.zones[1].node, 1);
	assert_int_equal(bi.zones[1].free[0], 5);
}

static void test_buddy_empty_and_too_many_zones(UNIT_STATE)
{
	struct buddyinfo bi;
	assert_int_equal(buddyinfo_parse(LIT(""), &bi), -EINVAL);
	assert_int_equal(bi.nzones, 0);
	assert_int_equal(buddyinfo_parse(LIT("\n\n"), &bi), -EINVAL);
	assert_int_equal(bi.bad, 0);

	char text[BUDDY_MAX_ZONES * 40 + 80];
	size_t n = 0;
	for (int i = 0; i < BUDDY_MAX_ZONES + 2; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "Node %d, zone Normal %d\n", i,
				      i);
	parse_ok(text, n, &bi, BUDDY_MAX_ZONES, 2);
	assert_int_equal(bi.zones[BUDDY_MAX_ZONES - 1].node, BUDDY_MAX_ZONES - 1);
	assert_int_equal(bi.zones[BUDDY_MAX_ZONES - 1].free[0], BUDDY_MAX_ZONES - 1);
}

static void test_buddy_live(UNIT_STATE)
{
	size_t len = 0;
	char *text = unit_slurp_ok("/proc/buddyinfo", &len);
	struct buddyinfo bi;
	assert_int_equal(buddyinfo_parse(text, len, &bi), 0);
	assert_true(bi.nzones >= 1);
	assert_int_equal(bi.bad, 0);
	uint64_t pages = 0;
	for (int i = 0; i < bi.nzones; i++) {
		assert_true(bi.zones[i].norders >= 9);
		pages += buddy_pages_at_least(&bi.zones[i], 0);
	}
	assert_true(pages > 0);
	free(text);
}

static void test_buddy_read_through_a_tree(UNIT_STATE)
{
	char root[64];
	struct sysroot sr;
	unit_tree(root, "buddy", (const char *const[]){"proc", NULL}, &sr);
	struct buddyinfo bi;
	assert_int_equal(buddyinfo_read(&sr, &bi), -ENOENT);
	assert_int_equal(bi.nzones, 0);
	unit_put(root, "proc/buddyinfo", buddy_618);
	assert_int_equal(buddyinfo_read(&sr, &bi), 0);
	assert_int_equal(bi.nzones, 3);
	assert_int_equal(bi.zones[1].free[10], 752);
	unit_put(root, "proc/buddyinfo", "");
	assert_int_equal(buddyinfo_read(&sr, &bi), -EINVAL);
	unit_put(root, "proc/buddyinfo", "Node 0, zone   Normal    297    19"); /* cut */
	assert_int_equal(buddyinfo_read(&sr, &bi), -EINVAL);
	unit_tree_remove(root, &sr);
}

UNIT_TESTS(test_buddy_zone_twice, test_buddy_real, test_buddy_at_least,
	   test_buddy_at_least_exact_beyond_u64, test_buddy_numa_and_formats, test_buddy_bad_lines,
	   test_buddy_empty_and_too_many_zones, test_buddy_live, test_buddy_read_through_a_tree)
