// SPDX-License-Identifier: MIT
/* Unit tests: src/kernel/cgroup_stat.c (memory.stat of cgroup v2 and v1). */
#include "unit.h"

#include "kernel/cgroup_stat.h"

/* A v2 memory.stat in the 6.x layout (keys in the kernel's order), THP in use. */
static const char v2_stat[] = "anon 1073741824\n"
			      "file 52428800\n"
			      "kernel 8388608\n"
			      "kernel_stack 262144\n"
			      "pagetables 2359296\n"
			      "sec_pagetables 0\n"
			      "percpu 9600\n"
			      "sock 0\n"
			      "vmalloc 0\n"
			      "shmem 4194304\n"
			      "zswap 0\n"
			      "zswapped 0\n"
			      "file_mapped 20971520\n"
			      "file_dirty 0\n"
			      "file_writeback 0\n"
			      "swapcached 0\n"
			      "anon_thp 805306368\n"
			      "file_thp 0\n"
			      "shmem_thp 2097152\n"
			      "inactive_anon 1069547520\n"
			      "active_anon 8388608\n"
			      "inactive_file 31457280\n"
			      "active_file 20971520\n"
			      "unevictable 0\n"
			      "slab_reclaimable 3145728\n"
			      "slab_unreclaimable 1048576\n"
			      "slab 4194304\n"
			      "pgfault 262351\n"
			      "pgmajfault 12\n"
			      "thp_fault_alloc 384\n"
			      "thp_collapse_alloc 7\n"
			      "thp_swpout 0\n"
			      "thp_swpout_fallback 0\n";

/*
 * The root memory cgroup's memory.stat on this project's 6.18 guest (v1): its first lines and
 * some totals, total_rss_huge set to 4 MiB (it was 0).
 */
static const char v1_stat[] = "cache 11317248\n"
			      "rss 8253440\n"
			      "rss_huge 0\n"
			      "shmem 9068544\n"
			      "mapped_file 7491584\n"
			      "hierarchical_memory_limit 9223372036854771712\n"
			      "total_cache 3795202048\n"
			      "total_rss 86540288\n"
			      "total_rss_huge 4194304\n"
			      "total_shmem 9068544\n";

static void test_v2_fields(UNIT_STATE)
{
	struct memstat m;
	assert_int_equal(memstat_parse(LIT(v2_stat), 2, &m), 0);
	assert_int_equal(m.bad, 0);
	assert_true(m.f[MS_ANON].present);
	assert_int_equal(m.f[MS_ANON].v, 1073741824);
	assert_int_equal(m.f[MS_ANON_THP].v, 805306368);
	assert_true(m.f[MS_FILE_THP].present);
	assert_int_equal(m.f[MS_FILE_THP].v, 0);
	assert_int_equal(m.f[MS_SHMEM_THP].v, 2097152);
	assert_int_equal(m.f[MS_THP_FAULT_ALLOC].v, 384);
	assert_int_equal(m.f[MS_THP_COLLAPSE_ALLOC].v, 7);
}

/* v1: anon THP is total_rss_huge (the hierarchical one, not rss_huge); v2-only fields absent. */
static void test_v1_totals(UNIT_STATE)
{
	struct memstat m;
	assert_int_equal(memstat_parse(LIT(v1_stat), 1, &m), 0);
	assert_int_equal(m.bad, 0);
	assert_int_equal(m.f[MS_ANON].v, 86540288);
	assert_true(m.f[MS_ANON_THP].present);
	assert_int_equal(m.f[MS_ANON_THP].v, 4194304);
	assert_false(m.f[MS_FILE_THP].present);
	assert_false(m.f[MS_SHMEM_THP].present);
	assert_false(m.f[MS_THP_FAULT_ALLOC].present);
	assert_false(m.f[MS_THP_COLLAPSE_ALLOC].present);
	/* the v1 text read as v2 has none of the v2 keys */
	assert_int_equal(memstat_parse(LIT(v1_stat), 2, &m), 0);
	assert_false(m.f[MS_ANON_THP].present);
}

/* A kernel without the THP event counters (before 5.4): they stay absent, never 0. */
static void test_v2_old_kernel(UNIT_STATE)
{
	struct memstat m;
	assert_int_equal(memstat_parse(LIT("anon 4096\nanon_thp 0\nfile 8192\n"), 2, &m), 0);
	assert_true(m.f[MS_ANON_THP].present);
	assert_int_equal(m.f[MS_ANON_THP].v, 0);
	assert_false(m.f[MS_FILE_THP].present);
	assert_false(m.f[MS_THP_FAULT_ALLOC].present);
}

/* Damaged lines: a bad value leaves its key absent and is counted; the good ones are kept. */
static void test_damaged(UNIT_STATE)
{
	struct memstat m;
	assert_int_equal(memstat_parse(LIT("anon 12x\n"
					   "anon_thp 18446744073709551616\n"
					   "file_thp\n"
					   "shmem_thp 2097152\n"
					   " 5\n"
					   "thp_fault_alloc 3 4\n"),
				       2, &m),
			 0);
	assert_int_equal(m.bad, 5);
	assert_false(m.f[MS_ANON].present);
	assert_false(m.f[MS_ANON_THP].present);
	assert_false(m.f[MS_FILE_THP].present);
	assert_false(m.f[MS_THP_FAULT_ALLOC].present);
	assert_int_equal(m.f[MS_SHMEM_THP].v, 2097152);
}

/* A key printed twice is damage: absent and counted, the other keys kept. */
/* A cgroup that lost a file or a line to damage: partial. A file that is absent (a cgroup
 * without the memory controller) is not damage. */
static void test_node_damaged(UNIT_STATE)
{
	struct cg_node n;
	memset(&n, 0, sizeof(n));
	assert_false(cg_node_damaged(&n));
	n.current_err = -ENOENT;
	n.limit_err = -ENOENT;
	assert_false(cg_node_damaged(&n));
	n.current_err = -EINVAL; /* "12x" */
	assert_true(cg_node_damaged(&n));
	n.current_err = 0;
	n.stat_err = -EACCES;
	assert_true(cg_node_damaged(&n));
	n.stat_err = 0;
	n.ms.bad = 1;
	assert_true(cg_node_damaged(&n));
	n.ms.bad = 0;
	n.procs_bad = 1; /* "3O732" */
	assert_true(cg_node_damaged(&n));
}

static void test_duplicate_key(UNIT_STATE)
{
	struct memstat m;
	assert_int_equal(memstat_parse(LIT("anon 4194304\n"
					   "anon_thp 2097152\n"
					   "anon_thp 0\n"
					   "file_thp 0\n"),
				       2, &m),
			 0);
	assert_false(m.f[MS_ANON_THP].present);
	assert_true(m.f[MS_ANON].present);
	assert_int_equal(m.f[MS_ANON].v, 4194304);
	assert_int_equal(m.bad, 1);
	assert_int_equal(memstat_parse(LIT("total_rss 5\ntotal_rss 5\ntotal_rss 5\n"), 1, &m), 0);
	assert_false(m.f[MS_ANON].present);
	assert_int_equal(m.bad, 2);
}

/* Huge values are exact; a cut last line (no newline) still parses when whole. */
static void test_huge_and_cut(UNIT_STATE)
{
	struct memstat m;
	assert_int_equal(memstat_parse(LIT("anon_thp 18446744073709551615\nanon 1"), 2, &m), 0);
	assert_int_equal(m.f[MS_ANON_THP].v, UINT64_MAX);
	assert_int_equal(m.f[MS_ANON].v, 1);
}

static void test_empty_and_bad_version(UNIT_STATE)
{
	struct memstat m;
	assert_int_equal(memstat_parse("", 0, 2, &m), -EINVAL);
	assert_int_equal(memstat_parse(LIT("garbage\n"), 2, &m), -EINVAL);
	assert_int_equal(m.bad, 1);
	assert_int_equal(memstat_parse(LIT(v2_stat), 3, &m), -EINVAL);
	assert_false(m.f[MS_ANON].present);
}

/* The node's own processes on the live host: this test counted, a kernel thread and a gone pid not. */
static void test_count_procs_live(UNIT_STATE)
{
	struct sysroot sr;
	assert_int_equal(sysroot_open(&sr, "/"), 0);
	pid_t pids[] = {getpid(), 2, 0x3ffffff0};
	struct cg_node node = {.path = "/", .pids = pids, .npids = 3};
	struct cg_tree t = {.version = 2, .nodes = &node, .n = 1};
	struct cg_proc_count c[1] = {{0}};
	assert_int_equal(cg_tree_count_procs(&sr, &t, c, NULL, false), 0);
	assert_int_equal(c[0].n, 1);
	assert_int_equal(c[0].thp_off + c[0].unknown, 0); /* 6.18: THP_enabled 1 here */
	sysroot_close(&sr);
}

/* One v2 cgroup's memory.stat by its path (why and advise: where invented memory came from). */
static void test_v2_memstat_of_one_cgroup(UNIT_STATE)
{
	char root[64];
	struct sysroot sr;
	unit_tree(root, "cgms", NULL, &sr);
	static const char app[] =
		"anon 1048576\nanon_thp 2097152\nthp_fault_alloc 0\nthp_collapse_alloc 32\n";
	static const char top[] = "anon 4096\nthp_fault_alloc 7\n";
	unit_put_bytes(root, "sys/fs/cgroup/system.slice/app.service/memory.stat", app,
		       sizeof(app) - 1);
	unit_put_bytes(root, "sys/fs/cgroup/memory.stat", top, sizeof(top) - 1);
	struct memstat ms;
	assert_int_equal(cgroup_v2_memstat(&sr, "/system.slice/app.service", &ms), 0);
	assert_true(ms.f[MS_THP_FAULT_ALLOC].present);
	assert_int_equal(ms.f[MS_THP_FAULT_ALLOC].v, 0);
	assert_int_equal(ms.f[MS_THP_COLLAPSE_ALLOC].v, 32);
	/* the root ("/"), before 5.4 or damaged: a counter absent is absent, never 0 */
	assert_int_equal(cgroup_v2_memstat(&sr, "/", &ms), 0);
	assert_int_equal(ms.f[MS_THP_FAULT_ALLOC].v, 7);
	assert_false(ms.f[MS_THP_COLLAPSE_ALLOC].present);
	assert_int_equal(cgroup_v2_memstat(&sr, "/gone", &ms), -ENOENT);
	assert_false(ms.f[MS_THP_FAULT_ALLOC].present);
	unit_tree_remove(root, &sr);
}

/* A recorded tree: a kernel thread kept only its stat, a process its stat and status, one
 * process not recorded at all. */
static void test_count_procs_recorded(UNIT_STATE)
{
	char root[64];
	struct sysroot sr;
	unit_tree(root, "cgcount",
		  (const char *const[]){"proc", "proc/2", "proc/10", "proc/11", "proc/12", NULL},
		  &sr);
	/* flags 0x208040: PF_KTHREAD */
	unit_put(root, "proc/2/stat",
		 "2 (kthreadd) S 0 0 0 0 -1 2129984 0 0 0 0 0 0 0 0 20 0 1 0 1 0 0 "
		 "18446744073709551615 0 0 0 0 0 0 0 2147483647 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 "
		 "0 0 0 0 0\n");
	unit_put(root, "proc/10/status",
		 "Name:\tjava\nPPid:\t1\nVmRSS:\t100 kB\nTHP_enabled:\t0\n");
	unit_put(root, "proc/11/status", "Name:\told\nPPid:\t1\nVmRSS:\t100 kB\n");
	/* 12: nothing recorded but its directory: unreadable, counted as unknown; 13: no
	 * directory at all (a capture that did not record it): unknown and not recorded */
	pid_t pids[] = {2, 10, 11, 12, 13};
	struct cg_node node = {.path = "/", .pids = pids, .npids = 5};
	struct cg_tree t = {.version = 2, .nodes = &node, .n = 1};
	struct cg_proc_count c[1] = {{0}};
	assert_int_equal(cg_tree_count_procs(&sr, &t, c, NULL, false), 0);
	assert_int_equal(c[0].n, 4);
	assert_int_equal(c[0].thp_off, 1);
	assert_int_equal(c[0].unknown, 3);
	assert_int_equal(c[0].unrecorded, 1);
	unit_tree_remove(root, &sr);
}

/*
 * The exporter's cache: a second count reads only processes it has not seen (a prctl since
 * is seen at the refresh), a kernel thread known by status alone needs no stat, and a pid
 * that went away leaves the cache.
 */
static void test_count_procs_cached(UNIT_STATE)
{
	char root[64];
	struct sysroot sr;
	unit_tree(root, "cgcache", (const char *const[]){"proc", "proc/3", "proc/20", NULL}, &sr);
	unit_put(root, "proc/3/status", "Name:\tkworker\nKthread:\t1\n");
	unit_put(root, "proc/20/status", "Name:\tredis\nKthread:\t0\nTHP_enabled:\t1\n");
	pid_t pids[] = {3, 20, 21};
	struct cg_node node = {.path = "/", .pids = pids, .npids = 2};
	struct cg_tree t = {.version = 2, .nodes = &node, .n = 1};
	struct cg_pid_cache cache = {0};
	struct cg_proc_count c[1] = {{0}};
	assert_int_equal(cg_tree_count_procs(&sr, &t, c, &cache, true), 0);
	assert_int_equal(c[0].n, 1);
	assert_int_equal(c[0].thp_off + c[0].unknown, 0);
	assert_int_equal(cache.n, 2);

	/* redis opts out after it was seen; pid 21 appears */
	unit_put(root, "proc/20/status", "Name:\tredis\nKthread:\t0\nTHP_enabled:\t0\n");
	unit_mkdir(root, "proc/21");
	unit_put(root, "proc/21/status", "Name:\tjava\nKthread:\t0\nTHP_enabled:\t0\n");
	node.npids = 3;
	memset(c, 0, sizeof(c));
	assert_int_equal(cg_tree_count_procs(&sr, &t, c, &cache, false), 0);
	assert_int_equal(c[0].n, 2);
	assert_int_equal(c[0].thp_off, 1); /* 21 read; 20 from the cache */
	memset(c, 0, sizeof(c));
	assert_int_equal(cg_tree_count_procs(&sr, &t, c, &cache, true), 0);
	assert_int_equal(c[0].thp_off, 2);

	/* 20 is gone from cgroup.procs: it leaves the cache */
	pids[1] = 21;
	node.npids = 2;
	memset(c, 0, sizeof(c));
	assert_int_equal(cg_tree_count_procs(&sr, &t, c, &cache, false), 0);
	assert_int_equal(c[0].n, 1);
	assert_int_equal(cache.n, 2);
	assert_int_equal(cache.v[0].pid, 3);
	assert_int_equal(cache.v[1].pid, 21);
	cg_pid_cache_free(&cache);
	assert_null(cache.v);
	unit_tree_remove(root, &sr);
}

UNIT_TESTS(test_duplicate_key, test_node_damaged, test_v2_memstat_of_one_cgroup, test_v2_fields,
	   test_v1_totals, test_v2_old_kernel, test_damaged, test_huge_and_cut,
	   test_empty_and_bad_version, test_count_procs_live, test_count_procs_recorded,
	   test_count_procs_cached)
