/* SPDX-License-Identifier: MIT */
/*
 * User names <-> uids. On the live host through NSS (getpwuid_r/getpwnam_r:
 * /etc/passwd, LDAP, SSSD ... as nsswitch.conf says), falling back to
 * etc/passwd when NSS fails; on a recorded tree (--sysroot) only the tree's
 * etc/passwd, so a replay shows the recorded names. Each uid is looked up
 * once per cache: a process scan calls NSS at most once per distinct uid.
 * The static build (THPCTL_NO_NSS) reads etc/passwd only: glibc's NSS needs
 * its shared modules at runtime.
 */
#ifndef THPCTL_USERS_H
#define THPCTL_USERS_H

#include <stdbool.h>
#include <stddef.h>

#include "../util/buf.h"
#include "sysroot.h"

struct user_ent {
	long uid;
	char name[33]; /* the name, or the uid in digits when it has none */
};

/* uid -> name cache; zero-initialise, free with users_free(). */
struct users {
	struct buf passwd; /* the sysroot's etc/passwd, read once when needed */
	bool loaded;
	struct user_ent *e;
	size_t n, cap;
};

/*
 * The name of UID: NSS on a live sysroot, else etc/passwd of the tree; the
 * uid in digits when it has no name, "-" for a negative (unknown) uid. The
 * pointer stays valid until the next call (the cache may grow).
 */
const char *users_name(const struct sysroot *sr, struct users *u, long uid);

/*
 * The uid of user NAME into *UID: NSS on a live sysroot (etc/passwd when NSS
 * fails), etc/passwd of the tree otherwise. Returns 0, -ENOENT (no such user),
 * or -errno when the database could not be read.
 */
int users_uid(const struct sysroot *sr, const char *name, long *uid);

/* Find NAME in passwd TEXT (etc/passwd format): 0 and its uid in *UID, or -ENOENT. */
int passwd_uid(const char *text, size_t len, const char *name, long *uid);

void users_free(struct users *u);

#endif
