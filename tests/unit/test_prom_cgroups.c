// SPDX-License-Identifier: MIT
/*
 * Unit tests: the exporter's thp_cgroup_* families (render/prom_cgroups.c) over
 * the recorded tree tests/fixtures/cgroups-v2-x86 (cmd/cgroups_collect.h).
 */
#include "unit.h"

#include "cmd/cgroups_collect.h"
#include "render/prom.h"

/* Render the cgroups of FIXTURE with TOP shown into B (freed by the caller). */
static void render_fixture(const char *fixture, size_t top, struct pbuf *b)
{
	char dir[256];
	snprintf(dir, sizeof(dir), "tests/fixtures/%s", fixture);
	struct sysroot sr;
	assert_int_equal(sysroot_open(&sr, dir), 0);
	struct cg_collect c;
	assert_int_equal(cg_collect(&sr, top, NULL, &c), 0);
	prom_render_cgroups(b, &c.rep, top);
	assert_false(b->overflow);
	cg_collect_free(&c);
	sysroot_close(&sr);
}

/* Lines of B that start with PREFIX. */
static int count_lines(const struct pbuf *b, const char *prefix)
{
	int n = 0;
	for (const char *p = b->p; p && *p;) {
		if (strncmp(p, prefix, strlen(prefix)) == 0)
			n++;
		const char *nl = strchr(p, '\n');
		p = nl ? nl + 1 : p + strlen(p);
	}
	return n;
}

static void has(const struct pbuf *b, const char *line)
{
	char want[512];
	snprintf(want, sizeof(want), "\n%s\n", line);
	if (!strstr(b->p, want))
		fail_msg("missing line: %s", line);
}

static void test_top_three(UNIT_STATE)
{
	struct pbuf b = {0};
	render_fixture("cgroups-v2-x86", 3, &b);
	/* sorted by anon_thp: /, /system.slice, /system.slice/redis.service */
	assert_int_equal(count_lines(&b, "thp_cgroup_anon_thp_bytes{"), 3);
	has(&b, "thp_cgroup_anon_thp_bytes{cgroup=\"/\"} 679477248");
	has(&b, "thp_cgroup_anon_thp_bytes{cgroup=\"/system.slice/redis.service\"} 8388608");
	assert_null(strstr(b.p, "cgroup=\"/user.slice\""));
	has(&b, "thp_cgroup_shmem_thp_bytes{cgroup=\"/system.slice\"} 2097152");
	has(&b, "thp_cgroup_thp_fault_alloc_total{cgroup=\"/\"} 716");
	has(&b, "# TYPE thp_cgroup_thp_collapse_alloc_total counter");
	/* memory.max: a sample only where a limit is set; "max" is limited 0 */
	assert_int_equal(count_lines(&b, "thp_cgroup_memory_max_bytes{"), 1);
	has(&b, "thp_cgroup_memory_max_bytes{cgroup=\"/system.slice/redis.service\"} 268435456");
	has(&b, "thp_cgroup_memory_limited{cgroup=\"/\"} 0");
	has(&b, "thp_cgroup_memory_limited{cgroup=\"/system.slice/redis.service\"} 1");
	/* the v2 root has no memory.current */
	assert_null(strstr(b.p, "thp_cgroup_memory_current_bytes{cgroup=\"/\"}"));
	has(&b, "thp_cgroup_memory_current_bytes{cgroup=\"/system.slice\"} 255852544");
	/* processes include the cgroups below: batch.service's two opt-outs count in /system.slice */
	has(&b, "thp_cgroup_processes{cgroup=\"/system.slice\"} 3");
	has(&b, "thp_cgroup_processes_thp_disabled{cgroup=\"/system.slice\"} 2");
	has(&b, "thp_cgroup_processes_thp_disabled{cgroup=\"/system.slice/redis.service\"} 0");
	has(&b, "thpctl_cgroups_version 2");
	has(&b, "thpctl_cgroups_seen 6");
	has(&b, "thpctl_cgroups_top_limit 3");
	pbuf_free(&b);
}

static void test_unknown_limit_has_no_sample(UNIT_STATE)
{
	struct pbuf b = {0};
	render_fixture("cgroups-v2-x86", 10, &b);
	assert_int_equal(count_lines(&b, "thp_cgroup_anon_thp_bytes{"), 6);
	/* user-1000.slice has no memory.max recorded: neither max nor limited */
	assert_null(
		strstr(b.p, "thp_cgroup_memory_limited{cgroup=\"/user.slice/user-1000.slice\"}"));
	has(&b, "thp_cgroup_memory_current_bytes{cgroup=\"/user.slice/user-1000.slice\"} 52428800");
	assert_int_equal(count_lines(&b, "thp_cgroup_memory_max_bytes{"), 2);
	pbuf_free(&b);
}

static void test_no_cgroups(UNIT_STATE)
{
	struct pbuf b = {0};
	render_fixture("linux-4.14-x86", 10, &b);
	assert_int_equal(count_lines(&b, "thp_cgroup_"), 0);
	has(&b, "thpctl_cgroups_version 0");
	has(&b, "thpctl_cgroups_seen 0");
	pbuf_free(&b);
}

UNIT_TESTS(test_top_three, test_unknown_limit_has_no_sample, test_no_cgroups)
