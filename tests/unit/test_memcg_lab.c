// SPDX-License-Identifier: MIT
/* Unit tests: src/kernel/memcg_lab.c (a lab's own memory cgroup: where, which paths it removes). */
#include "unit.h"

#include "kernel/memcg_lab.h"

static void test_memcg_lab_paths(UNIT_STATE)
{
	static const char *const yes[] = {"/sys/fs/cgroup/memory/thpctl-lab-shrinker-1234",
					  "/sys/fs/cgroup/thpctl-lab-shrinker-1", NULL};
	/* anything else is refused: the undo kills what is inside and removes it */
	static const char *const no[] = {
		"/sys/fs/cgroup/memory",
		"/sys/fs/cgroup/system.slice",
		"/sys/fs/cgroup/memory/../thpctl-lab-x-1",
		"/sys/fs/cgroup//thpctl-lab-x-1",
		"/tmp/thpctl-lab-shrinker-1",
		"/sys/fs/cgroup/thpctl-lab-shrinker-",
		"/sys/fs/cgroup/thpctl-lab--1",
		"/sys/fs/cgroup/thpctl-lab-Shr-1",
		"/sys/fs/cgroup/thpctl-lab-shrinker-1x",
		"/sys/fs/cgroup/thpctl-lab-shrinker-1/sub",
		"/sys/fs/cgroup/memory/aaaaaaaa/bbbbbbbb/cccccccc/dddddddd/eeeeeeee/ffffffff/thpctl-lab-shrinker-1234",
		NULL,
	};
	unit_accepts("memcg_lab_path_ok", memcg_lab_path_ok, yes, no);
	assert_int_equal(memcg_lab_remove("/sys/fs/cgroup/system.slice"), -EINVAL);
	/* gone already: done */
	assert_int_equal(memcg_lab_remove("/sys/fs/cgroup/thpctl-lab-none-999999999"), 0);
}

/* v2 when cgroup.controllers names memory, else v1 when memory/ is mounted, else none. */
static void test_memcg_lab_plan(UNIT_STATE)
{
	char dir[64];
	struct sysroot sr;
	unit_tree(dir, "memcg", NULL, &sr);
	struct memcg_lab m;
	assert_int_equal(memcg_lab_plan(&sr, "shrinker", &m), -ENOENT);
	unit_put_deep(dir, "sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");
	assert_int_equal(memcg_lab_plan(&sr, "shrinker", &m), 0);
	assert_int_equal(m.version, 1);
	char want[96];
	snprintf(want, sizeof(want), "/sys/fs/cgroup/memory/thpctl-lab-shrinker-%ld",
		 (long)getpid());
	assert_string_equal(m.path, want);
	unit_put_deep(dir, "sys/fs/cgroup/cgroup.controllers", "cpuset cpu io memory pids\n");
	assert_int_equal(memcg_lab_plan(&sr, "shrinker", &m), 0);
	assert_int_equal(m.version, 2);
	assert_int_equal(memcg_lab_create(&sr, &m), 0);
	assert_int_equal(memcg_lab_create(&sr, &m), -EEXIST);
	unit_put_deep(dir, "sys/fs/cgroup/thpctl-lab-shrinker-x/memory.current", "");
	char cur[96];
	snprintf(cur, sizeof(cur), "%s/memory.current", m.rel);
	unit_put_deep(dir, cur, "1048576\n");
	uint64_t use;
	assert_int_equal(memcg_lab_usage(&sr, &m, &use), 0);
	assert_true(use == 1048576);
	unit_tree_remove(dir, &sr);
}

UNIT_TESTS(test_memcg_lab_paths, test_memcg_lab_plan)
