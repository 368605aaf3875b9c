// SPDX-License-Identifier: MIT
/*
 * Unit tests: kernel/numa.c (CPU lists, the PFN -> node mapping by memory
 * block, the recorded two-node tree) and model/numa.c (the remote-THP finding).
 */
#include "unit.h"

#include "kernel/numa.h"
#include "model/numa.h"

#define PAGE 4096ull
#define BLOCK (128ull << 20) /* 32768 pages */

static void test_cpulist(UNIT_STATE)
{
	struct cpuset s;
	assert_int_equal(cpulist_parse("0-3,8,10-11\n", 12, &s), 0);
	for (unsigned c = 0; c < 16; c++)
		assert_int_equal(cpuset_has(&s, c), c <= 3 || c == 8 || c == 10 || c == 11);
	assert_int_equal(cpulist_parse("\n", 1, &s), 0); /* a memory-only node */
	assert_false(cpuset_has(&s, 0));
	assert_int_equal(cpulist_parse("1023", 4, &s), 0);
	assert_true(cpuset_has(&s, 1023));
	assert_int_equal(cpulist_parse("1024", 4, &s), -EINVAL);
	assert_int_equal(cpulist_parse("3-1", 3, &s), -EINVAL);
	assert_int_equal(cpulist_parse("0,,1", 4, &s), -EINVAL);
	assert_int_equal(cpulist_parse("0-", 2, &s), -EINVAL);
	assert_int_equal(cpulist_parse("x", 1, &s), -EINVAL);
}

static void test_pfn_to_node(UNIT_STATE)
{
	struct numa_nodes m = {.block_bytes = BLOCK};
	/* added out of order, as readdir gives them: node1 8-15, node0 0-7, node1 20 */
	for (uint64_t b = 8; b < 16; b++)
		assert_int_equal(numa_map_add(&m, b, 1), 0);
	assert_int_equal(numa_map_add(&m, 20, 1), 0);
	for (uint64_t b = 7; b < 8; b--)
		assert_int_equal(numa_map_add(&m, b, 0), 0);
	numa_map_finish(&m);
	assert_int_equal(m.n, 3); /* 0-7, 8-15, 20 */
	uint64_t ppb = BLOCK / PAGE;
	assert_int_equal(numa_node_of_pfn(&m, 0, PAGE), 0);
	assert_int_equal(numa_node_of_pfn(&m, 8 * ppb - 1, PAGE), 0); /* last page of block 7 */
	assert_int_equal(numa_node_of_pfn(&m, 8 * ppb, PAGE), 1);     /* first of block 8 */
	assert_int_equal(numa_node_of_pfn(&m, 16 * ppb - 1, PAGE), 1);
	assert_int_equal(numa_node_of_pfn(&m, 16 * ppb, PAGE), -1); /* the hole 16-19 */
	assert_int_equal(numa_node_of_pfn(&m, 20 * ppb + 5, PAGE), 1);
	assert_int_equal(numa_node_of_pfn(&m, 21 * ppb, PAGE), -1); /* past the end */
	/* 64 KiB pages: fewer pages per block */
	assert_int_equal(numa_node_of_pfn(&m, BLOCK / 65536 * 8, 65536), 1);
	/* no block size: unknown, never node 0 */
	m.block_bytes = 0;
	assert_int_equal(numa_node_of_pfn(&m, 0, PAGE), -1);
	numa_nodes_free(&m);
}

static struct folio_acct mkacct(uint64_t n0, uint64_t n1, uint64_t unknown)
{
	struct folio_acct c = {0};
	c.thp_node[0] = n0;
	c.thp_node[1] = n1;
	c.thp_node_unknown = unknown;
	return c;
}

static void test_remote(UNIT_STATE)
{
	struct numa_nodes m = {.nnodes = 2, .id = {0, 1}, .has_cpus = {true, true}};
	cpulist_parse("0-3", 3, &m.cpus[0]);
	cpulist_parse("4-7", 3, &m.cpus[1]);
	struct cpuset on0, on1, both;
	cpulist_parse("1", 1, &on0);
	cpulist_parse("5-6", 3, &on1);
	cpulist_parse("0-7", 3, &both);
	struct numa_split s;
	/* 80% on node 1, threads on node 0 only: flagged */
	struct folio_acct c = mkacct(100, 400, 0);
	numa_split_build(&c, &m, &on0, &s);
	assert_int_equal(s.remote_thp, NUMA_YES);
	assert_int_equal(s.allowed, 1);
	assert_int_equal(s.remote, 400);
	assert_float_equal(s.remote_share, 0.8, 1e-9);
	/* the same pages, threads on node 1: not */
	numa_split_build(&c, &m, &on1, &s);
	assert_int_equal(s.remote_thp, NUMA_NO);
	assert_int_equal(s.remote, 100);
	/* allowed everywhere: nothing is remote */
	numa_split_build(&c, &m, &both, &s);
	assert_int_equal(s.remote_thp, NUMA_NO);
	assert_int_equal(s.allowed, 3);
	/* exactly half is not "mostly" */
	c = mkacct(250, 250, 0);
	numa_split_build(&c, &m, &on0, &s);
	assert_int_equal(s.remote_thp, NUMA_NO);
	/* 40% remote known, 20% of unknown node: could be 60%: inconclusive */
	c = mkacct(40, 40, 20);
	numa_split_build(&c, &m, &on0, &s);
	assert_int_equal(s.remote_thp, NUMA_UNKNOWN);
	assert_int_equal(s.why_unknown, NU_UNKNOWN_TIPS);
	/* allowed CPUs unknown: inconclusive; no THP: no */
	c = mkacct(0, 10, 0);
	numa_split_build(&c, &m, NULL, &s);
	assert_int_equal(s.remote_thp, NUMA_UNKNOWN);
	assert_int_equal(s.why_unknown, NU_NO_ALLOWED);
	c = mkacct(0, 0, 0);
	numa_split_build(&c, &m, &on0, &s);
	assert_int_equal(s.remote_thp, NUMA_NO);
	/* no cpulist read for any node */
	m.has_cpus[0] = m.has_cpus[1] = false;
	c = mkacct(0, 10, 0);
	numa_split_build(&c, &m, &on0, &s);
	assert_int_equal(s.remote_thp, NUMA_UNKNOWN);
	assert_int_equal(s.why_unknown, NU_NO_CPULIST);
	/* why per-node figures may be missing altogether */
	assert_int_equal(numa_missing(&m, true), NM_NO_PFNS);
	assert_int_equal(numa_missing(NULL, false), NM_NO_NODES);
}

/* The recorded two-node tree (scripts/derive-fixtures numa-2node-x86). */
static void test_two_node_tree(UNIT_STATE)
{
	struct sysroot sr;
	assert_int_equal(sysroot_open(&sr, "tests/fixtures/numa-2node-x86"), 0);
	struct numa_nodes m = {0};
	assert_int_equal(numa_nodes_read(&sr, &m), 0);
	assert_int_equal(m.nnodes, 2);
	assert_int_equal(m.block_bytes, BLOCK);
	assert_true(m.has_cpus[0] && m.has_cpus[1]);
	assert_true(cpuset_has(&m.cpus[1], 1));
	assert_false(cpuset_has(&m.cpus[1], 0));
	uint64_t ppb = BLOCK / PAGE;
	assert_int_equal(numa_node_of_pfn(&m, 15 * ppb, PAGE), 0);
	assert_int_equal(numa_node_of_pfn(&m, 16 * ppb, PAGE), 1);
	assert_int_equal(numa_node_of_pfn(&m, 35 * ppb, PAGE), -1); /* the hole */
	assert_int_equal(numa_node_of_pfn(&m, 40 * ppb + 1, PAGE), 1);
	/* the layout helper (30730) is pinned to CPU 1, init may run on 0-1 */
	struct cpuset a;
	assert_int_equal(numa_proc_allowed(&sr, 30730, &a), 0);
	assert_true(cpuset_has(&a, 1));
	assert_false(cpuset_has(&a, 0));
	assert_int_equal(numa_proc_allowed(&sr, 1, &a), 0);
	assert_true(cpuset_has(&a, 0) && cpuset_has(&a, 1));
	assert_int_equal(numa_proc_allowed(&sr, 99999, &a), -ESRCH);
	/* its 8 MiB of THP on node 0 would be remote; on node 1 not */
	struct folio_acct c = mkacct(2048, 0, 0);
	struct numa_split s;
	assert_int_equal(numa_proc_allowed(&sr, 30730, &a), 0);
	numa_split_build(&c, &m, &a, &s);
	assert_int_equal(s.remote_thp, NUMA_YES);
	c = mkacct(0, 2048, 0);
	numa_split_build(&c, &m, &a, &s);
	assert_int_equal(s.remote_thp, NUMA_NO);
	numa_nodes_free(&m);
	/* the single-node 6.18 tree: one node, no block map recorded */
	sysroot_close(&sr);
	assert_int_equal(sysroot_open(&sr, "tests/fixtures/linux-6.18-x86"), 0);
	assert_int_equal(numa_nodes_read(&sr, &m), 0);
	assert_int_equal(m.nnodes, 1);
	assert_int_equal(numa_node_of_pfn(&m, 0, PAGE), -1);
	numa_nodes_free(&m);
	sysroot_close(&sr);
}

UNIT_TESTS(test_cpulist, test_pfn_to_node, test_remote, test_two_node_tree)
