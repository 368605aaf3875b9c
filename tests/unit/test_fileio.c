// SPDX-License-Identifier: MIT
/* Unit tests: src/util/fileio.c (whole-file read, pread loop, atomic write, mkdir_mode). */
#include "unit.h"

#include <dirent.h>
#include <sys/stat.h>

#include "util/fileio.h"

static char dir[64];

static int setup(UNIT_STATE)
{
	snprintf(dir, sizeof(dir), "/tmp/thpctl-fileio.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(UNIT_STATE)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.' || (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")))
			unlinkat(dirfd(d), de->d_name, 0);
	if (d)
		closedir(d);
	return rmdir(dir);
}

/* DIR/NAME (in one of two static buffers, used in turn). */
static const char *in_dir(const char *name)
{
	static char path[2][128];
	static int k;
	k ^= 1;
	snprintf(path[k], sizeof(path[k]), "%s/%s", dir, name);
	return path[k];
}

/* A file NAME in DIR holding LEN bytes of TEXT; its path (in_dir's buffer). */
static const char *put(const char *name, const char *text, size_t len)
{
	const char *path = in_dir(name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write_all(fd, text, len), 0);
	close(fd);
	return path;
}

/* Names in DIR, sorted, joined with spaces. */
static void listing(char *out, size_t n)
{
	struct dirent **v;
	int k = scandir(dir, &v, NULL, alphasort);
	assert_true(k >= 0);
	out[0] = '\0';
	for (int i = 0; i < k; i++) {
		if (strcmp(v[i]->d_name, ".") && strcmp(v[i]->d_name, ".."))
			snprintf(out + strlen(out), n - strlen(out), "%s%s", *out ? " " : "",
				 v[i]->d_name);
		free(v[i]);
	}
	free(v);
}

static void test_read_file_reads_whole_file_nul_terminated(UNIT_STATE)
{
	put("a", "one\ntwo\n", 8);
	int d = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct buf b = {0};
	assert_int_equal(read_file_at(d, "a", &b, 8), 0);
	assert_int_equal(b.len, 8);
	assert_string_equal(b.p, "one\ntwo\n");
	close(d);
	buf_free(&b);
}

static void test_read_file_above_limit_fails_with_efbig(UNIT_STATE)
{
	const char *path = put("a", "123456789", 9);
	struct buf b = {0};
	assert_int_equal(read_file_at(AT_FDCWD, path, &b, 8), -EFBIG);
	assert_int_equal(read_file_at(AT_FDCWD, path, &b, 9), 0);
	assert_string_equal(b.p, "123456789");
	buf_free(&b);
}

static void test_read_file_missing_is_enoent(UNIT_STATE)
{
	int d = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct buf b = {0};
	assert_int_equal(read_file_at(d, "missing", &b, 100), -ENOENT);
	close(d);
	buf_free(&b);
}

static void test_read_fd_of_200_kib_spans_chunks(UNIT_STATE)
{
	size_t n = 200 * 1024;
	char *text = malloc(n);
	assert_non_null(text);
	for (size_t i = 0; i < n; i++)
		text[i] = (char)('a' + i % 26);
	const char *path = put("big", text, n);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct buf b = {0};
	assert_int_equal(buf_read_fd(&b, fd, n, 0), 0);
	assert_int_equal(b.len, n);
	assert_memory_equal(b.p, text, n);
	assert_int_equal(b.p[n], '\0');
	/* at EOF now: read() gives nothing more, pread() from 0 all again */
	assert_int_equal(buf_read_fd(&b, fd, n, 0), 0);
	assert_int_equal(b.len, 0);
	assert_int_equal(buf_read_fd(&b, fd, n, READ_PREAD), 0);
	assert_int_equal(b.len, n);
	close(fd);
	free(text);
	buf_free(&b);
}

static void test_read_fd_replaces_previous_content(UNIT_STATE)
{
	const char *path = put("a", "xy", 2);
	struct buf b = {0};
	assert_int_equal(buf_reserve(&b, 10), 0);
	memcpy(b.p, "old text", 9);
	b.len = 8;
	assert_int_equal(read_file_at(AT_FDCWD, path, &b, 100), 0);
	assert_int_equal(b.len, 2);
	assert_string_equal(b.p, "xy");
	buf_free(&b);
}

static void test_pread_full_stops_at_end_of_file(UNIT_STATE)
{
	put("a", "0123456789", 10);
	char out[16] = {0};
	const char *path = in_dir("a");
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_int_equal(pread_full(fd, out, 4, 3), 4);
	assert_memory_equal(out, "3456", 4);
	assert_int_equal(pread_full(fd, out, 16, 6), 4);
	assert_memory_equal(out, "6789", 4);
	assert_int_equal(pread_full(fd, out, 4, 10), 0);
	assert_int_equal(pread_full(-1, out, 4, 0), -EBADF);
	close(fd);
}

static void test_pread_exact_short_file_is_eio(UNIT_STATE)
{
	put("a", "0123456789", 10);
	char out[16];
	const char *path = in_dir("a");
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_int_equal(pread_exact(fd, out, 10, 0), 0);
	assert_memory_equal(out, "0123456789", 10);
	assert_int_equal(pread_exact(fd, out, 11, 0), -EIO);
	assert_int_equal(pread_exact(fd, out, 0, 99), 0);
	close(fd);
}

static void test_write_atomic_replaces_file_and_leaves_no_temporary(UNIT_STATE)
{
	put("conf", "old\n", 4);
	char names[256];
	const char *path = in_dir("conf");
	assert_int_equal(write_file_atomic(path, "new text\n", 9, 0640), 0);
	struct buf b = {0};
	assert_int_equal(read_file_at(AT_FDCWD, path, &b, 100), 0);
	assert_string_equal(b.p, "new text\n");
	buf_free(&b);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	listing(names, sizeof(names));
	assert_string_equal(names, "conf");
}

static void test_write_atomic_creates_a_new_file(UNIT_STATE)
{
	char names[256];
	const char *path = in_dir("fresh.prom");
	assert_int_equal(write_file_atomic(path, "", 0, 0644), 0);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	listing(names, sizeof(names));
	assert_string_equal(names, "fresh.prom");
}

static void test_write_atomic_into_missing_directory_is_enoent(UNIT_STATE)
{
	const char *path = in_dir("no/such/file");
	assert_int_equal(write_file_atomic(path, "x", 1, 0644), -ENOENT);
}

static void test_write_atomic_over_a_directory_keeps_it(UNIT_STATE)
{
	char names[256];
	const char *path = in_dir("sub");
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(write_file_atomic(path, "x", 1, 0644), -EISDIR);
	listing(names, sizeof(names));
	assert_string_equal(names, "sub"); /* the temporary file is gone */
	rmdir(path);
}

/* A FIFO (like a device: snapshot save renamed its file over /dev/full) is never replaced. */
static void test_write_atomic_over_a_fifo_keeps_it(UNIT_STATE)
{
	char names[256];
	const char *path = in_dir("fifo");
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(write_file_atomic(path, "x", 1, 0644), -ERR_NOTREG);
	struct stat st;
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	listing(names, sizeof(names));
	assert_string_equal(names, "fifo"); /* no temporary file made */
	unlink(path);
}

/* the text of the file PATH (a static buffer), "" when it cannot be read */
static const char *text_of(const char *path)
{
	static char t[256];
	struct buf b = {0};
	snprintf(t, sizeof(t), "%s", read_file_at(AT_FDCWD, path, &b, 200) == 0 ? b.p : "");
	buf_free(&b);
	return t;
}

/* persist --install over another file: the old one stays under a second name */
static void test_replace_keep_keeps_the_old_file(UNIT_STATE)
{
	char names[256];
	put("thpctl.conf", "old\n", 4);
	assert_int_equal(chmod(in_dir("thpctl.conf"), 0600), 0);
	char keep[128];
	snprintf(keep, sizeof(keep), "%s", in_dir("thpctl.conf.thpctl-old"));
	assert_int_equal(replace_file_keep(in_dir("thpctl.conf"), keep, "new\n", 4, 0644), 0);
	assert_string_equal(text_of(in_dir("thpctl.conf")), "new\n");
	assert_string_equal(text_of(keep), "old\n");
	struct stat st;
	assert_int_equal(stat(keep, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600); /* the old file itself, as it was */
	assert_int_equal(st.st_nlink, 1);
	listing(names, sizeof(names));
	assert_string_equal(names, "thpctl.conf thpctl.conf.thpctl-old");
}

/* a file kept before is never overwritten; a missing file is not "replaced" */
static void test_replace_keep_refuses_over_a_kept_file_and_a_missing_one(UNIT_STATE)
{
	char names[256], keep[128];
	put("a.conf", "current\n", 8);
	put("a.conf.thpctl-old", "first\n", 6);
	snprintf(keep, sizeof(keep), "%s", in_dir("a.conf.thpctl-old"));
	assert_int_equal(replace_file_keep(in_dir("a.conf"), keep, "new\n", 4, 0644), -EEXIST);
	assert_string_equal(text_of(in_dir("a.conf")), "current\n");
	assert_string_equal(text_of(keep), "first\n");
	snprintf(keep, sizeof(keep), "%s", in_dir("b.conf.thpctl-old"));
	assert_int_equal(replace_file_keep(in_dir("b.conf"), keep, "new\n", 4, 0644), -ENOENT);
	listing(names, sizeof(names));
	assert_string_equal(names, "a.conf a.conf.thpctl-old");
}

/* a unit that runs thpctl as root at boot: who could change that path (the live test,
 * tests/live/control.sh, checks owners, groups and links below a root-only directory) */
static void test_path_root_only(UNIT_STATE)
{
	char bad[64] = "x";
	struct stat st, tmp, root;
	assert_int_equal(path_root_only("build/thpctl", bad, sizeof(bad), &st), -EINVAL);
	assert_int_equal(lstat("/", &root), 0);
	bool root_ok = root.st_uid == 0 && !(root.st_mode & 022);
	assert_int_equal(path_root_only("/", bad, sizeof(bad), &st), root_ok ? 0 : -EPERM);
	if (!root_ok)
		skip();
	assert_int_equal(path_root_only("/no-such-thpctl-file", bad, sizeof(bad), &st), -ENOENT);
	assert_string_equal(bad, "/no-such-thpctl-file");
	/* this test's directory is under /tmp: refused there, whatever is below, when /tmp is
	 * writable by others (sticky or not) */
	put("thpctl", "x", 1);
	assert_int_equal(lstat("/tmp", &tmp), 0);
	if (tmp.st_uid == 0 && !(tmp.st_mode & 022))
		skip();
	assert_int_equal(path_root_only(in_dir("thpctl"), bad, sizeof(bad), &st), -EPERM);
	assert_string_equal(bad, "/tmp");
	assert_int_equal(st.st_mode, tmp.st_mode);
	assert_int_equal(path_root_only("/tmp//", bad, sizeof(bad), &st), -EPERM);
	assert_string_equal(bad, "/tmp");
}

/* the systemd unit runs with UMask=0077: a directory made 0755 must be 0755, not 0700 */
static void test_mkdir_mode_ignores_the_umask_and_keeps_an_existing_dir(UNIT_STATE)
{
	struct stat st;
	const char *made = in_dir("made"), *had = in_dir("had");
	mode_t old = umask(077);
	int r = mkdir_mode(made, 0755);
	assert_int_equal(mkdir(had, 0700), 0);
	int r2 = mkdir_mode(had, 0755);
	umask(old);
	assert_int_equal(r, 0);
	assert_int_equal(stat(made, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0755);
	assert_int_equal(r2, -EEXIST);
	assert_int_equal(stat(had, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700); /* not ours: untouched */
	rmdir(made);
	rmdir(had);
	assert_int_equal(mkdir_mode(in_dir("no/such"), 0755), -ENOENT); /* reuses made's buffer */
}

static void test_open_regular_refuses_a_fifo_without_blocking(UNIT_STATE)
{
	assert_int_equal(mkfifo(in_dir("fifo"), 0600), 0);
	assert_int_equal(open_regular_at(AT_FDCWD, in_dir("fifo"), 0), -ERR_NOTREG);
	assert_int_equal(open_regular_at(AT_FDCWD, in_dir("fifo"), OPEN_PRECHECK), -ERR_NOTREG);
	struct buf b = {0};
	assert_int_equal(read_file_at(AT_FDCWD, in_dir("fifo"), &b, 4096), -ERR_NOTREG);
	assert_string_equal(read_err_str(-ERR_NOTREG), "not a regular file");
	buf_free(&b);
}

static void test_open_regular_refuses_a_device_and_a_directory(UNIT_STATE)
{
	assert_int_equal(open_regular_at(AT_FDCWD, "/dev/zero", 0), -ERR_NOTREG);
	assert_int_equal(symlink("/dev/zero", in_dir("zero")), 0);
	assert_int_equal(open_regular_at(AT_FDCWD, in_dir("zero"), 0), -ERR_NOTREG);
	assert_int_equal(open_regular_at(AT_FDCWD, in_dir("zero"), OPEN_NOFOLLOW), -ELOOP);
	assert_int_equal(mkdir(in_dir("sub"), 0755), 0);
	assert_int_equal(open_regular_at(AT_FDCWD, in_dir("sub"), 0), -EISDIR);
	assert_int_equal(open_regular_at(AT_FDCWD, in_dir("sub"), OPEN_PRECHECK), -EISDIR);
	rmdir(in_dir("sub"));
	assert_string_equal(read_err_str(-EISDIR), "a directory");
}

static void test_open_regular_symlinks_followed_unless_nofollow(UNIT_STATE)
{
	put("real", "1\n", 2);
	assert_int_equal(symlink("real", in_dir("link")), 0);
	int fd = open_regular_at(AT_FDCWD, in_dir("link"), 0);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(open_regular_at(AT_FDCWD, in_dir("link"), OPEN_NOFOLLOW), -ELOOP);
	assert_int_equal(open_regular_at(AT_FDCWD, in_dir("link"), OPEN_NOFOLLOW | OPEN_PRECHECK),
			 -ELOOP);
	assert_int_equal(symlink("loop", in_dir("loop")), 0);
	assert_int_equal(open_regular_at(AT_FDCWD, in_dir("loop"), 0), -ELOOP);
	assert_string_equal(read_err_str(-ELOOP), "a symlink or a symlink loop");
	assert_string_equal(read_err_str(-EFBIG), "too large");
}

/* A string found wherever it lies, across the 64 KiB chunks too; absent, beyond MAX, missing. */
static void test_file_has_bytes_finds_a_string_anywhere(UNIT_STATE)
{
	static char big[200000];
	memset(big, 'x', sizeof(big));
	memcpy(big + 65536 - 4, "allow_thp", 10); /* across the first chunk's end, NUL included */
	const char *p = put("lib", big, sizeof(big));
	bool found = false;
	assert_int_equal(file_has_bytes(AT_FDCWD, p, "allow_thp", 10, 1 << 20, &found), 0);
	assert_true(found);
	assert_int_equal(file_has_bytes(AT_FDCWD, p, "allow_thp\0z", 11, 1 << 20, &found), 0);
	assert_false(found);
	/* only the first 1000 bytes read, the rest unknown: not "absent" */
	assert_int_equal(file_has_bytes(AT_FDCWD, p, "allow_thp", 10, 1000, &found), -EFBIG);
	assert_false(found);
	memcpy(big + sizeof(big) - 10, "allow_thp", 10); /* the last bytes of the file */
	memset(big + 65536 - 4, 'x', 10);
	p = put("lib", big, sizeof(big));
	assert_int_equal(file_has_bytes(AT_FDCWD, p, "allow_thp", 10, sizeof(big), &found), 0);
	assert_true(found);
	assert_int_equal(file_has_bytes(AT_FDCWD, in_dir("none"), "a", 1, 100, &found), -ENOENT);
	assert_false(found);
}

UNIT_MAIN(cmocka_unit_test_setup_teardown(test_read_file_reads_whole_file_nul_terminated, setup,
					  teardown),
	  cmocka_unit_test_setup_teardown(test_file_has_bytes_finds_a_string_anywhere, setup,
					  teardown),
	  cmocka_unit_test_setup_teardown(test_read_file_above_limit_fails_with_efbig, setup,
					  teardown),
	  cmocka_unit_test_setup_teardown(test_read_file_missing_is_enoent, setup, teardown),
	  cmocka_unit_test_setup_teardown(test_read_fd_of_200_kib_spans_chunks, setup, teardown),
	  cmocka_unit_test_setup_teardown(test_read_fd_replaces_previous_content, setup, teardown),
	  cmocka_unit_test_setup_teardown(test_pread_full_stops_at_end_of_file, setup, teardown),
	  cmocka_unit_test_setup_teardown(test_pread_exact_short_file_is_eio, setup, teardown),
	  cmocka_unit_test_setup_teardown(test_write_atomic_replaces_file_and_leaves_no_temporary,
					  setup, teardown),
	  cmocka_unit_test_setup_teardown(test_write_atomic_creates_a_new_file, setup, teardown),
	  cmocka_unit_test_setup_teardown(test_write_atomic_into_missing_directory_is_enoent, setup,
					  teardown),
	  cmocka_unit_test_setup_teardown(test_write_atomic_over_a_directory_keeps_it, setup,
					  teardown),
	  cmocka_unit_test_setup_teardown(test_write_atomic_over_a_fifo_keeps_it, setup, teardown),
	  cmocka_unit_test_setup_teardown(
		  test_mkdir_mode_ignores_the_umask_and_keeps_an_existing_dir, setup, teardown),
	  cmocka_unit_test_setup_teardown(test_open_regular_refuses_a_fifo_without_blocking, setup,
					  teardown),
	  cmocka_unit_test_setup_teardown(test_open_regular_refuses_a_device_and_a_directory, setup,
					  teardown),
	  cmocka_unit_test_setup_teardown(test_replace_keep_keeps_the_old_file, setup, teardown),
	  cmocka_unit_test_setup_teardown(
		  test_replace_keep_refuses_over_a_kept_file_and_a_missing_one, setup, teardown),
	  cmocka_unit_test_setup_teardown(test_path_root_only, setup, teardown),
	  cmocka_unit_test_setup_teardown(test_open_regular_symlinks_followed_unless_nofollow,
					  setup, teardown))
