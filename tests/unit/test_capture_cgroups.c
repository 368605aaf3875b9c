// SPDX-License-Identifier: MIT
/*
 * Unit tests: what src/kernel/capture.c records of the memory cgroups' processes, replayed
 * through src/kernel/cgroup_stat.c: `thpctl cgroups` on a capture counts the processes the
 * live host counts (kernel threads left out by their recorded stat), and a process the
 * capture did not record is unknown and said to be not recorded.
 */
#include "unit.h"

#include "kernel/capture.h"
#include "kernel/cgroup_stat.h"

/* A kernel thread's stat (flags 0x208040: PF_KTHREAD) and a user process's (flags 0x400100). */
#define KSTAT(pid, comm)                                                                           \
	pid " (" comm ") S 2 0 0 0 -1 2129984 0 0 0 0 0 0 0 0 20 0 1 0 1 0 0 "                     \
	    "18446744073709551615 0 0 0 0 0 0 0 2147483647 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 "  \
	    "0 0\n"
#define USTAT(pid, comm)                                                                           \
	pid " (" comm ") S 1 0 0 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 1 0 0 "                     \
	    "18446744073709551615 0 0 0 0 0 0 0 2147483647 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 "  \
	    "0 0\n"

/* The sink: each file into the tree at CTX (a directory name). */
static int into_tree(void *ctx, const char *rel, unsigned mode, const char *data, size_t len)
{
	(void)mode;
	unit_put_bytes(ctx, rel, data, len);
	return 0;
}

static void test_capture_keeps_cgroup_kernel_threads(UNIT_STATE)
{
	char host[64], out[64];
	struct sysroot sr;
	unit_tree(host, "caphost",
		  (const char *const[]){"proc", "proc/2", "proc/3", "proc/10", "proc/11", "sys",
					"sys/fs", "sys/fs/cgroup", "sys/fs/cgroup/app", NULL},
		  &sr);
	unit_put(host, "sys/fs/cgroup/cgroup.controllers", "cpu memory pids\n");
	unit_put(host, "sys/fs/cgroup/cgroup.procs", "2\n10\n");
	unit_put(host, "sys/fs/cgroup/app/cgroup.procs", "3\n11\n");
	unit_put(host, "proc/2/stat", KSTAT("2", "kthreadd"));
	unit_put(host, "proc/3/stat", KSTAT("3", "kworker/0:0"));
	unit_put(host, "proc/10/stat", USTAT("10", "thpctl"));
	unit_put(host, "proc/10/status", "Name:\tthpctl\nKthread:\t0\nTHP_enabled:\t1\n");
	unit_put(host, "proc/11/stat", USTAT("11", "redis"));
	unit_put(host, "proc/11/status", "Name:\tredis\nKthread:\t0\nTHP_enabled:\t0\n");

	/* the default capture: thpctl itself (10) */
	snprintf(out, sizeof(out), "/tmp/thpctl-capout.XXXXXX");
	assert_non_null(mkdtemp(out));
	pid_t self = 10;
	struct capture_opts o = {.pids = &self, .npids = 1};
	struct capture_sink sink = {.ctx = out, .file = into_tree};
	struct capture_stats st;
	assert_int_equal(capture_host(&sr, &o, &sink, &st), 0);
	assert_int_equal(st.procs, 1);
	assert_int_equal(st.kthreads, 2);
	sysroot_close(&sr);

	/* the kernel threads' stat alone, nothing of redis */
	char p[128];
	struct stat sb;
	snprintf(p, sizeof(p), "%s/proc/2/stat", out);
	assert_int_equal(stat(p, &sb), 0);
	snprintf(p, sizeof(p), "%s/proc/3/status", out);
	assert_int_not_equal(stat(p, &sb), 0);
	snprintf(p, sizeof(p), "%s/proc/11", out);
	assert_int_not_equal(stat(p, &sb), 0);

	/* replayed: PROCS as live (2 processes, the kernel threads left out), redis unknown
	 * because it was not recorded */
	assert_int_equal(sysroot_open(&sr, out), 0);
	struct cg_tree t = {0};
	assert_int_equal(cg_tree_read(&sr, &t), 0);
	assert_int_equal(t.n, 2);
	struct cg_proc_count c[2] = {{0}};
	assert_int_equal(cg_tree_count_procs(&sr, &t, c, NULL, false), 0);
	assert_int_equal(c[0].n + c[1].n, 2);
	assert_int_equal(c[0].thp_off + c[1].thp_off, 0);
	assert_int_equal(c[0].unknown + c[1].unknown, 1);
	assert_int_equal(c[0].unrecorded + c[1].unrecorded, 1);
	cg_tree_free(&t);
	sysroot_close(&sr);
	unit_rmrf(out);
	unit_rmrf(host);
}

UNIT_TESTS(test_capture_keeps_cgroup_kernel_threads)
