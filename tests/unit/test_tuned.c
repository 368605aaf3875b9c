// SPDX-License-Identifier: MIT
/* Unit tests: src/kernel/tuned.c (tuned.conf INI parser, profile chain through a sysroot). */
#include "unit.h"

#include "kernel/tuned.h"

struct seen {
	int n;
	char line[8][160];
};

static void collect(void *ctx, const char *section, const char *key, const char *value)
{
	struct seen *s = ctx;
	if (s->n < 8)
		snprintf(s->line[s->n++], sizeof(s->line[0]), "%s|%s|%s", section, key, value);
}

static void test_ini_walk(UNIT_STATE)
{
	static const char text[] = "top = 1\n"
				   "# comment = no\n"
				   "  ; also a comment\n"
				   "\n"
				   "[ main ]\n"
				   "summary=A profile; with = signs\n"
				   "\tinclude = \"quoted\"  \r\n"
				   "no equals sign here\n"
				   "=novalue\n"
				   "[broken\n"
				   "[vm]\n"
				   "empty=\n"
				   "last=1";
	struct seen s = {0};
	assert_int_equal(ini_walk(text, sizeof(text) - 1, collect, &s), 3);
	assert_int_equal(s.n, 5);
	assert_string_equal(s.line[0], "|top|1");
	assert_string_equal(s.line[1], "main|summary|A profile; with = signs");
	assert_string_equal(s.line[2], "main|include|quoted");
	assert_string_equal(s.line[3], "vm|empty|");
	assert_string_equal(s.line[4], "vm|last|1");
	/* a NUL byte inside a line (found by fuzz_tuned): the line is malformed, not cut short */
	static const char nul[] = "[vm]\n\0\0a=1\nb\0c=2\nd=3\n";
	s.n = 0;
	assert_int_equal(ini_walk(nul, sizeof(nul) - 1, collect, &s), 2);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.line[0], "vm|d|3");
	s.n = 0;
	assert_int_equal(ini_walk("", 0, collect, &s), 0);
	assert_int_equal(s.n, 0);
}

static const struct tuned_setting *find(const struct tuned_setting *set, int n, const char *key)
{
	for (int i = 0; i < n; i++)
		if (strcmp(set[i].key, key) == 0)
			return &set[i];
	return NULL;
}

static void test_conf_thp_lines(UNIT_STATE)
{
	static const char text[] =
		"[main]\n"
		"summary=db\n"
		"include=throughput-performance\n"
		"[vm]\n"
		"transparent_hugepages=always\n"
		"transparent_hugepage=never\n" /* the alias, later: wins */
		"transparent_hugepage.defrag=defer\n"
		"[sysfs]\n"
		"/sys/kernel/mm/transparent_hugepage//khugepaged/max_ptes_none=0\n"
		"/sys/kernel/mm/transparent_hugepage/hugepages-*/enabled=inherit\n"
		"/sys/kernel/mm/ksm/run=1\n"
		"/sys/kernel/mm/transparent_hugepage/=x\n"
		"[thp_more]\n"
		"type=sysfs\n"
		"/sys/kernel/mm/transparent_hugepage/use_zero_page=0\n"
		"[off]\n"
		"/sys/kernel/mm/transparent_hugepage/shmem_enabled=always\n"
		"type=sysfs\n"
		"enabled=false\n";
	static struct tuned_conf c;
	assert_int_equal(tuned_conf_parse(text, sizeof(text) - 1, &c), 0);
	assert_int_equal(c.nbad, 0);
	assert_true(c.has_include);
	assert_string_equal(c.include, "throughput-performance");
	assert_int_equal(c.nset, 5);
	const struct tuned_setting *e = find(c.set, c.nset, "enabled");
	assert_non_null(e);
	assert_string_equal(e->value, "never");
	assert_true(e->vm);
	assert_string_equal(find(c.set, c.nset, "defrag")->value, "defer");
	assert_string_equal(find(c.set, c.nset, "khugepaged/max_ptes_none")->value, "0");
	assert_false(find(c.set, c.nset, "khugepaged/max_ptes_none")->vm);
	assert_string_equal(find(c.set, c.nset, "hugepages-*/enabled")->value, "inherit");
	assert_string_equal(find(c.set, c.nset, "use_zero_page")->value, "0");
	assert_null(find(c.set, c.nset, "shmem_enabled")); /* its unit is enabled=false */
	assert_int_equal(c.nother, 2);			   /* ksm/run, and the directory itself */
}

static void test_conf_empty_and_damaged(UNIT_STATE)
{
	static struct tuned_conf c;
	assert_int_equal(tuned_conf_parse("", 0, &c), 0);
	assert_false(c.has_include);
	assert_int_equal(c.nset, 0);
	static const char junk[] = "\x01\x02garbage\n[vm\ntransparent_hugepages\n";
	assert_int_equal(tuned_conf_parse(junk, sizeof(junk) - 1, &c), 0);
	assert_int_equal(c.nbad, 3);
	assert_int_equal(c.nset, 0);
}

/* The chain: active db (in etc/) includes base (in usr/lib), which includes a missing one. */
static void test_read_chain(UNIT_STATE)
{
	char dir[] = "/tmp/thpctl-tuned-XXXXXX";
	assert_non_null(mkdtemp(dir));
	unit_put_deep(dir, "etc/tuned/active_profile", "db\n");
	unit_put_deep(dir, "etc/tuned/db/tuned.conf",
		      "[main]\ninclude=base\n[vm]\ntransparent_hugepages=never\n");
	unit_put_deep(dir, "usr/lib/tuned/base/tuned.conf",
		      "[main]\ninclude=gone\n[vm]\ntransparent_hugepages=always\n"
		      "[sysfs]\n/sys/kernel/mm/transparent_hugepage/defrag=always\n");
	unit_put_deep(dir, "run/tuned/tuned.pid", "123\n");
	struct sysroot sr;
	assert_int_equal(sysroot_open(&sr, dir), 0);
	static struct tuned_state t;
	assert_int_equal(tuned_read(&sr, &t), 0);
	assert_int_equal(t.installed, TRI_YES);
	assert_true(t.has_active);
	assert_string_equal(t.active, "db");
	assert_int_equal(t.running, TRI_YES);
	assert_int_equal(t.enabled, TRI_UNKNOWN); /* no etc/systemd/system recorded */
	assert_int_equal(t.nfiles, 2);
	assert_string_equal(t.files[0], "db");
	assert_string_equal(t.files[1], "base");
	assert_true(t.partial);
	assert_string_equal(t.partial_why, "profile gone: no tuned.conf found");
	assert_int_equal(t.nset, 2);
	const struct tuned_setting *e = find(t.set, t.nset, "enabled");
	assert_string_equal(e->value, "never"); /* db overrides base */
	assert_string_equal(e->profile, "db");
	assert_string_equal(find(t.set, t.nset, "defrag")->profile, "base");
	char inc[64];
	assert_int_equal(tuned_profile_include(&sr, "db", inc, sizeof(inc)), 0);
	assert_string_equal(inc, "base");
	assert_int_equal(tuned_profile_include(&sr, "../db", inc, sizeof(inc)), -ENOENT);
	/* a self-include stops at the depth limit */
	unit_put_deep(dir, "etc/tuned/db/tuned.conf", "[main]\ninclude=db\n");
	assert_int_equal(tuned_read(&sr, &t), 0);
	assert_int_equal(t.nfiles, TUNED_MAX_DEPTH + 1);
	assert_true(t.partial);
	/* a variable in include= is not resolved: partial, said so */
	unit_put_deep(dir, "etc/tuned/db/tuned.conf", "[main]\ninclude=${f:virt_check:a:b}\n");
	assert_int_equal(tuned_read(&sr, &t), 0);
	assert_string_equal(t.partial_why,
			    "include=${f:virt_check:a:b} is a tuned variable (not resolved)");
	unit_tree_remove(dir, &sr);
}

/* No tuned at all: nothing active, nothing set. */
static void test_read_none(UNIT_STATE)
{
	struct sysroot sr;
	assert_int_equal(sysroot_open(&sr, "tests/fixtures/linux-6.18-x86"), 0);
	static struct tuned_state t;
	assert_int_equal(tuned_read(&sr, &t), 0);
	assert_int_equal(t.installed, TRI_UNKNOWN); /* a tree: etc/tuned maybe not recorded */
	assert_false(t.has_active);
	assert_int_equal(t.nset, 0);
	assert_int_equal(t.nfiles, 0);
	sysroot_close(&sr);
}

UNIT_TESTS(test_ini_walk, test_conf_thp_lines, test_conf_empty_and_damaged, test_read_chain,
	   test_read_none)
