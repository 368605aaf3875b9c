// SPDX-License-Identifier: MIT
/* Unit tests: src/kernel/users.c (uid <-> name, NSS live, etc/passwd of a tree). */
#include "unit.h"

#include <errno.h>
#include <string.h>

#include "kernel/users.h"

static const char passwd[] = "root:x:0:0:root:/root:/bin/bash\n"
			     "# a comment\n"
			     "daemon:x:1:1::/usr/sbin:/usr/sbin/nologin\n"
			     "broken-line-without-fields\n"
			     "baduid:x:abc:1::/:/bin/sh\n"
			     "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
			     "alice:x:1000:1000:Alice:/home/alice:/bin/bash";

static void test_passwd_uid_finds_names(UNIT_STATE)
{
	long uid = -1;
	assert_int_equal(passwd_uid(LIT(passwd), "root", &uid), 0);
	assert_int_equal(uid, 0);
	assert_int_equal(passwd_uid(LIT(passwd), "nobody", &uid), 0);
	assert_int_equal(uid, 65534);
	/* the last line, no final newline */
	assert_int_equal(passwd_uid(LIT(passwd), "alice", &uid), 0);
	assert_int_equal(uid, 1000);
}

static void test_passwd_uid_whole_names_only(UNIT_STATE)
{
	long uid = 7;
	/* a prefix of a name, a name with a suffix, a damaged uid, the empty name */
	assert_int_equal(passwd_uid(LIT(passwd), "roo", &uid), -ENOENT);
	assert_int_equal(passwd_uid(LIT(passwd), "alice2", &uid), -ENOENT);
	assert_int_equal(passwd_uid(LIT(passwd), "baduid", &uid), -ENOENT);
	assert_int_equal(passwd_uid(LIT(passwd), "broken-line-without-fields", &uid), -ENOENT);
	assert_int_equal(passwd_uid(LIT(passwd), "", &uid), -ENOENT);
	assert_int_equal(passwd_uid("", 0, "root", &uid), -ENOENT);
	assert_int_equal(uid, 7);
}

/* A recorded tree: names from its etc/passwd only, cached once per uid. */
static void test_users_from_tree(UNIT_STATE)
{
	struct sysroot sr;
	assert_int_equal(sysroot_open(&sr, "tests/fixtures/linux-6.18-x86"), 0);
	struct users u = {0};
	assert_string_equal(users_name(&sr, &u, 0), "root");
	assert_string_equal(users_name(&sr, &u, 0), "root");
	/* the recorded etc/passwd has only root: never this host's names */
	assert_string_equal(users_name(&sr, &u, 65534), "65534");
	assert_string_equal(users_name(&sr, &u, 4242424), "4242424");
	assert_string_equal(users_name(&sr, &u, -1), "-");
	assert_int_equal((int)u.n, 3); /* 0, 65534, 4242424: one entry each */
	long uid = -1;
	assert_int_equal(users_uid(&sr, "root", &uid), 0);
	assert_int_equal(uid, 0);
	assert_int_equal(users_uid(&sr, "nobody", &uid), -ENOENT);
	assert_int_equal(users_uid(&sr, "no-such-user-xyz", &uid), -ENOENT);
	users_free(&u);
	sysroot_close(&sr);
}

/* The live host: NSS, root is uid 0 both ways. */
static void test_users_live_root(UNIT_STATE)
{
	struct sysroot sr;
	assert_int_equal(sysroot_open(&sr, "/"), 0);
	assert_true(sr.live);
	struct users u = {0};
	assert_string_equal(users_name(&sr, &u, 0), "root");
	long uid = -1;
	assert_int_equal(users_uid(&sr, "root", &uid), 0);
	assert_int_equal(uid, 0);
	users_free(&u);
	sysroot_close(&sr);
}

UNIT_TESTS(test_passwd_uid_finds_names, test_passwd_uid_whole_names_only, test_users_from_tree,
	   test_users_live_root)
