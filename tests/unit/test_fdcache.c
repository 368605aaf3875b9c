// SPDX-License-Identifier: MIT
/* Unit tests: src/kernel/fdcache.c (files kept open across samples) and sample_fdc_mode. */
#include "unit.h"

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "kernel/fdcache.h"
#include "kernel/sysroot.h"
#include "kernel/sample.h"

static char dir[64];

static void put(const char *name, const char *text)
{
	unit_put(dir, name, text);
}

static enum fdc_mode mode_for_test(const char *rel)
{
	if (strncmp(rel, "no", 2) == 0)
		return FDC_NO;
	if (strncmp(rel, "static", 6) == 0)
		return FDC_STATIC;
	return strncmp(rel, "multi", 5) == 0 ? FDC_MULTI : FDC_SINGLE;
}

/* A temporary tree (DIR), its sysroot, a cache of MODE over it and a read buffer. */
struct tree {
	struct sysroot sr;
	struct fdcache c;
	struct buf b;
};

static void tree_open(struct tree *t, const char *tmpl, enum fdc_mode (*mode)(const char *rel))
{
	memset(t, 0, sizeof(*t));
	snprintf(dir, sizeof(dir), "%s", tmpl);
	assert_non_null(mkdtemp(dir));
	assert_int_equal(sysroot_open(&t->sr, dir), 0);
	fdcache_init(&t->c, 0, mode);
}

static void tree_close(struct tree *t)
{
	fdcache_free(&t->c);
	buf_free(&t->b);
	unit_tree_remove(dir, &t->sr);
}

static void test_cache(UNIT_STATE)
{
	snprintf(dir, sizeof(dir), "/tmp/thpctl-fdc.XXXXXX");
	assert_non_null(mkdtemp(dir));
	put("a", "1\n");
	put("multi", "x 1\ny 2\n");
	put("nofile", "z\n");
	struct sysroot sr;
	assert_int_equal(sysroot_open(&sr, dir), 0);
	struct fdcache c;
	fdcache_init(&c, 2, mode_for_test);
	struct buf b = {0};

	assert_int_equal(fdcache_read(&c, &sr, "a", &b), 0);
	assert_string_equal(b.p, "1\n");
	assert_int_equal(c.open, 1);
	/* the same open file sees new content (pread at offset 0) */
	put("a", "22\n");
	assert_int_equal(fdcache_read(&c, &sr, "a", &b), 0);
	assert_string_equal(b.p, "22\n");
	assert_int_equal(c.open, 1);
	assert_int_equal(fdcache_read(&c, &sr, "multi", &b), 0);
	assert_string_equal(b.p, "x 1\ny 2\n");
	assert_int_equal(c.open, 2);
	/* not wanted, or full: the caller reads it the usual way */
	assert_int_equal(fdcache_read(&c, &sr, "nofile", &b), -EOPNOTSUPP);
	put("b", "b\n");
	assert_int_equal(fdcache_read(&c, &sr, "b", &b), -EOPNOTSUPP);
	/* through sysroot_read: cached and uncached paths alike */
	sr.cache = &c;
	assert_int_equal(sysroot_read(&sr, "b", &b), 0);
	assert_string_equal(b.p, "b\n");
	assert_int_equal(sysroot_read(&sr, "nofile", &b), 0);
	assert_string_equal(b.p, "z\n");
	assert_int_equal(sysroot_read(&sr, "missing", &b), -ENOENT);
	/* a sweep closes what was not read since the last one */
	fdcache_sweep(&c);
	assert_int_equal(c.open, 2);
	assert_int_equal(fdcache_read(&c, &sr, "a", &b), 0);
	fdcache_sweep(&c);
	assert_int_equal(c.open, 1);
	assert_int_equal(fdcache_read(&c, &sr, "b", &b), 0);
	assert_int_equal(c.open, 2);
	/* many paths: the table grows, the cap holds */
	fdcache_free(&c);
	fdcache_init(&c, 0, NULL);
	for (int i = 0; i < 600; i++) {
		char n[32];
		snprintf(n, sizeof(n), "f%d", i);
		put(n, n);
		assert_int_equal(fdcache_read(&c, &sr, n, &b), 0);
		assert_string_equal(b.p, n);
	}
	assert_int_equal(c.open, 600);
	for (int i = 0; i < 600; i += 7) {
		char n[32];
		snprintf(n, sizeof(n), "f%d", i);
		assert_int_equal(fdcache_read(&c, &sr, n, &b), 0);
		assert_string_equal(b.p, n);
	}
	/* a sweep after which nothing goes keeps the table as it is (no rebuild) */
	const void *tab = c.tab;
	fdcache_sweep(&c);
	assert_ptr_equal(c.tab, tab);
	assert_int_equal(c.open, 600);
	fdcache_sweep(&c);
	assert_int_equal(c.open, 0);
	fdcache_free(&c);
	sr.cache = NULL;
	sysroot_close(&sr);
	buf_free(&b);
	unit_rmrf(dir);
}

/*
 * A file missing at every sample (hugepages-8kB/enabled: a shmem-only size) keeps its dead
 * entry while it is read: the sweep does not rebuild the table each time (it did every
 * exporter scrape), and the file is opened again on its next hit once it is there.
 */
static void test_missing_file_kept_dead(UNIT_STATE)
{
	(void)state;
	struct tree t;
	tree_open(&t, "/tmp/thpctl-fdcm.XXXXXX", NULL);
	put("here", "1\n");
	assert_int_equal(fdcache_read(&t.c, &t.sr, "here", &t.b), 0);
	assert_int_equal(fdcache_read(&t.c, &t.sr, "gone", &t.b), -ENOENT);
	fdcache_sweep(&t.c);
	const void *tab = t.c.tab;
	for (int i = 0; i < 3; i++) {
		assert_int_equal(fdcache_read(&t.c, &t.sr, "here", &t.b), 0);
		assert_int_equal(fdcache_read(&t.c, &t.sr, "gone", &t.b), -ENOENT);
		fdcache_sweep(&t.c);
		assert_ptr_equal(t.c.tab, tab); /* no rebuild */
		assert_int_equal(t.c.used, 2);
		assert_int_equal(t.c.open, 1);
	}
	put("gone", "back\n");
	assert_int_equal(fdcache_read(&t.c, &t.sr, "gone", &t.b), 0);
	assert_string_equal(t.b.p, "back\n");
	assert_int_equal(t.c.open, 2);
	/* a sample that reads neither: both go */
	fdcache_sweep(&t.c);
	fdcache_sweep(&t.c);
	assert_int_equal(t.c.used, 0);
	assert_int_equal(t.c.open, 0);
	tree_close(&t);
}

/* FDC_STATIC: a file missing once stays missing (no open tried again), one that is there is
 * read afresh each time; FDC_SINGLE: a file that appears later is read. */
static void test_static_missing(UNIT_STATE)
{
	(void)state;
	struct tree t;
	tree_open(&t, "/tmp/thpctl-fdcs.XXXXXX", mode_for_test);
	put("static-here", "1\n");
	assert_int_equal(fdcache_read(&t.c, &t.sr, "static-gone", &t.b), -ENOENT);
	assert_int_equal(fdcache_read(&t.c, &t.sr, "single-gone", &t.b), -ENOENT);
	fdcache_sweep(&t.c);
	put("static-gone", "late\n");
	put("single-gone", "late\n");
	put("static-here", "2\n");
	assert_int_equal(fdcache_read(&t.c, &t.sr, "static-gone", &t.b), -ENOENT);
	assert_int_equal(fdcache_read(&t.c, &t.sr, "single-gone", &t.b), 0);
	assert_string_equal(t.b.p, "late\n");
	assert_int_equal(fdcache_read(&t.c, &t.sr, "static-here", &t.b), 0);
	assert_string_equal(t.b.p, "2\n");
	fdcache_sweep(&t.c);
	/* the entry stays while it is asked for, and still says missing */
	assert_int_equal(fdcache_read(&t.c, &t.sr, "static-gone", &t.b), -ENOENT);
	assert_int_equal(t.c.open, 2);
	tree_close(&t);
}

/* A cached /proc/PID file of a process that exited reports it, never old data. */
static void test_exited_process(UNIT_STATE)
{
	struct sysroot sr;
	assert_int_equal(sysroot_open(&sr, "/"), 0);
	struct fdcache c;
	fdcache_init(&c, 0, sample_fdc_mode);
	struct buf b = {0};
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		pause();
		_exit(0);
	}
	char rel[64];
	snprintf(rel, sizeof(rel), "proc/%d/statm", (int)pid);
	assert_int_equal(fdcache_read(&c, &sr, rel, &b), 0);
	assert_true(b.len > 0);
	assert_int_equal(c.open, 1);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	int r = fdcache_read(&c, &sr, rel, &b);
	assert_true(r == -ESRCH || r == -ENOENT);
	assert_int_equal(c.open, 0);
	fdcache_free(&c);
	sysroot_close(&sr);
	buf_free(&b);
}

static void test_modes(UNIT_STATE)
{
	static const struct unit_str_int c[] = {
		{"sys/kernel/mm/transparent_hugepage/enabled", FDC_STATIC},
		{"sys/kernel/mm/transparent_hugepage/hugepages-8kB/enabled", FDC_STATIC},
		{"sys/kernel/mm/transparent_hugepagex/enabled", FDC_SINGLE},
		{"sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", FDC_SINGLE},
		{"sys/devices/system/node/node0/meminfo", FDC_SINGLE},
		{"proc/123/statm", FDC_SINGLE},
		{"proc/123/stat", FDC_SINGLE},
		{"proc/meminfo", FDC_SINGLE},
		{"proc/vmstat", FDC_MULTI},
		{"proc/buddyinfo", FDC_MULTI},
		{"proc/123/status", FDC_NO},
		{"proc/123/smaps_rollup", FDC_NO},
		{"proc/123/smaps", FDC_NO},
		{"proc/self/statm", FDC_NO},
		{"proc/0123/statm", FDC_NO},
		{"proc/12/task/12/stat", FDC_NO},
		{"proc/sys/kernel/osrelease", FDC_NO},
		{"etc/passwd", FDC_NO},
	};
	for (size_t i = 0; i < UNIT_LEN(c); i++)
		unit_row_int(c[i].in, "sample_fdc_mode", sample_fdc_mode(c[i].in), c[i].want);
}

/* Count L's names and whether NAME is one of them. */
static bool listed(const struct sr_dirlist *l, const char *name)
{
	const char *p = l->names;
	for (size_t i = 0; i < l->n; i++, p += strlen(p) + 1)
		if (!strcmp(p, name))
			return true;
	return false;
}

/* A kept directory is listed once: a file made later is not in it; a FDC_NO one is listed anew. */
static void test_listdir_kept(UNIT_STATE)
{
	snprintf(dir, sizeof(dir), "/tmp/thpctl-fdcl.XXXXXX");
	assert_non_null(mkdtemp(dir));
	unit_mkdir(dir, "sizes");
	unit_mkdir(dir, "nosizes");
	put("sizes/a", "1\n");
	put("nosizes/a", "1\n");
	struct sysroot sr;
	assert_int_equal(sysroot_open(&sr, dir), 0);
	struct fdcache c;
	fdcache_init(&c, 8, mode_for_test);
	sr.cache = &c;
	struct sr_dirlist l;
	assert_int_equal(sysroot_listdir(&sr, "sizes", &l), 0);
	assert_true(l.kept);
	assert_int_equal(l.n, 1);
	assert_int_equal(l.types[0], DT_REG);
	sysroot_dirlist_free(&l);
	put("sizes/b", "2\n");
	put("nosizes/b", "2\n");
	assert_int_equal(sysroot_listdir(&sr, "sizes", &l), 0);
	assert_int_equal(l.n, 1); /* kept: the first listing */
	assert_false(listed(&l, "b"));
	sysroot_dirlist_free(&l);
	assert_int_equal(sysroot_listdir(&sr, "nosizes", &l), 0);
	assert_false(l.kept);
	assert_int_equal(l.n, 2);
	assert_true(listed(&l, "a") && listed(&l, "b"));
	sysroot_dirlist_free(&l);
	/* without the cache: listed now */
	sr.cache = NULL;
	assert_int_equal(sysroot_listdir(&sr, "sizes", &l), 0);
	assert_int_equal(l.n, 2);
	sysroot_dirlist_free(&l);
	assert_int_equal(sysroot_listdir(&sr, "missing", &l), -ENOENT);
	fdcache_free(&c);
	unit_tree_remove(dir, &sr);
}

UNIT_TESTS(test_cache, test_missing_file_kept_dead, test_static_missing, test_exited_process,
	   test_modes, test_listdir_kept)
