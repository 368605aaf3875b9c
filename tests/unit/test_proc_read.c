// SPDX-License-Identifier: MIT
/* Unit tests: src/kernel/proc_read.c (the flag-driven per-process reader) over a recorded tree. */
#include "unit.h"

#include <sys/stat.h>

#include "kernel/proc_read.h"

static char root[64];

static void put(const char *rel, const char *text)
{
	unit_put(root, rel, text);
}

static void mk(const char *rel)
{
	unit_mkdir(root, rel);
}

/* The sysroot at DIR, opened. */
static struct sysroot open_at(const char *dir)
{
	struct sysroot sr;
	assert_int_equal(sysroot_open(&sr, dir), 0);
	return sr;
}

/* Free PI and close SR. */
static void close_all(struct proc_info *pi, struct sysroot *sr)
{
	proc_info_free(pi);
	sysroot_close(sr);
}

static int setup(UNIT_STATE)
{
	snprintf(root, sizeof(root), "/tmp/thpctl-procread.XXXXXX");
	if (!mkdtemp(root))
		return -1;
	mk("proc");
	mk("proc/42");
	put("proc/42/status", "Name:\tredis\nTgid:\t42\nPPid:\t1\nUid:\t100\t100\t100\t100\n"
			      "VmRSS:\t  2048 kB\nTHP_enabled:\t1\n");
	put("proc/42/smaps", "7f0000000000-7f0000400000 rw-p 00000000 00:00 0 \n"
			     "Size:               4096 kB\nRss:                4096 kB\n"
			     "AnonHugePages:      2048 kB\nTHPeligible:    1\nVmFlags: rd wr hg\n");
	put("proc/42/cgroup", "0::/system.slice/redis.service\n");
	put("proc/42/environ", "A=1");
	mk("proc/43");
	put("proc/43/status", "");
	/* proc_mm_read: a 6.x kernel thread, a recorded one (stat only, PF_KTHREAD), a zombie
	 * (no VmRSS, stat Z), no VmRSS and no stat, a damaged status beside a plain stat */
	static const char stat_tail[] = " 0 0 0 0 0 0 0 0 39 19 1 0 28 0 0 18446744073709551615 0 "
					"0 0 0 0 0 0 2147483647 0 1 0 0 17 1 0 0 0 0 0 0 0 0 0 "
					"0 0 0 0\n";
	char line[512];
	mk("proc/50");
	put("proc/50/status", "Name:\tkworker/0:1\nTgid:\t50\nPPid:\t2\nKthread:\t1\n");
	mk("proc/51");
	snprintf(line, sizeof(line), "51 (khugepaged) S 2 0 0 0 -1 2097216%s", stat_tail);
	put("proc/51/stat", line);
	mk("proc/52");
	put("proc/52/status", "Name:\tdefunct\nTgid:\t52\nPPid:\t1\nUid:\t0\t0\t0\t0\n");
	snprintf(line, sizeof(line), "52 (defunct) Z 1 0 0 0 -1 4227084%s", stat_tail);
	put("proc/52/stat", line);
	mk("proc/53");
	put("proc/53/status", "Name:\told\nTgid:\t53\nPPid:\t1\n");
	mk("proc/54");
	put("proc/54/status", "garbage\n");
	snprintf(line, sizeof(line), "54 (app) S 1 0 0 0 -1 4194560%s", stat_tail);
	put("proc/54/stat", line);
	return 0;
}

static int teardown(UNIT_STATE)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	return system(cmd);
}

static int count(const struct smaps_vma *v, void *ctx)
{
	(void)v;
	(*(int *)ctx)++;
	return 0;
}

static void reads_status_smaps_cgroup_environ_in_one_call(UNIT_STATE)
{
	struct sysroot sr = open_at(root);
	int n = 0;
	struct proc_info pi = {.vma_cb = count, .vma_ctx = &n};
	unsigned want = PROC_STATUS | PROC_SMAPS | PROC_CGROUP | PROC_ENVIRON;
	assert_int_equal(proc_read(&sr, 42, want, &pi), 0);
	assert_int_equal(pi.got, want);
	assert_string_equal(pi.st.name, "redis");
	assert_int_equal(pi.st.tgid, 42);
	assert_int_equal(n, 1);
	assert_int_equal(pi.nvmas, 1);
	assert_int_equal(pi.t.kb[SM_ANON_HUGE], 2048);
	assert_true(pi.cg.has_v2);
	assert_int_equal(pi.environ.len, 3);
	close_all(&pi, &sr);
}

static void a_file_missing_from_a_recorded_tree_is_unreadable_not_zero(UNIT_STATE)
{
	struct sysroot sr = open_at(root);
	struct proc_info pi = {0};
	assert_int_equal(proc_read(&sr, 42, PROC_STATUS | PROC_ROLLUP | PROC_CMDLINE, &pi), 0);
	assert_false(pi.gone);
	assert_int_equal(pi.got, PROC_STATUS);
	assert_int_equal(pi.rollup_err, -ENOENT);
	assert_true(proc_err_unreadable(&sr, pi.rollup_err));
	assert_false(smaps_has(&pi.t, SM_ANON_HUGE));
	close_all(&pi, &sr);
}

static void calls_for_one_pid_add_up_and_another_pid_starts_afresh(UNIT_STATE)
{
	struct sysroot sr = open_at(root);
	struct proc_info pi = {0};
	assert_int_equal(proc_read(&sr, 42, PROC_STATUS, &pi), 0);
	assert_int_equal(proc_read(&sr, 42, PROC_CGROUP | PROC_MAPS, &pi), 0);
	assert_int_equal(pi.got, PROC_STATUS | PROC_CGROUP);
	assert_int_equal(pi.maps_err, -ENOENT); /* not recorded: unreadable at capture */
	assert_string_equal(pi.st.name, "redis");
	assert_int_equal(proc_read(&sr, 43, PROC_STATUS | PROC_CGROUP, &pi), -ESRCH);
	assert_int_equal(pi.got, 0);
	assert_false(pi.st.has_name);
	close_all(&pi, &sr);
}

static void a_missing_pid_or_an_empty_status_is_gone(UNIT_STATE)
{
	struct sysroot sr = open_at(root);
	struct proc_info pi = {0};
	assert_int_equal(proc_read(&sr, 44, PROC_STATUS | PROC_SMAPS, &pi), -ESRCH);
	assert_true(pi.gone);
	assert_int_equal(pi.status_err, -ENOENT);
	assert_int_equal(pi.smaps_err, -ENOENT);
	assert_int_equal(proc_read(&sr, 43, PROC_STATUS | PROC_SMAPS, &pi), -ESRCH);
	assert_true(pi.gone);
	assert_int_equal(pi.status_err, -ESRCH);
	assert_int_equal(pi.smaps_err, -ESRCH);
	assert_int_equal(pi.got, 0);
	close_all(&pi, &sr);
}

static void the_running_test_is_read_live_with_its_threads(UNIT_STATE)
{
	struct sysroot sr = open_at("/");
	struct proc_info pi = {0};
	unsigned want = PROC_STATUS | PROC_STAT | PROC_STATM | PROC_ROLLUP | PROC_TASKS;
	assert_int_equal(proc_read(&sr, getpid(), want, &pi), 0);
	assert_int_equal(pi.got, want);
	assert_int_equal(pi.stat.pid, getpid());
	assert_true(pi.statm.resident > 0);
	assert_int_equal(pi.st.tgid, getpid());
	assert_true(pi.ntids >= 1);
	assert_true(smaps_has(&pi.t, SM_RSS) && pi.t.kb[SM_RSS] > 0);
	assert_int_equal(proc_read(&sr, getpid(), 0, &pi), 0);
	close_all(&pi, &sr);
}

/* proc_info.more: smaps after status, only for a process named redis; counts its calls. */
struct plan {
	int calls;
	unsigned got_at_first; /* .got when first called */
};

static unsigned smaps_for_redis(struct proc_info *pi, void *ctx)
{
	struct plan *p = ctx;
	if (p->calls++ == 0)
		p->got_at_first = pi->got;
	if (p->calls > 1 || !(pi->got & PROC_STATUS) || strcmp(pi->st.name, "redis"))
		return 0;
	return PROC_SMAPS | PROC_LEDGER;
}

static void more_rounds_read_what_status_decides_on_one_handle(UNIT_STATE)
{
	struct sysroot sr = open_at(root);
	struct plan p = {0};
	struct proc_info pi = {.more = smaps_for_redis, .more_ctx = &p, .ledger_policy = "always"};
	assert_int_equal(proc_read(&sr, 42, PROC_STATUS, &pi), 0);
	assert_int_equal(p.calls, 2);
	assert_int_equal(p.got_at_first, PROC_STATUS);
	assert_int_equal(pi.got, PROC_STATUS | PROC_SMAPS | PROC_LEDGER);
	assert_int_equal(pi.t.kb[SM_ANON_HUGE], 2048);
	/* the ledger's VMAs from the same walk (anonymous ones only): hg and eligible, a creep candidate */
	assert_int_equal(pi.lv.n, 1);
	assert_true(pi.lv.v[0].creep);
	assert_true(pi.lv.v[0].start == 0x7f0000000000ull && pi.lv.v[0].end == 0x7f0000400000ull);
	/* a status that is gone asks nothing more: the callback is not called */
	p = (struct plan){0};
	assert_int_equal(proc_read(&sr, 43, PROC_STATUS, &pi), -ESRCH);
	assert_int_equal(p.calls, 0);
	assert_int_equal(pi.smaps_err, 0);
	close_all(&pi, &sr);
}

static unsigned always_more(struct proc_info *pi, void *ctx)
{
	(void)pi;
	(*(int *)ctx)++;
	return PROC_CGROUP;
}

static void rounds_are_bounded(UNIT_STATE)
{
	struct sysroot sr = open_at(root);
	int calls = 0;
	struct proc_info pi = {.more = always_more, .more_ctx = &calls};
	assert_int_equal(proc_read(&sr, 42, PROC_STATUS, &pi), 0);
	assert_int_equal(calls, PROC_MAX_ROUNDS - 1);
	assert_int_equal(pi.got, PROC_STATUS | PROC_CGROUP);
	close_all(&pi, &sr);
}

static void pid_0_is_the_caller_and_its_allowed_cpus(UNIT_STATE)
{
	struct sysroot sr = open_at("/");
	struct proc_info pi = {0};
	assert_int_equal(proc_read(&sr, 0, PROC_STATUS | PROC_ALLOWED, &pi), 0);
	assert_int_equal(pi.st.tgid, getpid());
	assert_int_equal(pi.got, PROC_STATUS | PROC_ALLOWED);
	bool any = false;
	for (unsigned c = 0; c < NUMA_MAX_CPUS; c++)
		any |= cpuset_has(&pi.allowed, c);
	assert_true(any);
	close_all(&pi, &sr);
}

static void proc_mm_read_tells_a_process_a_kernel_thread_a_zombie_and_no_process(UNIT_STATE)
{
	struct sysroot sr = open_at(root);
	struct proc_info pi = {0};
	assert_int_equal(proc_mm_read(&sr, 42, &pi), PROC_MM_YES);
	assert_string_equal(pi.st.name, "redis");
	assert_int_equal(proc_mm_read(&sr, 44, &pi), PROC_MM_ABSENT);  /* no proc/44 */
	assert_int_equal(proc_mm_read(&sr, 43, &pi), PROC_MM_ABSENT);  /* empty status, no stat */
	assert_int_equal(proc_mm_read(&sr, 50, &pi), PROC_MM_KTHREAD); /* Kthread: 1 */
	assert_int_equal(proc_mm_read(&sr, 51, &pi), PROC_MM_KTHREAD); /* stat's PF_KTHREAD */
	assert_int_equal(pi.status_err, -ENOENT);
	assert_int_equal(proc_mm_read(&sr, 52, &pi), PROC_MM_ZOMBIE); /* stat state Z */
	assert_int_equal(proc_mm_read(&sr, 53, &pi), PROC_MM_NONE);   /* no VmRSS, no stat */
	assert_int_equal(proc_mm_read(&sr, 54, &pi), PROC_MM_UNREADABLE);
	assert_int_equal(pi.status_err, -EINVAL);
	close_all(&pi, &sr);
	/* live: this test is a process with a memory map */
	sr = open_at("/");
	assert_int_equal(proc_mm_read(&sr, getpid(), &pi), PROC_MM_YES);
	assert_int_equal(pi.st.tgid, getpid());
	close_all(&pi, &sr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reads_status_smaps_cgroup_environ_in_one_call),
		cmocka_unit_test(a_file_missing_from_a_recorded_tree_is_unreadable_not_zero),
		cmocka_unit_test(calls_for_one_pid_add_up_and_another_pid_starts_afresh),
		cmocka_unit_test(a_missing_pid_or_an_empty_status_is_gone),
		cmocka_unit_test(the_running_test_is_read_live_with_its_threads),
		cmocka_unit_test(more_rounds_read_what_status_decides_on_one_handle),
		cmocka_unit_test(rounds_are_bounded),
		cmocka_unit_test(pid_0_is_the_caller_and_its_allowed_cpus),
		cmocka_unit_test(
			proc_mm_read_tells_a_process_a_kernel_thread_a_zombie_and_no_process),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
