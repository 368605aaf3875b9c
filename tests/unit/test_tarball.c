// SPDX-License-Identifier: MIT
/* Unit tests: src/util/tarball.c (member name sanitizer) and tarx.c (extract, remove). */
#include "unit.h"

#include "util/tarball.h"

#include <archive.h>
#include <dirent.h>
#include <archive_entry.h>

static const struct {
	const char *in, *out; /* out NULL: refused with -EINVAL */
} names[] = {
	{"proc/vmstat", "proc/vmstat"},
	{"./proc/vmstat", "proc/vmstat"},
	{"proc//1///smaps", "proc/1/smaps"},
	{"proc/./1/./stat", "proc/1/stat"},
	{"sys/kernel/mm/", "sys/kernel/mm"},
	{"..data", "..data"}, /* a name that starts with dots is not ".." */
	{"a/...", "a/..."},
	{"/etc/passwd", NULL},
	{"//etc/passwd", NULL},
	{"../etc/passwd", NULL},
	{"proc/../../etc", NULL},
	{"proc/..", NULL},
	{"..", NULL},
	{".", NULL},
	{"./", NULL},
	{"", NULL},
	/* control bytes in a component are kept (a cgroup named so is captured) */
	{"proc/a\nb", "proc/a\nb"},
	{"proc/a\x7f", "proc/a\x7f"},
	{"proc/\x1b[31m", "proc/\x1b[31m"},
	{"sys/fs/cgroup/trial-\x1b[31mred\t\xc3\xa9\xff/memory.stat",
	 "sys/fs/cgroup/trial-\x1b[31mred\t\xc3\xa9\xff/memory.stat"},
	{"a/\x01\x1f/../b", NULL},
};

static void test_sanitize_keeps_relative_names_and_refuses_escapes(UNIT_STATE)
{
	for (size_t i = 0; i < UNIT_LEN(names); i++) {
		char out[64] = "unchanged";
		int r = tar_name_sanitize(names[i].in, out, sizeof(out));
		if (names[i].out) {
			assert_int_equal(r, 0);
			assert_string_equal(out, names[i].out);
		} else {
			assert_int_equal(r, -EINVAL);
		}
	}
}

static void test_sanitize_bounds_depth_component_and_output(UNIT_STATE)
{
	char in[600], out[600];
	/* TAR_MAX_DEPTH components pass, one more is refused */
	size_t o = 0;
	for (int i = 0; i < TAR_MAX_DEPTH; i++)
		o += (size_t)snprintf(in + o, sizeof(in) - o, "%sd", i ? "/" : "");
	assert_int_equal(tar_name_sanitize(in, out, sizeof(out)), 0);
	assert_int_equal(strlen(out), (size_t)(2 * TAR_MAX_DEPTH - 1));
	snprintf(in + o, sizeof(in) - o, "/d");
	assert_int_equal(tar_name_sanitize(in, out, sizeof(out)), -EINVAL);
	/* a component of 255 bytes passes, 256 is refused */
	memset(in, 'x', 256);
	in[255] = '\0';
	assert_int_equal(tar_name_sanitize(in, out, sizeof(out)), 0);
	in[255] = 'x';
	in[256] = '\0';
	assert_int_equal(tar_name_sanitize(in, out, sizeof(out)), -EINVAL);
	/* "abc/def" needs 8 bytes with its NUL */
	assert_int_equal(tar_name_sanitize("abc/def", out, 8), 0);
	assert_int_equal(tar_name_sanitize("abc/def", out, 7), -ENAMETOOLONG);
	assert_int_equal(tar_name_sanitize(NULL, out, 8), -EINVAL);
}

#define HIGH_NAME "sys/fs/cgroup/caf\xc3\xa9-\xff/memory.stat"
#define LONG_NAME                                                                                  \
	"sys/fs/cgroup/a-cgroup-name-that-is-long-enough-to-pass-one-hundred-bytes-of-ustar/"      \
	"and-more/memory.stat"

/* A bundle at PATH with good files (one of bytes >= 0x80, one long), a ../ name and a
 * write-only member, written by tarw and libarchive. */
static void write_bundle(const char *path)
{
	int err = 1;
	struct tarw *w = tarw_open(path, &err);
	assert_non_null(w);
	assert_int_equal(err, 0);
	assert_int_equal(tarw_add(w, "proc/vmstat", 0444, "thp_fault_alloc 7\n", 18), 0);
	assert_int_equal(tarw_add(w, "../escape", 0644, "x", 1), 0);
	assert_int_equal(tarw_add(w, "sys/empty", 0200, "", 0), 0);
	/* a name of any bytes (a cgroup's: not UTF-8, thpctl in the C locale) and one over
	 * tar's 100 bytes are written as they are (pax refused the first: no bundle at all) */
	assert_int_equal(tarw_add(w, HIGH_NAME, 0444, "1\n", 2), 0);
	assert_int_equal(tarw_add(w, LONG_NAME, 0444, "2\n", 2), 0);
	assert_int_equal(tarw_close(w), 0);
	/* the writer never replaces a file */
	assert_null(tarw_open(path, &err));
	assert_int_equal(err, -EEXIST);
}

struct seen {
	int n;
	char last[64];
};

static void on_skip(void *ctx, const char *name, const char *why)
{
	struct seen *s = ctx;
	(void)why;
	s->n++;
	snprintf(s->last, sizeof(s->last), "%s", name);
}

static void test_extract_writes_files_below_root_and_skips_escapes(UNIT_STATE)
{
	char dir[] = "/tmp/thpctl-test-tarball.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[128], root[160];
	snprintf(path, sizeof(path), "%s/b.tar.gz", dir);
	snprintf(root, sizeof(root), "%s/root", dir);
	write_bundle(path);
	assert_int_equal(mkdir(root, 0700), 0);
	int fd = open(root, O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);
	struct tarx_stats st;
	struct seen s = {0};
	char err[256] = "";
	assert_int_equal(
		tarx_extract(path, fd, &tarx_default_limits, on_skip, &s, &st, err, sizeof(err)),
		0);
	assert_int_equal(st.files, 4);
	assert_int_equal(st.skipped, 1);
	assert_int_equal(st.bytes, 22);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.last, "../escape");
	struct stat sb;
	assert_int_equal(fstatat(fd, "proc/vmstat", &sb, 0), 0);
	assert_int_equal(sb.st_mode & 0777, 0444);
	assert_int_equal(sb.st_size, 18);
	/* a write-only member is made owner-readable */
	assert_int_equal(fstatat(fd, "sys/empty", &sb, 0), 0);
	assert_int_equal(sb.st_mode & 0777, 0600);
	assert_int_equal(fstatat(fd, HIGH_NAME, &sb, 0), 0);
	assert_int_equal(sb.st_size, 2);
	assert_int_equal(fstatat(fd, LONG_NAME, &sb, 0), 0);
	assert_int_equal(sb.st_size, 2);
	char esc[192];
	snprintf(esc, sizeof(esc), "%s/escape", dir);
	assert_int_equal(access(esc, F_OK), -1);
	/* a limit of 10 bytes per member stops it with -EFBIG */
	struct tarx_limits lim = tarx_default_limits;
	lim.max_member = 10;
	int fd2 = openat(fd, "proc", O_RDONLY | O_DIRECTORY);
	assert_true(fd2 >= 0);
	assert_int_equal(tarx_extract(path, fd2, &lim, NULL, NULL, &st, err, sizeof(err)), -EFBIG);
	assert_contains(err, "proc/vmstat: a member of 18 bytes (at most 10)");
	close(fd2);
	close(fd);
	/* tree_remove takes all of it, and a missing tree is not an error */
	assert_int_equal(tree_remove(dir), 0);
	assert_int_equal(access(dir, F_OK), -1);
	assert_int_equal(tree_remove(dir), 0);
}

/* `tar -C DIR -czf B .` starts with a "./" entry: the root, neither made nor skipped (it was
 * skipped, and every replay of such a bundle said partial). */
static void test_extract_dot_root_is_not_skipped(UNIT_STATE)
{
	assert_true(tar_name_is_root("./"));
	assert_true(tar_name_is_root("."));
	assert_true(tar_name_is_root("./."));
	assert_true(tar_name_is_root(".//"));
	assert_false(tar_name_is_root("/"));
	assert_false(tar_name_is_root(""));
	assert_false(tar_name_is_root(".."));
	assert_false(tar_name_is_root("./.."));
	assert_false(tar_name_is_root("..."));
	assert_false(tar_name_is_root("./proc"));
	assert_false(tar_name_is_root(".hidden"));
	char dir[] = "/tmp/thpctl-test-tarball.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char cmd[512], root[160];
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p %s/t/proc && printf 'thp_fault_alloc 7\\n' > %s/t/proc/vmstat && "
		 "tar -C %s/t -czf %s/b.tar.gz .",
		 dir, dir, dir, dir);
	assert_int_equal(system(cmd), 0);
	snprintf(root, sizeof(root), "%s/root", dir);
	assert_int_equal(mkdir(root, 0700), 0);
	int fd = open(root, O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);
	char path[160], err[256] = "";
	snprintf(path, sizeof(path), "%s/b.tar.gz", dir);
	struct tarx_stats st;
	struct seen s = {0};
	assert_int_equal(
		tarx_extract(path, fd, &tarx_default_limits, on_skip, &s, &st, err, sizeof(err)),
		0);
	assert_int_equal(st.skipped, 0);
	assert_int_equal(s.n, 0);
	assert_int_equal(st.files, 1);
	struct stat sb;
	assert_int_equal(fstatat(fd, "proc/vmstat", &sb, 0), 0);
	assert_int_equal(sb.st_size, 18);
	close(fd);
	assert_int_equal(tree_remove(dir), 0);
}

static void test_extract_refuses_a_non_archive(UNIT_STATE)
{
	char dir[] = "/tmp/thpctl-test-tarball.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[128];
	snprintf(path, sizeof(path), "%s/not.tar.gz", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("this is not a tar archive, not even gzip\n", f);
	fclose(f);
	int fd = open(dir, O_RDONLY | O_DIRECTORY);
	struct tarx_stats st;
	char err[256] = "";
	assert_int_equal(
		tarx_extract(path, fd, &tarx_default_limits, NULL, NULL, &st, err, sizeof(err)),
		-EINVAL);
	assert_contains(err, "not a tar.gz bundle");
	assert_int_equal(
		tarx_extract(dir, fd, &tarx_default_limits, NULL, NULL, &st, err, sizeof(err)),
		-EINVAL);
	assert_contains(err, "not a regular file");
	close(fd);
	assert_int_equal(tree_remove(dir), 0);
}

/* The entries of DIR other than "." and "..", one line each (readdir order), into OUT; how many. */
static int dir_names(const char *dir, char *out, size_t n)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	int k = 0;
	out[0] = '\0';
	for (struct dirent *de; (de = readdir(d));)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			k++, snprintf(out + strlen(out), n - strlen(out), "%s\n", de->d_name);
	closedir(d);
	return k;
}

/* The bundle is written beside its name and takes it only when complete: while written and
 * after an abort there is nothing under the name; a file made there meanwhile is kept. */
static void test_writer_names_the_bundle_only_when_complete(UNIT_STATE)
{
	char dir[64] = "/tmp/thpctl-tarw.XXXXXX", path[128], ls[512];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/b.tar.gz", dir);
	int err = 1;
	struct tarw *w = tarw_open(path, &err);
	assert_non_null(w);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(strncmp(tarw_temp(w), dir, strlen(dir)), 0);
	assert_int_equal(strncmp(tarw_temp(w) + strlen(dir), "/.b.tar.gz.", 11), 0);
	assert_int_equal(access(tarw_temp(w), F_OK), 0);
	assert_int_equal(tarw_add(w, "proc/vmstat", 0444, "x\n", 2), 0);
	tarw_abort(w);
	assert_int_equal(dir_names(dir, ls, sizeof(ls)), 0);

	/* complete: the name, and no temporary file */
	assert_non_null(w = tarw_open(path, &err));
	assert_int_equal(tarw_add(w, "proc/vmstat", 0444, "x\n", 2), 0);
	assert_int_equal(tarw_close(w), 0);
	assert_int_equal(dir_names(dir, ls, sizeof(ls)), 1);
	assert_string_equal(ls, "b.tar.gz\n");
	assert_int_equal(unlink(path), 0);

	/* a file made under the name while the bundle was written: kept, the bundle refused */
	assert_non_null(w = tarw_open(path, &err));
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("mine\n", f);
	fclose(f);
	assert_int_equal(tarw_close(w), -EEXIST);
	assert_int_equal(dir_names(dir, ls, sizeof(ls)), 1);
	char buf[16] = "";
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "mine\n");
	unit_rmrf(dir);
}

UNIT_TESTS(test_sanitize_keeps_relative_names_and_refuses_escapes,
	   test_writer_names_the_bundle_only_when_complete,
	   test_sanitize_bounds_depth_component_and_output,
	   test_extract_writes_files_below_root_and_skips_escapes,
	   test_extract_refuses_a_non_archive, test_extract_dot_root_is_not_skipped)
