// SPDX-License-Identifier: MIT
/* Unit tests: src/kernel/sysroot.c (reads that always end: file kinds, ceilings, streamed lines). */
#include "unit.h"

#include <dirent.h>
#include <sys/mman.h>

#include "kernel/proc_read.h"
#include "kernel/sysfs.h"
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

static int setup(UNIT_STATE)
{
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

static int teardown(UNIT_STATE)
{
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

static void test_ceilings_by_kind(UNIT_STATE)
{
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

static void test_knob_above_4_kib_is_too_large(UNIT_STATE)
{
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

static void test_fifo_device_loop_directory_refused(UNIT_STATE)
{
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
	/* a system file may follow links, but only those that stay in the tree */
	assert_int_equal(sysroot_read(&sr, "etc/group", &b), -ELOOP);
	assert_int_equal(b.len, 0);
	buf_free(&b);
	sysroot_close(&sr);
}

/*
 * A directory symlink below the root of a recorded tree is refused too: proc/PID -> a
 * directory outside (issue 24), a sys/ directory link, "..". A system file follows a
 * link that stays in the tree. WALK: the same without openat2 (kernels before 5.6).
 */
static void dir_links_refused(bool walk)
{
	if (walk)
		setenv("THPCTL_NO_OPENAT2", "1", 1);
	char out[128];
	snprintf(out, sizeof(out), "%s.out", dir);
	assert_int_equal(mkdir(out, 0755), 0);
	unit_put(out, "status", "Name:\toutside\n");
	unit_put(out, "vmstat", "thp_fault_alloc 1\n");
	assert_int_equal(symlink(out, in_dir("proc/4242")), 0);		  /* absolute */
	assert_int_equal(symlink("../../x.out", in_dir("proc/4343")), 0); /* relative, out */
	unit_mkdir(dir, "proc/4444");
	unit_put(dir, "proc/4444/status", "Name:\tinside\n");
	assert_int_equal(symlink("4444", in_dir("proc/4545")), 0); /* inside, still a link */
	unit_mkdir(dir, "sys");
	assert_int_equal(symlink(out, in_dir("sys/kernel")), 0);
	unit_put(dir, "etc/real", "root:x:0:0::/root:/bin/sh\n");
	assert_int_equal(symlink("real", in_dir("etc/passwd")), 0);
	struct sysroot sr;
	assert_int_equal(sysroot_open(&sr, dir), 0);
	struct buf b = {0};
	assert_int_equal(sysroot_read(&sr, "proc/4242/status", &b), -ELOOP);
	assert_int_equal(sysroot_read(&sr, "proc/4343/status", &b), -ELOOP);
	assert_int_equal(sysroot_read(&sr, "proc/4545/status", &b), -ELOOP);
	assert_int_equal(sysroot_read(&sr, "proc/4444/status", &b), 0);
	assert_string_equal(b.p, "Name:\tinside\n");
	assert_int_equal(sysroot_read(&sr, "sys/kernel/vmstat", &b), -ELOOP);
	assert_int_equal(sysroot_read(&sr, "proc/4444/../4242/status", &b), -ELOOP);
	assert_int_equal(sysroot_openat(&sr, "proc/4242", O_RDONLY | O_DIRECTORY), -ELOOP);
	assert_null(sysroot_opendir(&sr, "proc/4242"));
	assert_int_equal(errno, ELOOP);
	assert_int_equal(sysroot_exists(&sr, "proc/4242/status"), -ELOOP);
	struct stat st;
	assert_int_equal(sysroot_stat(&sr, "proc/4242", &st, true), 0); /* the link itself */
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(sysroot_read(&sr, "etc/passwd", &b), walk ? -ELOOP : 0);
	/* the live root keeps its links (proc/self): not a recorded tree */
	struct sysroot live;
	assert_int_equal(sysroot_open(&live, "/"), 0);
	assert_true(live.live);
	assert_int_equal(sysroot_read(&live, "proc/self/status", &b), 0);
	sysroot_close(&live);
	buf_free(&b);
	sysroot_close(&sr);
	unlink(in_dir("proc/4242")); /* rm_tree follows directory links: drop them first */
	unlink(in_dir("proc/4545"));
	unlink(in_dir("sys/kernel"));
	char p[192];
	snprintf(p, sizeof(p), "%s/status", out);
	unlink(p);
	snprintf(p, sizeof(p), "%s/vmstat", out);
	unlink(p);
	rmdir(out);
	unsetenv("THPCTL_NO_OPENAT2");
}

static void test_dir_links_refused_openat2(UNIT_STATE)
{
	dir_links_refused(false);
}

static void test_dir_links_refused_walk(UNIT_STATE)
{
	dir_links_refused(true);
}

static int count_lines(void *ctx, const char *text, size_t len)
{
	size_t *n = ctx;
	for (size_t i = 0; i < len; i++)
		*n += text[i] == '\n';
	return 0;
}

static void test_chunks_stop_at_a_line_above_64_kib(UNIT_STATE)
{
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

struct chunks {
	size_t lines, calls, largest;
	bool last_cut, cut; /* a chunk but the last without a final newline */
};

static int note_chunk(void *ctx, const char *text, size_t len)
{
	struct chunks *c = ctx;
	c->cut |= c->last_cut;
	c->last_cut = len && text[len - 1] != '\n';
	for (size_t i = 0; i < len; i++)
		c->lines += text[i] == '\n';
	if (len > c->largest)
		c->largest = len;
	c->calls++;
	return 0;
}

/*
 * The live smaps of this process with 2000 more VMAs (> 64 KiB): procfs gives a page or so a
 * read, and FN gets whole lines many pages at a time, every line once.
 */
static void test_chunks_of_a_live_smaps(UNIT_STATE)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, (size_t)pg * 4000, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	assert_true(m != MAP_FAILED);
	for (int i = 0; i < 4000; i += 2) /* every other page read-only: 2000+ VMAs */
		assert_int_equal(mprotect(m + (size_t)i * (size_t)pg, (size_t)pg, PROT_READ), 0);
	struct sysroot sr;
	assert_int_equal(sysroot_open(&sr, "/"), 0);
	struct buf b = {0};
	assert_int_equal(sysroot_read(&sr, "proc/self/smaps", &b), 0);
	size_t want = 0;
	for (size_t i = 0; i < b.len; i++)
		want += b.p[i] == '\n';
	struct chunks c = {0};
	assert_int_equal(sysroot_read_chunks(&sr, "proc/self/smaps", &b, note_chunk, &c), 0);
	assert_false(c.cut || c.last_cut); /* smaps ends with a newline */
	/* the same lines (a VMA or two of the process may come and go: the allocator) */
	assert_true(c.lines + 200 > want && c.lines < want + 200);
	assert_true(want > 2000 * 20);
	assert_true(c.largest > 32768); /* many pages to FN at once, not one */
	buf_free(&b);
	sysroot_close(&sr);
	munmap(m, (size_t)pg * 4000);
}

/* Only the live root's procfs skips the regular-file check: a recorded tree never does. */
static void test_only_a_live_procfs_is_trusted(UNIT_STATE)
{
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

/* RHEL 6 keeps THP under redhat_transparent_hugepage/: a writer names that file, others pass. */
static void test_real_rel_of_a_rhel6_tree(UNIT_STATE)
{
	struct sysroot sr;
	char out[64];
	unit_mkdirs(dir, "sys/kernel/mm/redhat_transparent_hugepage");
	assert_int_equal(sysroot_open(&sr, dir), 0);
	assert_true(sr.rhel_thp);
	assert_string_equal(thp_dir_host(&sr), "/sys/kernel/mm/redhat_transparent_hugepage");
	assert_int_equal(thp_real_rel(&sr, "/" SR_THP "/khugepaged/defrag", out, sizeof(out)), 0);
	assert_string_equal(out, "sys/kernel/mm/redhat_transparent_hugepage/khugepaged/defrag");
	/* a name that only begins like the directory, and other files, stay as they are */
	assert_int_equal(thp_real_rel(&sr, SR_THP "_x/enabled", out, sizeof(out)), 0);
	assert_string_equal(out, SR_THP "_x/enabled");
	assert_int_equal(thp_real_rel(&sr, "proc/sys/vm/nr_hugepages", out, sizeof(out)), 0);
	assert_string_equal(out, "proc/sys/vm/nr_hugepages");
	/* too long for OUT: refused, never cut */
	assert_int_equal(thp_real_rel(&sr, SR_THP "/enabled", out, 20), -ENAMETOOLONG);
	sysroot_close(&sr);
	unit_mkdirs(dir, SR_THP);
	assert_int_equal(sysroot_open(&sr, dir), 0);
	assert_false(sr.rhel_thp);
	assert_string_equal(thp_dir_host(&sr), PATH_THP);
	assert_int_equal(thp_real_rel(&sr, SR_THP "/enabled", out, sizeof(out)), 0);
	assert_string_equal(out, SR_THP "/enabled");
	sysroot_close(&sr);
}

UNIT_MAIN(cmocka_unit_test(test_ceilings_by_kind),
	  cmocka_unit_test_setup_teardown(test_real_rel_of_a_rhel6_tree, setup, teardown),
	  cmocka_unit_test_setup_teardown(test_dir_links_refused_openat2, setup, teardown),
	  cmocka_unit_test_setup_teardown(test_dir_links_refused_walk, setup, teardown),
	  cmocka_unit_test_setup_teardown(test_knob_above_4_kib_is_too_large, setup, teardown),
	  cmocka_unit_test_setup_teardown(test_fifo_device_loop_directory_refused, setup, teardown),
	  cmocka_unit_test_setup_teardown(test_chunks_stop_at_a_line_above_64_kib, setup, teardown),
	  cmocka_unit_test_setup_teardown(test_only_a_live_procfs_is_trusted, setup, teardown),
	  cmocka_unit_test(test_chunks_of_a_live_smaps))
