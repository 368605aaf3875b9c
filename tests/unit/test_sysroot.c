// SPDX-License-Identifier: MIT
/* Unit tests: src/kernel/sysroot.c (reads that always end: file kinds, ceilings, streamed lines). */
#include "unit.h"

#include <dirent.h>

#include "kernel/proc_read.h"
#include "kernel/sysroot.h"

static char dir[64];

static int rm_tree(const char *path)
{
	DIR *d = opendir(path);
	if (!d)
		return unlink(path);
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char p[512];
		snprintf(p, sizeof(p), "%s/%s", path, de->d_name);
		rm_tree(p);
	}
	closedir(d);
	return rmdir(path);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/thpctl-sysroot.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	char p[512];
	snprintf(p, sizeof(p), "%s/proc", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/etc", dir);
	mkdir(p, 0755);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return rm_tree(dir);
}

static const char *in_dir(const char *rel)
{
	static char p[512];
	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	return p;
}

/* A file REL of N copies of C ending in a newline. */
static void put_n(const char *rel, char c, size_t n)
{
	char *s = malloc(n + 1);
	assert_non_null(s);
	memset(s, c, n);
	s[n - 1] = '\n';
	s[n] = '\0';
	unit_put(dir, rel, s);
	free(s);
}

static void test_ceilings_by_kind(void **state)
{
	(void)state;
	assert_int_equal(sysroot_read_max("sys/kernel/mm/transparent_hugepage/enabled"), 4096);
	assert_int_equal(
		sysroot_read_max("sys/kernel/mm/transparent_hugepage/hugepages-64kB/stats/split"),
		4096);
	assert_int_equal(sysroot_read_max("proc/vmstat"), 65536);
	assert_int_equal(sysroot_read_max("proc/meminfo"), 65536);
	assert_int_equal(sysroot_read_max("proc/buddyinfo"), 65536);
	assert_int_equal(sysroot_read_max("sys/devices/system/node/node0/meminfo"), 65536);
	assert_int_equal(sysroot_read_max("proc/30730/status"), 16384);
	assert_int_equal(sysroot_read_max("status"), 16384); /* relative to proc/PID */
	assert_int_equal(sysroot_read_max("proc/30730/stat"), 16384);
	assert_int_equal(sysroot_read_max("proc/sys/kernel/osrelease"), 4096);
	/* dpkg's status is not a process's */
	assert_int_equal(sysroot_read_max("var/lib/dpkg/status"), SYSROOT_READ_MAX);
	assert_int_equal(sysroot_read_max("proc/30730/maps"), SYSROOT_READ_MAX);
}

static void test_knob_above_4_kib_is_too_large(void **state)
{
	(void)state;
	unit_mkdir(dir, "sys");
	unit_mkdir(dir, "sys/kernel");
	unit_mkdir(dir, "sys/kernel/mm");
	put_n("sys/kernel/mm/knob", '1', 4096);
	struct sysroot sr;
	assert_int_equal(sysroot_open(&sr, dir), 0);
	struct buf b = {0};
	assert_int_equal(sysroot_read(&sr, "sys/kernel/mm/knob", &b), 0);
	assert_int_equal(b.len, 4096);
	put_n("sys/kernel/mm/knob", '1', 4097);
	assert_int_equal(sysroot_read(&sr, "sys/kernel/mm/knob", &b), -EFBIG);
	put_n("proc/vmstat", '1', 65537);
	assert_int_equal(sysroot_read(&sr, "proc/vmstat", &b), -EFBIG);
	buf_free(&b);
	sysroot_close(&sr);
}

static void test_fifo_device_loop_directory_refused(void **state)
{
	(void)state;
	assert_int_equal(mkfifo(in_dir("proc/vmstat"), 0600), 0);
	assert_int_equal(symlink("/dev/zero", in_dir("proc/meminfo")), 0);
	assert_int_equal(symlink("buddyinfo", in_dir("proc/buddyinfo")), 0);
	unit_mkdir(dir, "proc/uptime");
	assert_int_equal(mkfifo(in_dir("etc/passwd"), 0600), 0);
	assert_int_equal(symlink("/dev/zero", in_dir("etc/group")), 0);
	struct sysroot sr;
	assert_int_equal(sysroot_open(&sr, dir), 0);
	struct buf b = {0};
	assert_int_equal(sysroot_read(&sr, "proc/vmstat", &b), -ERR_NOTREG);
	assert_int_equal(sysroot_read(&sr, "proc/meminfo", &b), -ELOOP); /* kernel path: no link */
	assert_int_equal(sysroot_read(&sr, "proc/buddyinfo", &b), -ELOOP);
	assert_int_equal(sysroot_read(&sr, "proc/uptime", &b), -EISDIR);
	assert_int_equal(sysroot_read(&sr, "etc/passwd", &b), -ERR_NOTREG);
	assert_int_equal(sysroot_read(&sr, "etc/group", &b), -ERR_NOTREG); /* followed, refused */
	assert_int_equal(b.len, 0);
	buf_free(&b);
	sysroot_close(&sr);
}

static int count_lines(void *ctx, const char *text, size_t len)
{
	size_t *n = ctx;
	for (size_t i = 0; i < len; i++)
		*n += text[i] == '\n';
	return 0;
}

static void test_chunks_stop_at_a_line_above_64_kib(void **state)
{
	(void)state;
	struct sysroot sr;
	assert_int_equal(sysroot_open(&sr, dir), 0);
	struct buf b = {0};
	size_t n = 0;
	put_n("proc/smaps", 'x', SR_MAX_LINE);
	assert_int_equal(sysroot_read_chunks(&sr, "proc/smaps", &b, count_lines, &n), 0);
	assert_int_equal(n, 1);
	/* 100 000 characters on one line: the read stops, whatever the chunking */
	char *s = malloc(200001);
	assert_non_null(s);
	memset(s, 'y', 200000);
	s[10] = '\n';
	s[100011] = '\n';
	s[200000] = '\0';
	unit_put(dir, "proc/smaps", s);
	free(s);
	n = 0;
	assert_int_equal(sysroot_read_chunks(&sr, "proc/smaps", &b, count_lines, &n), -EFBIG);
	assert_int_equal(n, 1); /* the line before it */
	assert_int_equal(mkfifo(in_dir("proc/fifo"), 0600), 0);
	assert_int_equal(sysroot_read_chunks(&sr, "proc/fifo", &b, count_lines, &n), -ERR_NOTREG);
	buf_free(&b);
	sysroot_close(&sr);
}

/* Only the live root's procfs skips the regular-file check: a recorded tree never does. */
static void test_only_a_live_procfs_is_trusted(void **state)
{
	(void)state;
	struct sysroot sr;
	assert_int_equal(sysroot_open(&sr, "/"), 0);
	assert_true(sr.live && sr.procfs);
	assert_false(sr.proc_pid);
	sysroot_close(&sr);
	unit_mkdir(dir, "proc/7");
	assert_int_equal(mkfifo(in_dir("proc/7/status"), 0600), 0);
	assert_int_equal(sysroot_open(&sr, dir), 0);
	assert_false(sr.procfs);
	struct proc_info pi = {0};
	/* a FIFO where status was: refused, not waited on */
	assert_int_equal(proc_read(&sr, 7, PROC_STATUS, &pi), 0);
	assert_int_equal(pi.status_err, -ERR_NOTREG);
	proc_info_free(&pi);
	sysroot_close(&sr);
}

UNIT_MAIN(cmocka_unit_test(test_ceilings_by_kind),
	  cmocka_unit_test_setup_teardown(test_knob_above_4_kib_is_too_large, setup, teardown),
	  cmocka_unit_test_setup_teardown(test_fifo_device_loop_directory_refused, setup, teardown),
	  cmocka_unit_test_setup_teardown(test_chunks_stop_at_a_line_above_64_kib, setup, teardown),
	  cmocka_unit_test_setup_teardown(test_only_a_live_procfs_is_trusted, setup, teardown))
