// SPDX-License-Identifier: MIT
/* Unit tests: src/kernel/proc_status.c (/proc/PID/status, /proc/PID/stat, etc/passwd). */
#include "unit.h"

#include "kernel/proc_status.h"

/* A user process on 6.18 (trimmed after THP_enabled). */
static const char status_618[] = "Name:\tpostgres\n"
				 "Umask:\t0022\n"
				 "State:\tS (sleeping)\n"
				 "Tgid:\t17397\n"
				 "Ngid:\t0\n"
				 "Pid:\t17397\n"
				 "PPid:\t17395\n"
				 "TracerPid:\t0\n"
				 "Uid:\t1000\t1001\t1002\t1003\n"
				 "Gid:\t1000\t1000\t1000\t1000\n"
				 "FDSize:\t256\n"
				 "Groups:\t \n"
				 "NStgid:\t17397\n"
				 "Kthread:\t0\n"
				 "VmPeak:\t    3060 kB\n"
				 "VmSize:\t    3060 kB\n"
				 "VmHWM:\t    1764 kB\n"
				 "VmRSS:\t  531764 kB\n"
				 "RssAnon:\t     112 kB\n"
				 "HugetlbPages:\t       0 kB\n"
				 "CoreDumping:\t0\n"
				 "THP_enabled:\t1\n"
				 "untag_mask:\t0xffffffffffffffff\n"
				 "Threads:\t1\n"
				 "voluntary_ctxt_switches:\t0\n";

static void test_status_user_process(UNIT_STATE)
{
	struct proc_status st;
	assert_int_equal(proc_status_parse(LIT(status_618), &st), 0);
	assert_true(st.has_name);
	assert_string_equal(st.name, "postgres");
	assert_int_equal(st.ppid, 17395);
	assert_int_equal(st.uid, 1000); /* the real uid, first of four */
	assert_int_equal(st.thp_enabled, 1);
	assert_int_equal(st.kthread, 0);
	assert_int_equal(st.vmrss_kb.v, 531764);
}

static void test_status_kernel_thread(UNIT_STATE)
{
	/* no Vm* lines for a kernel thread */
	const char text[] = "Name:\tkhugepaged\n"
			    "Umask:\t0000\n"
			    "State:\tS (sleeping)\n"
			    "PPid:\t2\n"
			    "Uid:\t0\t0\t0\t0\n"
			    "Kthread:\t1\n"
			    "THP_enabled:\t1\n"
			    "Threads:\t1\n";
	struct proc_status st;
	assert_int_equal(proc_status_parse(LIT(text), &st), 0);
	assert_string_equal(st.name, "khugepaged");
	assert_int_equal(st.ppid, 2);
	assert_int_equal(st.uid, 0);
	assert_int_equal(st.kthread, 1);
	assert_false(st.vmrss_kb.present);
}

static void test_status_prctl_disabled_old_kernel(UNIT_STATE)
{
	struct proc_status st;
	/* full prctl disable: THP_enabled 0 */
	assert_int_equal(proc_status_parse(LIT("Name:\tjava\nTHP_enabled:\t0\n"), &st), 0);
	assert_int_equal(st.thp_enabled, 0);
	/* 4.19: no THP_enabled (5.0) and no Kthread: absent, not 0 */
	const char old[] = "Name:\tnginx\nPPid:\t1\nUid:\t33\t33\t33\t33\nVmRSS:\t    8000 kB\n";
	assert_int_equal(proc_status_parse(LIT(old), &st), 0);
	assert_int_equal(st.thp_enabled, -1);
	assert_int_equal(st.kthread, -1);
	assert_int_equal(st.uid, 33);
	assert_int_equal(st.vmrss_kb.v, 8000);
}

static void test_status_name_spaces_and_escapes(UNIT_STATE)
{
	struct proc_status st;
	assert_int_equal(proc_status_parse(LIT("Name:\tWeb Content\nPPid:\t1\n"), &st), 0);
	assert_string_equal(st.name, "Web Content");
	/* the kernel escapes \n and \\ in names: the name's own bytes again; another
	 * backslash is the name's */
	assert_int_equal(proc_status_parse(LIT("Name:\ta\\nb\\\\c\\t\n"), &st), 0);
	assert_string_equal(st.name, "a\nb\\c\\t");
	assert_int_equal(proc_status_parse(LIT("Name:\tx\\\\n\n"), &st), 0);
	assert_string_equal(st.name, "x\\n"); /* an escaped backslash, then n */
	/* a trailing blank belongs to the name; a colon in it too */
	assert_int_equal(proc_status_parse(LIT("Name:\tx: y \n"), &st), 0);
	assert_string_equal(st.name, "x: y ");
	/* an empty name is still a Name line */
	assert_int_equal(proc_status_parse(LIT("Name:\t\nPPid:\t3"), &st), 0);
	assert_true(st.has_name);
	assert_string_equal(st.name, "");
	assert_int_equal(st.ppid, 3); /* truncated last line, no newline */
	/* "Namespace:" or "Names:" is not "Name:" */
	assert_int_equal(proc_status_parse(LIT("Names:\tfoo\n"), &st), -EINVAL);
	/* a file cut right after a key's name: no ':' read past its end (ASan sees the copy's end) */
	static const char *const cut[] = {"Name:\tx\nUid", "Name:\tx\nTgid", "Name:\tx\nVmRSS",
					  "Name:\tx\nKthread", "Name:\tx\nTHP_enabled"};
	for (size_t i = 0; i < sizeof(cut) / sizeof(cut[0]); i++) {
		size_t n = strlen(cut[i]);
		char *copy = malloc(n);
		assert_non_null(copy);
		memcpy(copy, cut[i], n);
		assert_int_equal(proc_status_parse(copy, n, &st), 0);
		assert_true(st.truncated);
		assert_int_equal(st.bad, 0);
		free(copy);
	}
}

static void test_status_long_name(UNIT_STATE)
{
	char text[200];
	unit_long_field(text, sizeof(text), "Name:\t", 'n', 100, "\nPPid:\t9\n");
	struct proc_status st;
	assert_int_equal(proc_status_parse(text, strlen(text), &st), 0);
	assert_int_equal(strlen(st.name), COMM_LEN - 1);
	assert_int_equal(st.ppid, 9);
}

static void test_status_bad(UNIT_STATE)
{
	struct proc_status st;
	assert_int_equal(proc_status_parse(LIT(""), &st), -EINVAL);
	assert_false(st.has_name);
	assert_int_equal(st.ppid, -1);
	/* no Name line: the other fields stay, the name is unknown ("-") and said so */
	assert_int_equal(proc_status_parse(LIT("PPid:\t1\nUid:\t0\t0\t0\t0\n"), &st), 0);
	assert_int_equal(st.ppid, 1);
	assert_int_equal(st.uid, 0);
	assert_false(st.has_name);
	assert_string_equal(st.name, "-");
	assert_int_equal(st.bad, PS_BAD_NAME);
	assert_string_equal(proc_status_bad_name(st.bad), "Name");
	/* nothing known at all: not a status file */
	assert_int_equal(proc_status_parse(LIT("garbage\nmore: text\n"), &st), -EINVAL);
	const char text[] = "Name:\tx\n"
			    "PPid 17\n"				/* missing colon */
			    "Uid:\n"				/* no number */
			    "VmRSS:\t99999999999999999999 kB\n" /* overflow */
			    "THP_enabled:\tyes\n"		/* not a number */
			    "Kthread:\t-1\n";
	assert_int_equal(proc_status_parse(LIT(text), &st), 0);
	assert_int_equal(st.ppid, -1);
	assert_int_equal(st.uid, -1);
	assert_false(st.vmrss_kb.present);
	assert_int_equal(st.thp_enabled, -1);
	assert_int_equal(st.kthread, -1);
	/* a value above LONG_MAX is absent, not negative */
	assert_int_equal(proc_status_parse(LIT("Name:\tx\nPPid:\t9223372036854775808\n"), &st), 0);
	assert_int_equal(st.ppid, -1);
	/* CRLF: numbers still parse */
	assert_int_equal(proc_status_parse(LIT("Name:\tx\r\nPPid:\t42\r\nVmRSS:\t 8 kB\r\n"), &st),
			 0);
	assert_int_equal(st.ppid, 42);
	assert_int_equal(st.vmrss_kb.v, 8);
	assert_int_equal(st.bad, 0);
}

/* Only the leading digits were read: "Uid: 0x1f" was root, "THP_enabled: 0x1f" a disable. */
static void test_status_values_are_whole_tokens(UNIT_STATE)
{
	struct proc_status st;
	const char text[] = "Name:\tthpfix-layout\r\n"
			    "Tgid:\t12abc\n"
			    "PPid:\t1\n"
			    "Uid:\t0x1f\t0\t0\t0\n"
			    "VmRSS:\t   12abc kB\n"
			    "THP_enabled:\t0x1f\n"
			    "Kthread:\t2\n";
	assert_int_equal(proc_status_parse(LIT(text), &st), 0);
	assert_string_equal(st.name, "thpfix-layout"); /* no '\r' */
	assert_int_equal(st.ppid, 1);
	assert_int_equal(st.tgid, -1);
	assert_int_equal(st.uid, -1);
	assert_false(st.vmrss_kb.present);
	assert_int_equal(st.thp_enabled, -1);
	assert_int_equal(st.kthread, -1);
	assert_int_equal(st.bad, PS_BAD_TGID | PS_BAD_UID | PS_BAD_VMRSS | PS_BAD_THP_ENABLED |
					 PS_BAD_KTHREAD);
	assert_int_equal(proc_status_nbad(&st), 5);
	assert_string_equal(proc_status_bad_name(st.bad), "Tgid");
	assert_false(st.truncated);
	/* 1e9999 and 2^64 are not numbers in range */
	assert_int_equal(proc_status_parse(LIT("Name:\tx\nUid:\t1e9999\t0\t0\t0\n"), &st), 0);
	assert_int_equal(st.uid, -1);
	assert_int_equal(st.bad, PS_BAD_UID);
	assert_int_equal(proc_status_parse(LIT("Name:\tx\nVmRSS:\t18446744073709551616 kB\n"), &st),
			 0);
	assert_false(st.vmrss_kb.present);
	assert_int_equal(st.bad, PS_BAD_VMRSS);
	/* a status cut short: what is there stays, the cut is said */
	assert_int_equal(proc_status_parse(LIT("Name:\tx\nUid:\t1000\t1000\t10"), &st), 0);
	assert_true(st.truncated);
	assert_int_equal(proc_status_nbad(&st), 1);
}

/* A key printed twice is damage: unknown and flagged, never the first or the last copy. */
static void test_status_duplicate_key_is_unknown(UNIT_STATE)
{
	struct proc_status st;
	const char text[] = "Name:\tpostgres\n"
			    "Uid:\t1000\t1000\t1000\t1000\n"
			    "VmRSS:\t 8 kB\n"
			    "Uid:\t0\t0\t0\t0\n"
			    "THP_enabled:\t1\n"
			    "VmRSS:\t 8 kB\n"
			    "Name:\tother\n"
			    "PPid:\t1\n";
	assert_int_equal(proc_status_parse(LIT(text), &st), 0);
	assert_int_equal(st.uid, -1);
	assert_false(st.vmrss_kb.present);
	assert_false(st.has_name);
	assert_string_equal(st.name, "-");
	assert_int_equal(st.ppid, 1);
	assert_int_equal(st.thp_enabled, 1);
	assert_int_equal(st.bad, PS_BAD_UID | PS_BAD_VMRSS | PS_BAD_NAME);
	assert_int_equal(proc_status_nbad(&st), 3);
	/* a damaged VmRSS is not "no memory map" */
	assert_false(proc_status_no_mm(&st));
	/* a third copy stays unknown */
	assert_int_equal(proc_status_parse(LIT("Name:\tx\nPPid:\t1\nPPid:\t1\nPPid:\t2\n"), &st),
			 0);
	assert_int_equal(st.ppid, -1);
	assert_int_equal(st.bad, PS_BAD_PPID);
}

/* VmRSS is an unsigned long in kB: 2^63 and 2^64-1 are valid by the grammar, exact (issue 24). */
static void test_status_vmrss_full_u64_range(UNIT_STATE)
{
	struct proc_status st;
	assert_int_equal(proc_status_parse(LIT("Name:\tx\nVmRSS:\t9223372036854775808 kB\n"), &st),
			 0);
	assert_true(st.vmrss_kb.present);
	assert_true(st.vmrss_kb.v == 9223372036854775808ull);
	assert_int_equal(st.bad, 0);
	assert_int_equal(proc_status_parse(LIT("Name:\tx\nVmRSS:\t18446744073709551615 kB\n"), &st),
			 0);
	assert_true(st.vmrss_kb.present);
	assert_true(st.vmrss_kb.v == UINT64_MAX);
	assert_int_equal(st.bad, 0);
	/* no VmRSS line: no memory map (a zombie), not damage */
	assert_int_equal(proc_status_parse(LIT("Name:\tx\nPPid:\t5\n"), &st), 0);
	assert_true(proc_status_no_mm(&st));
}

/* A /proc/PID/stat line and the fields it must give. */
struct stat_case {
	const char *name; /* the behaviour */
	const char *text;
	int pid;
	const char *comm;
	char state;
	int ppid;
	unsigned long flags;
	bool kthread;
	unsigned long long utime, stime, starttime;
};

static const struct stat_case stat_cases[] = {
	{"a user process gives its pid, comm, state, ppid, flags and times",
	 "4084 (cat) R 4075 4075 2766 0 -1 4194304 102 0 0 0 31 7 0 0 20 0 1 0 52382 "
	 "3133440 379 18446744073709551615 94575842967552 94575842987433 "
	 "140733008351392 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 94575843003440 "
	 "94575843005056 94576748302336 140733008358016 140733008358036 "
	 "140733008358036 140733008359403 0\n",
	 4084, "cat", 'R', 4075, 4194304, false, 31, 7, 52382},
	/* nice 19 (khugepaged runs niced); the numbers after starttime are not needed */
	{"a kernel thread has PF_KTHREAD in its flags",
	 "38 (khugepaged) S 2 0 0 0 -1 2097216 0 0 0 0 1234 5678 0 0 39 19 1 0 28 "
	 "0 0 18446744073709551615 0 0 0 0 0 0 0 2147483647 0 1 0 0 17 0 0 0 0 0 "
	 "0 0 0 0 0 0 0 0 0\n",
	 38, "khugepaged", 'S', 2, 2097216, true, 1234, 5678, 28},
	/* comm "a) b) c": the last ')' closes it */
	{"the last ')' closes a comm that holds parens of its own",
	 "123 (a) b) c) S 1 123 123 0 -1 4194560 5 0 0 0 11 22 0 0 20 0 1 0 999 "
	 "1000 10 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0",
	 123, "a) b) c", 'S', 1, 4194560, false, 11, 22, 999},
	{"a comm that is parenthesised itself keeps its own parens",
	 "901 ((sd-pam)) S 900 900 900 0 -1 1077936448 40 0 0 0 0 0 0 0 20 0 1 0 "
	 "1500 0 0\n",
	 901, "(sd-pam)", 'S', 900, 1077936448, false, 0, 0, 1500},
	{"a fake state inside comm is not taken for the real one",
	 "7 (x) R 99 y) D 5 7 7 0 -1 64 0 0 0 0 3 4 0 0 20 0 1 0 77\n", 7, "x) R 99 y", 'D', 5, 64,
	 false, 3, 4, 77},
	/* a SCHED_FIFO task: priority -51; tty_nr 0 and tpgid -1 */
	{"negative priority and tpgid fields do not stop the parse",
	 "500 (rt task) S 1 500 500 0 -1 4194624 0 0 0 0 8 9 0 0 -51 0 1 0 123\n", 500, "rt task",
	 'S', 1, 4194624, false, 8, 9, 123},
};

static void test_stat_line_gives_each_field(UNIT_STATE)
{
	for (size_t i = 0; i < UNIT_LEN(stat_cases); i++) {
		const struct stat_case *c = &stat_cases[i];
		struct proc_stat st;
		print_message("%s\n", c->name);
		assert_int_equal(proc_stat_parse(c->text, strlen(c->text), &st), 0);
		assert_int_equal(st.pid, c->pid);
		assert_string_equal(st.comm, c->comm);
		assert_int_equal(st.state, c->state);
		assert_int_equal(st.ppid, c->ppid);
		assert_int_equal(st.flags, c->flags);
		assert_int_equal(!!(st.flags & PF_KTHREAD_FLAG), c->kthread);
		assert_int_equal(st.utime, c->utime);
		assert_int_equal(st.stime, c->stime);
		assert_int_equal(st.starttime, c->starttime);
	}
}

static void test_stat_bad(UNIT_STATE)
{
	struct proc_stat st;
	assert_int_equal(proc_stat_parse(LIT(""), &st), -EINVAL);
	assert_int_equal(proc_stat_parse(LIT("123 cat R 1 2 3\n"), &st), -EINVAL);  /* no parens */
	assert_int_equal(proc_stat_parse(LIT("123 (cat R 1 2 3\n"), &st), -EINVAL); /* no ')' */
	assert_int_equal(proc_stat_parse(LIT("(cat) R 1 2 3\n"), &st), -EINVAL);    /* no pid */
	assert_int_equal(proc_stat_parse(LIT("99999999999999999999 (cat) R 1\n"), &st), -EINVAL);
	assert_int_equal(proc_stat_parse(LIT("123 (cat)"), &st), -EINVAL); /* no state */
	assert_int_equal(proc_stat_parse(LIT("123 (cat) \n"), &st), -EINVAL);
	/* truncated before starttime (field 22) */
	assert_int_equal(
		proc_stat_parse(LIT("4084 (cat) R 4075 4075 2766 0 -1 4194304 102 0 0 0 31"), &st),
		-EINVAL);
	/* a field that is not a number, or overflows */
	assert_int_equal(
		proc_stat_parse(LIT("1 (x) S 0 1 1 0 -1 abc 0 0 0 0 0 0 0 0 20 0 1 0 5\n"), &st),
		-EINVAL);
	assert_int_equal(proc_stat_parse(LIT("1 (x) S 0 1 1 0 -1 99999999999999999999 0 0 0 0 0 0 "
					     "0 0 20 0 1 0 5\n"),
					 &st),
			 -EINVAL);
	assert_int_equal(
		proc_stat_parse(LIT("1 (x) S 0 1 1 0 -x 4 0 0 0 0 0 0 0 0 20 0 1 0 5\n"), &st),
		-EINVAL);
	/* exactly 22 fields, no newline: enough */
	assert_int_equal(
		proc_stat_parse(LIT("1 (x) S 0 1 1 0 -1 4 0 0 0 0 6 7 0 0 20 0 1 0 5"), &st), 0);
	assert_int_equal(st.starttime, 5);
	assert_int_equal(st.utime, 6);
}

static void test_stat_long_comm(UNIT_STATE)
{
	char text[300];
	unit_long_field(text, sizeof(text), "77 (", 'k', 100,
			") S 2 0 0 0 -1 2097216 0 0 0 0 1 2 0 0 20 0 1 0 3\n");
	struct proc_stat st;
	assert_int_equal(proc_stat_parse(text, strlen(text), &st), 0);
	assert_int_equal(strlen(st.comm), COMM_LEN - 1);
	assert_int_equal(st.ppid, 2);
	assert_int_equal(st.starttime, 3);
}

static void test_stat_live_self(UNIT_STATE)
{
	size_t len = 0;
	char *text = unit_slurp_ok("/proc/self/stat", &len);
	struct proc_stat st;
	assert_int_equal(proc_stat_parse(text, len, &st), 0);
	assert_int_equal(st.pid, getpid());
	assert_int_equal(st.ppid, getppid());
	assert_int_equal(st.state, 'R');
	assert_false(st.flags & PF_KTHREAD_FLAG);
	assert_true(st.starttime > 0);
	free(text);

	text = unit_slurp_ok("/proc/self/status", &len);
	struct proc_status ps;
	assert_int_equal(proc_status_parse(text, len, &ps), 0);
	assert_string_equal(ps.name, st.comm);
	assert_int_equal(ps.ppid, getppid());
	assert_int_equal(ps.uid, getuid());
	assert_true(ps.vmrss_kb.present && ps.vmrss_kb.v > 0);
	free(text);
}

static const char passwd[] =
	"root:x:0:0:root:/root:/bin/bash\n"
	"daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"
	"# a comment\n"
	"broken line\n"
	":x:7:7::/:/bin/false\n" /* no name: skipped */
	"odd:x:notanumber:1::/:/bin/sh\n"
	"postgres:x:100:102:PostgreSQL administrator,,,:/var/lib/postgresql:/bin/bash\n"
	"nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
	"alice:x:1000:1000:Alice:/home/alice:/bin/bash"; /* no newline */

static void test_passwd_lookup(UNIT_STATE)
{
	char name[32];
	assert_int_equal(passwd_lookup(LIT(passwd), 0, name, sizeof(name)), 0);
	assert_string_equal(name, "root");
	assert_int_equal(passwd_lookup(LIT(passwd), 1, name, sizeof(name)), 0);
	assert_string_equal(name, "daemon");
	assert_int_equal(passwd_lookup(LIT(passwd), 100, name, sizeof(name)), 0);
	assert_string_equal(name, "postgres");
	assert_int_equal(passwd_lookup(LIT(passwd), 65534, name, sizeof(name)), 0);
	assert_string_equal(name, "nobody");
	assert_int_equal(passwd_lookup(LIT(passwd), 1000, name, sizeof(name)), 0);
	assert_string_equal(name, "alice");
	/* no prefix matches: 10 is not 100, 6553 is not 65534 */
	assert_int_equal(passwd_lookup(LIT(passwd), 10, name, sizeof(name)), -ENOENT);
	assert_int_equal(passwd_lookup(LIT(passwd), 6553, name, sizeof(name)), -ENOENT);
	assert_int_equal(passwd_lookup(LIT(passwd), 7, name, sizeof(name)), -ENOENT);
	assert_int_equal(passwd_lookup(LIT(passwd), 2, name, sizeof(name)), -ENOENT);
	assert_int_equal(passwd_lookup(LIT(""), 0, name, sizeof(name)), -ENOENT);
	/* a short buffer truncates */
	char small[5];
	assert_int_equal(passwd_lookup(LIT(passwd), 100, small, sizeof(small)), 0);
	assert_string_equal(small, "post");
}

UNIT_TESTS(test_status_duplicate_key_is_unknown, test_status_vmrss_full_u64_range,
	   test_status_values_are_whole_tokens, test_status_user_process, test_status_kernel_thread,
	   test_status_prctl_disabled_old_kernel, test_status_name_spaces_and_escapes,
	   test_status_long_name, test_status_bad, test_stat_line_gives_each_field, test_stat_bad,
	   test_stat_long_comm, test_stat_live_self, test_passwd_lookup)
