// SPDX-License-Identifier: MIT
/* Unit tests: src/kernel/capture_filter.c (environ redaction, cmdline, mounts, manifest). */
#include "unit.h"

#include "kernel/capture.h"

/* B holds exactly the N bytes WANT. */
static void check_buf(const struct buf *b, const char *want, size_t n)
{
	assert_int_equal(b->len, n);
	assert_memory_equal(b->p ? b->p : "", want, n);
}

static void test_environ_keeps_thp_values_and_redacts_the_rest(UNIT_STATE)
{
	static const char in[] = "MALLOC_CONF=thp:always,narenas:2\0"
				 "SECRET_TOKEN=hunter2\0"
				 "GLIBC_TUNABLES=glibc.malloc.hugetlb=1\0"
				 "GODEBUG=http2debug=1,disablethp=1\0"
				 "JAVA_TOOL_OPTIONS=-Dpass=x -XX:+UseTransparentHugePages -Xmx1g\0"
				 "MALLOC_TOP_PAD_=4096\0"
				 "MIMALLOC_ALLOW_THP=0\0"
				 "EMPTY=\0"
				 "NOEQUALS\0";
	static const char want[] = "MALLOC_CONF=thp:always,narenas:2\0"
				   "SECRET_TOKEN=<redacted>\0"
				   "GLIBC_TUNABLES=glibc.malloc.hugetlb=1\0"
				   "GODEBUG=disablethp=1,<redacted>\0"
				   "JAVA_TOOL_OPTIONS=-XX:+UseTransparentHugePages <redacted>\0"
				   "MALLOC_TOP_PAD_=4096\0"
				   "MIMALLOC_ALLOW_THP=0\0"
				   "EMPTY=\0"
				   "<redacted>\0";
	struct buf b = {0};
	assert_int_equal(capture_filter_environ(LIT(in), &b), 0);
	check_buf(&b, LIT(want));
	assert_null(memmem(b.p, b.len, "hunter2", 7));
	/* a last entry without its NUL, and an empty environ (a kernel thread) */
	assert_int_equal(capture_filter_environ("PATH=/bin", 9, &b), 0);
	check_buf(&b, "PATH=<redacted>", sizeof("PATH=<redacted>"));
	assert_int_equal(capture_filter_environ("", 0, &b), 0);
	assert_int_equal(b.len, 0);
	/* names that only look like kept ones are redacted */
	assert_int_equal(capture_filter_environ(LIT("MALLOC_CONFX=a\0MALLOC_=b\0"), &b), 0);
	check_buf(&b, "MALLOC_CONFX=<redacted>\0MALLOC_=<redacted>",
		  sizeof("MALLOC_CONFX=<redacted>\0MALLOC_=<redacted>"));
	buf_free(&b);
}

static void test_cmdline_drops_init_arguments(UNIT_STATE)
{
	static const struct {
		const char *in, *out;
	} c[] = {
		{"root=/dev/vda ro transparent_hugepage=madvise\n",
		 "root=/dev/vda ro transparent_hugepage=madvise\n"},
		{"ro quiet -- single password=x\n", "ro quiet\n"},
		{"-- init args\n", "\n"},
		{"ro --\n", "ro\n"},
		{"ro --no-such=1 quiet", "ro --no-such=1 quiet"},
		{"", ""},
	};
	struct buf b = {0};
	for (size_t i = 0; i < UNIT_LEN(c); i++) {
		assert_int_equal(capture_filter_cmdline(c[i].in, strlen(c[i].in), &b), 0);
		check_buf(&b, c[i].out, strlen(c[i].out));
	}
	buf_free(&b);
}

static void test_mounts_keeps_only_what_thpctl_reads(UNIT_STATE)
{
	static const char in[] = "/dev/vda1 / ext4 rw,relatime 0 0\n"
				 "proc /proc proc rw 0 0\n"
				 "sysfs /sys sysfs ro,nosuid 0 0\n"
				 "tmpfs /run tmpfs rw,size=100k 0 0\n"
				 "tmpfs /huge tmpfs rw,huge=always 0 0\n"
				 "none /dev/hugepages hugetlbfs rw,pagesize=2M 0 0\n"
				 "server:/home /home nfs rw,addr=10.0.0.1 0 0\n"
				 "broken\n";
	static const char want[] = "/dev/vda1 / ext4 rw,relatime 0 0\n"
				   "proc /proc proc rw 0 0\n"
				   "sysfs /sys sysfs ro,nosuid 0 0\n"
				   "tmpfs /huge tmpfs rw,huge=always 0 0\n"
				   "none /dev/hugepages hugetlbfs rw,pagesize=2M 0 0\n";
	struct buf b = {0};
	assert_int_equal(capture_filter_mounts(LIT(in), &b), 0);
	check_buf(&b, LIT(want));
	buf_free(&b);
}

static void test_manifest_state_matches_whole_paths(UNIT_STATE)
{
	static const char m[] = "# thpctl capture manifest 1\n"
				"complete sys/kernel/mm/transparent_hugepage\n"
				"writeonly sys/kernel/mm/hugepages/hugepages-2048kB/demote\n"
				"partial sys/kernel/mm/hugepages\n"
				"unreadable proc/1/environ permission denied\n"
				"absent boot/config-6.1.0\n"
				"gone proc/77";
	const char *t = m;
	size_t n = sizeof(m) - 1;
	assert_int_equal(capture_manifest_state(t, n, "sys/kernel/mm/transparent_hugepage"),
			 CAP_COMPLETE);
	assert_int_equal(capture_manifest_state(t, n, "sys/kernel/mm/hugepages"), CAP_PARTIAL);
	assert_int_equal(capture_manifest_state(t, n, "proc/1/environ"), CAP_UNREADABLE);
	assert_int_equal(capture_manifest_state(t, n, "boot/config-6.1.0"), CAP_ABSENT);
	assert_int_equal(capture_manifest_state(t, n, "proc/77"), CAP_GONE);
	assert_int_equal(
		capture_manifest_state(t, n, "sys/kernel/mm/hugepages/hugepages-2048kB/demote"),
		CAP_WRITEONLY);
	/* a prefix, a longer path, and the comment line are not matches */
	assert_int_equal(capture_manifest_state(t, n, "sys/kernel/mm"), CAP_NOT_LISTED);
	assert_int_equal(capture_manifest_state(t, n, "proc/1"), CAP_NOT_LISTED);
	assert_int_equal(capture_manifest_state(t, n, "proc/7"), CAP_NOT_LISTED);
	assert_int_equal(capture_manifest_state(t, n, "thpctl"), CAP_NOT_LISTED);
	assert_int_equal(capture_manifest_state("", 0, "proc/1"), CAP_NOT_LISTED);
}

UNIT_TESTS(test_environ_keeps_thp_values_and_redacts_the_rest, test_cmdline_drops_init_arguments,
	   test_mounts_keeps_only_what_thpctl_reads, test_manifest_state_matches_whole_paths)
