/* SPDX-License-Identifier: MIT */
/* Shared by the cmocka unit tests: literals, reading live files (util/fileio.h), link stubs. */
#ifndef THPCTL_TEST_UNIT_H
#define THPCTL_TEST_UNIT_H

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <sys/stat.h>

#include "kernel/features.h"
#include "kernel/host_snapshot.h"
#include "kernel/parse.h"
#include "kernel/smaps.h"
#include "kernel/sysroot.h"
#include "util/fileio.h"

/*
 * A cmocka test function's parameter, void **state, which a test without group
 * state never reads: `static void test_x(UNIT_STATE)` says so once, and an
 * unused parameter anywhere else in the tests is still an error.
 */
#define UNIT_STATE void **state __attribute__((unused))

/* Fail unless string HAY holds NEEDLE. */
#define assert_contains(hay, needle)                                                               \
	do {                                                                                       \
		if (!strstr((hay), (needle)))                                                      \
			fail_msg("\"%s\" does not contain \"%s\"", (hay), (needle));               \
	} while (0)

/* Fail unless COND holds, naming the table row ROW (a const char *) and the condition. */
#define assert_row(row, cond) unit_row_true((cond), (row), #cond)

/* Fail unless OK, naming the table row ROW and WHAT was checked. */
static inline void unit_row_true(bool ok, const char *row, const char *what)
{
	if (!ok)
		fail_msg("row \"%s\": %s", row, what);
}

/* Fail unless GOT is WANT, naming the table row ROW and WHAT was compared. */
static inline void unit_row_int(const char *row, const char *what, long long got, long long want)
{
	if (got != want)
		fail_msg("row \"%s\": %s is %lld, want %lld", row, what, got, want);
}

/* Fail unless the string GOT is WANT, naming the table row ROW and WHAT was compared. */
static inline void unit_row_str(const char *row, const char *what, const char *got,
				const char *want)
{
	if (strcmp(got, want) != 0)
		fail_msg("row \"%s\": %s is \"%s\", want \"%s\"", row, what, got, want);
}

/* The number of elements of the array A. */
#define UNIT_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* A table row: the string IN and the number (an enum, a size, an errno) it gives. */
struct unit_str_int {
	const char *in;
	long long want;
};

/* A table row: TEXT of LEN bytes (NULs inside: LIT(...)) and the string it gives. */
struct unit_text_str {
	const char *text;
	size_t len;
	const char *want;
};

/* A check of one string: a name, path or value it accepts (true) or refuses. */
typedef bool (*unit_pred)(const char *s);

/* Fail unless OK (named WHAT) accepts each of the NULL-ended YES and refuses each of the NULL-ended NO. */
static inline void unit_accepts(const char *what, unit_pred ok, const char *const *yes,
				const char *const *no)
{
	for (; yes && *yes; yes++)
		if (!ok(*yes))
			fail_msg("%s refuses \"%s\"", what, *yes);
	for (; no && *no; no++)
		if (ok(*no))
			fail_msg("%s accepts \"%s\"", what, *no);
}

/* main(): run the listed cmocka_unit_test(...) entries, no group setup or teardown. */
#define UNIT_MAIN(...)                                                                             \
	int main(void)                                                                             \
	{                                                                                          \
		const struct CMUnitTest tests[] = {__VA_ARGS__};                                   \
		return cmocka_run_group_tests(tests, NULL, NULL);                                  \
	}

// clang-format off
/* UNIT_EACH(M, a, b, ...): M(a), M(b), ... for up to 24 arguments. */
#define UNIT_EACH_1(m, x) m(x)
#define UNIT_EACH_2(m, x, ...) m(x), UNIT_EACH_1(m, __VA_ARGS__)
#define UNIT_EACH_3(m, x, ...) m(x), UNIT_EACH_2(m, __VA_ARGS__)
#define UNIT_EACH_4(m, x, ...) m(x), UNIT_EACH_3(m, __VA_ARGS__)
#define UNIT_EACH_5(m, x, ...) m(x), UNIT_EACH_4(m, __VA_ARGS__)
#define UNIT_EACH_6(m, x, ...) m(x), UNIT_EACH_5(m, __VA_ARGS__)
#define UNIT_EACH_7(m, x, ...) m(x), UNIT_EACH_6(m, __VA_ARGS__)
#define UNIT_EACH_8(m, x, ...) m(x), UNIT_EACH_7(m, __VA_ARGS__)
#define UNIT_EACH_9(m, x, ...) m(x), UNIT_EACH_8(m, __VA_ARGS__)
#define UNIT_EACH_10(m, x, ...) m(x), UNIT_EACH_9(m, __VA_ARGS__)
#define UNIT_EACH_11(m, x, ...) m(x), UNIT_EACH_10(m, __VA_ARGS__)
#define UNIT_EACH_12(m, x, ...) m(x), UNIT_EACH_11(m, __VA_ARGS__)
#define UNIT_EACH_13(m, x, ...) m(x), UNIT_EACH_12(m, __VA_ARGS__)
#define UNIT_EACH_14(m, x, ...) m(x), UNIT_EACH_13(m, __VA_ARGS__)
#define UNIT_EACH_15(m, x, ...) m(x), UNIT_EACH_14(m, __VA_ARGS__)
#define UNIT_EACH_16(m, x, ...) m(x), UNIT_EACH_15(m, __VA_ARGS__)
#define UNIT_EACH_17(m, x, ...) m(x), UNIT_EACH_16(m, __VA_ARGS__)
#define UNIT_EACH_18(m, x, ...) m(x), UNIT_EACH_17(m, __VA_ARGS__)
#define UNIT_EACH_19(m, x, ...) m(x), UNIT_EACH_18(m, __VA_ARGS__)
#define UNIT_EACH_20(m, x, ...) m(x), UNIT_EACH_19(m, __VA_ARGS__)
#define UNIT_EACH_21(m, x, ...) m(x), UNIT_EACH_20(m, __VA_ARGS__)
#define UNIT_EACH_22(m, x, ...) m(x), UNIT_EACH_21(m, __VA_ARGS__)
#define UNIT_EACH_23(m, x, ...) m(x), UNIT_EACH_22(m, __VA_ARGS__)
#define UNIT_EACH_24(m, x, ...) m(x), UNIT_EACH_23(m, __VA_ARGS__)
#define UNIT_NARGS_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, \
		    _13, _14, _15, _16, _17, _18, _19, _20, _21, _22, _23, _24, n, ...) n
#define UNIT_NARGS(...) UNIT_NARGS_(__VA_ARGS__, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, \
				    12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define UNIT_CAT_(a, b) a##b
#define UNIT_CAT(a, b) UNIT_CAT_(a, b)
#define UNIT_EACH(m, ...) UNIT_CAT(UNIT_EACH_, UNIT_NARGS(__VA_ARGS__))(m, __VA_ARGS__)
// clang-format on

/* main(): run the named test functions (each a cmocka_unit_test), no group setup or teardown. */
#define UNIT_TESTS(...) UNIT_MAIN(UNIT_EACH(cmocka_unit_test, __VA_ARGS__))

/*
 * Run one test per element of the N CASES (SIZE bytes apart, each starting with
 * its name, a const char *: the behaviour), FN getting the case as its state,
 * then the NFIXED FIXED tests; GROUP names the run.
 */
static inline int unit_run_cases(const char *group, CMUnitTestFunction fn, const void *cases,
				 size_t n, size_t size, const struct CMUnitTest *fixed,
				 size_t nfixed)
{
	struct CMUnitTest *tests = calloc(n + nfixed, sizeof(*tests));
	if (!tests)
		return 1;
	for (size_t i = 0; i < n; i++) {
		const char *const *c = (const void *)((const char *)cases + i * size);
		tests[i] = (struct CMUnitTest){
			.name = *c, .test_func = fn, .initial_state = (void *)c};
	}
	memcpy(tests + n, fixed, nfixed * sizeof(*fixed));
	int rc = _cmocka_run_group_tests(group, tests, n + nfixed, NULL, NULL);
	free(tests);
	return rc;
}

/* main(): a test per element of the array CASES (FN runs each), then the listed ones. */
#define UNIT_MAIN_CASES(group, fn, cases, ...)                                                     \
	int main(void)                                                                             \
	{                                                                                          \
		static const struct CMUnitTest fixed[] = {__VA_ARGS__};                            \
		return unit_run_cases(group, fn, cases, sizeof(cases) / sizeof(cases[0]),          \
				      sizeof(cases[0]), fixed, sizeof(fixed) / sizeof(fixed[0]));  \
	}

/* A memory stream a renderer writes to: unit_mem_open, write to it, unit_mem_text. */
struct unit_mem {
	char *text;
	size_t len;
	FILE *f;
};

/* Open M's stream (fails the test when it cannot be); the FILE to write to. */
static inline FILE *unit_mem_open(struct unit_mem *m)
{
	m->text = NULL;
	m->len = 0;
	m->f = open_memstream(&m->text, &m->len);
	assert_non_null(m->f);
	return m->f;
}

/* Close M's stream; what was written to it, a malloc'd string the caller frees. */
static inline char *unit_mem_text(struct unit_mem *m)
{
	assert_int_equal(fclose(m->f), 0);
	return m->text;
}

/* A string literal as (text, len), without its NUL. */
#define LIT(s) s, sizeof(s) - 1

/* Read all of PATH (a /proc file: size unknown up front) into a malloc'd, NUL-terminated buffer. */
static inline char *unit_slurp(const char *path, size_t *len)
{
	struct buf b = {0};
	if (read_file_at(AT_FDCWD, path, &b, SIZE_MAX)) {
		buf_free(&b);
		return NULL;
	}
	*len = b.len;
	return b.p;
}

/* unit_slurp that fails the test when PATH cannot be read. */
static inline char *unit_slurp_ok(const char *path, size_t *len)
{
	char *text = unit_slurp(path, len);
	assert_non_null(text);
	return text;
}

/* strstr that fails the test when NEEDLE is not in HAY. */
static inline const char *unit_find(const char *hay, const char *needle)
{
	const char *p = strstr(hay, needle);
	assert_non_null(p);
	return p;
}

/* Write TEXT to DIR/REL (a file of a recorded tree). */
static inline void unit_put(const char *dir, const char *rel, const char *text)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Make the directory DIR/REL. */
static inline void unit_mkdir(const char *dir, const char *rel)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	assert_int_equal(mkdir(p, 0755), 0);
}

/*
 * A fresh recorded tree /tmp/thpctl-NAME.XXXXXX into ROOT (64 bytes) with the
 * directories DIRS (NULL-ended, parents first), opened as the sysroot *SR.
 */
static inline void unit_tree(char *root, const char *name, const char *const *dirs,
			     struct sysroot *sr)
{
	snprintf(root, 64, "/tmp/thpctl-%s.XXXXXX", name);
	assert_non_null(mkdtemp(root));
	for (; dirs && *dirs; dirs++)
		unit_mkdir(root, *dirs);
	assert_int_equal(sysroot_open(sr, root), 0);
}

/* Remove the tree ROOT (a /tmp/thpctl-* directory) and all below it. */
static inline void unit_rmrf(const char *root)
{
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

/* Close SR and remove the tree ROOT. */
static inline void unit_tree_remove(const char *root, struct sysroot *sr)
{
	sysroot_close(sr);
	unit_rmrf(root);
}

/* Make DIR/REL and each directory between DIR and it (mkdir -p); fail unless it is one. */
static inline void unit_mkdirs(const char *dir, const char *rel)
{
	char p[512];
	struct stat st;
	snprintf(p, sizeof(p), "%s/%s/", dir, rel);
	for (char *s = strchr(p + strlen(dir) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (mkdir(p, 0755) != 0)
			assert_int_equal(errno, EEXIST);
		*s = '/';
	}
	assert_int_equal(stat(p, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
}

/* Write the N bytes P to DIR/REL, making the directories above it first. */
static inline void unit_put_bytes(const char *dir, const char *rel, const void *p, size_t n)
{
	char path[512];
	const char *slash = strrchr(rel, '/');
	if (slash) {
		snprintf(path, sizeof(path), "%.*s", (int)(slash - rel), rel);
		unit_mkdirs(dir, path);
	}
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, n, f), n);
	fclose(f);
}

/* Write TEXT to DIR/REL, making the directories above it first. */
static inline void unit_put_deep(const char *dir, const char *rel, const char *text)
{
	unit_put_bytes(dir, rel, text, strlen(text));
}

/* Parse "always [madvise] never" built from the N values VALS and the SELECTED one into C. */
static inline void unit_set_choice(struct choice *c, const char *const *vals, int n,
				   const char *selected)
{
	char text[128] = "";
	size_t o = 0;
	for (int i = 0; i < n; i++)
		o += (size_t)snprintf(text + o, sizeof(text) - o,
				      strcmp(vals[i], selected) == 0 ? "[%s] " : "%s ", vals[i]);
	assert_int_equal(choice_parse(text, o, c), 0);
}

/* Empty H but for kernel RELEASE (its version parsed), 4 KiB pages and 2 MiB PMDs. */
static inline void unit_host_reset(struct host_snapshot *h, const char *release)
{
	host_snapshot_free(h);
	memset(h, 0, sizeof(*h));
	snprintf(h->feat.release, sizeof(h->feat.release), "%s", release);
	assert_int_equal(kernel_version_parse(release, h->feat.kver), 0);
	h->feat.page_size = 4096;
	h->feat.pmd_size = 2u << 20;
}

/*
 * A VMA START..START+KB kB named NAME (kept, not copied) with VmFlags bits FLAGS:
 * Size known, the other smaps values unknown, no permissions.
 */
static inline struct smaps_vma unit_vma(uint64_t start, uint64_t kb, const char *name,
					unsigned flags)
{
	struct smaps_vma v = {0};
	v.start = start;
	v.end = start + kb * 1024;
	v.name = name;
	v.name_len = strlen(name);
	v.t.kb[SM_SIZE] = kb;
	v.t.present = 1u << SM_SIZE;
	v.has_vmflags = true;
	v.vmflags = flags;
	return v;
}

/* Copy SRC (with its NUL) into DST (CAP bytes), each SEP made a NUL; strlen(SRC). */
static inline size_t unit_split(char *dst, size_t cap, const char *src, char sep)
{
	size_t n = strlen(src);
	assert_true(n < cap);
	memcpy(dst, src, n + 1);
	for (size_t k = 0; k < n; k++)
		if (dst[k] == sep)
			dst[k] = '\0';
	return n;
}

/*
 * What bash prints running SCRIPT (a file it reads, so any byte in it is bash's to parse) into
 * OUT (CAP bytes): its length, or -1 when there is no bash here (the caller skips). Fails
 * the test when bash exits non-zero.
 */
static inline long unit_bash(const char *script, char *out, size_t cap)
{
	if (access("/bin/bash", X_OK) != 0)
		return -1;
	char path[] = "/tmp/thpctl-unit-sh.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	size_t n = strlen(script);
	assert_int_equal(write(fd, script, n), (ssize_t)n);
	close(fd);
	char cmd[64];
	snprintf(cmd, sizeof(cmd), "/bin/bash %s", path);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	size_t got = fread(out, 1, cap, p);
	int rc = pclose(p);
	unlink(path);
	assert_int_equal(rc, 0);
	assert_true(got < cap);
	return (long)got;
}

/* A file descriptor sent to a temporary file while a test writes to it (unit_capture_begin),
 * then put back, what was written read into a buffer (unit_capture_end). */
struct unit_capture {
	int fd, file, saved;
	char path[32];
};

/* From now on, what goes to FD (1 or 2: its stdio stream flushed first) lands in a file. */
static inline void unit_capture_begin(struct unit_capture *c, int fd)
{
	snprintf(c->path, sizeof(c->path), "/tmp/thpctl-unit-fd.XXXXXX");
	c->fd = fd;
	c->file = mkstemp(c->path);
	assert_true(c->file >= 0);
	fflush(fd == 1 ? stdout : stderr);
	c->saved = dup(fd);
	assert_int_equal(dup2(c->file, fd), fd);
}

/* FD back as it was; what it received into OUT (CAP bytes, NUL-terminated). Fails the test when
 * nothing was written. */
static inline void unit_capture_end(struct unit_capture *c, char *out, size_t cap)
{
	fflush(c->fd == 1 ? stdout : stderr);
	dup2(c->saved, c->fd);
	close(c->saved);
	memset(out, 0, cap);
	ssize_t n = pread(c->file, out, cap - 1, 0);
	close(c->file);
	unlink(c->path);
	assert_true(n > 0);
}

/* Write PRE, then N copies of C, then POST into DST (CAP bytes): an over-long field. */
static inline char *unit_long_field(char *dst, size_t cap, const char *pre, char c, size_t n,
				    const char *post)
{
	size_t lp = strlen(pre);
	assert_true(lp + n + strlen(post) < cap);
	memcpy(dst, pre, lp);
	memset(dst + lp, c, n);
	strcpy(dst + lp + n, post);
	return dst;
}

#endif
