// SPDX-License-Identifier: MIT
#include "users.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "proc_status.h"

/* NSS buffer for one passwd entry; a bigger one (ERANGE) falls back to etc/passwd. */
#define NSS_BUF 16384

/* NSS lookup of UID: 0 and the name, -ENOENT (no entry), or -errno (NSS failed). */
static int nss_name(long uid, char *out, size_t n)
{
#ifdef THPCTL_NO_NSS
	(void)uid, (void)out, (void)n;
	return -ENOSYS; /* the static build: the local file only */
#else
	char buf[NSS_BUF];
	struct passwd pw, *res = NULL;
	int e = getpwuid_r((uid_t)uid, &pw, buf, sizeof(buf), &res);
	if (e)
		return -e;
	if (!res)
		return -ENOENT;
	snprintf(out, n, "%s", res->pw_name);
	return 0;
#endif
}

/* The name of UID from the sysroot's etc/passwd (read once into U). */
static int file_name(const struct sysroot *sr, struct users *u, long uid, char *out, size_t n)
{
	if (!u->loaded) {
		u->loaded = true;
		if (sysroot_read(sr, SR_PASSWD, &u->passwd))
			u->passwd.len = 0;
	}
	if (!u->passwd.len)
		return -ENOENT;
	return passwd_lookup(u->passwd.p, u->passwd.len, uid, out, n);
}

const char *users_name(const struct sysroot *sr, struct users *u, long uid)
{
	if (uid < 0)
		return "-";
	for (size_t i = 0; i < u->n; i++)
		if (u->e[i].uid == uid)
			return u->e[i].name;
	static struct user_ent spare; /* when the cache cannot grow */
	struct user_ent *e = &spare;
	if (array_reserve(&u->e, &u->cap, u->n + 1, sizeof(*u->e), 32) == 0)
		e = &u->e[u->n++];
	e->uid = uid;
	/* live: NSS, and the local file only when NSS itself failed; a tree: its file */
	int r = sr->live ? nss_name(uid, e->name, sizeof(e->name)) : -EAGAIN;
	if (r && r != -ENOENT)
		r = file_name(sr, u, uid, e->name, sizeof(e->name));
	if (r)
		snprintf(e->name, sizeof(e->name), "%ld", uid);
	return e->name;
}

int passwd_uid(const char *text, size_t len, const char *name, long *uid)
{
	size_t n = strlen(name);
	const char *pos = text, *end = text + len, *s, *e;
	while (n && next_line(&pos, end, &s, &e)) {
		/* name:x:uid:gid:... */
		if ((size_t)(e - s) <= n || s[n] != ':' || memcmp(s, name, n) != 0)
			continue;
		const char *c2 = memchr(s + n + 1, ':', (size_t)(e - s - (long)n - 1));
		if (!c2)
			continue;
		const char *p = c2 + 1;
		uint64_t v;
		if (parse_u64(&p, e, &v) || p >= e || *p != ':' || v > 0x7fffffff)
			continue;
		*uid = (long)v;
		return 0;
	}
	return -ENOENT;
}

static int file_uid(const struct sysroot *sr, const char *name, long *uid)
{
	struct buf b = {0};
	int r = sysroot_read(sr, SR_PASSWD, &b);
	if (!r)
		r = passwd_uid(b.p, b.len, name, uid);
	buf_free(&b);
	return r;
}

int users_uid(const struct sysroot *sr, const char *name, long *uid)
{
#ifdef THPCTL_NO_NSS
	return file_uid(sr, name, uid);
#else
	if (!sr->live)
		return file_uid(sr, name, uid);
	char buf[NSS_BUF];
	struct passwd pw, *res = NULL;
	int e = getpwnam_r(name, &pw, buf, sizeof(buf), &res);
	if (e)
		return file_uid(sr, name, uid); /* NSS failed: the local file */
	if (!res)
		return -ENOENT;
	*uid = (long)res->pw_uid;
	return 0;
#endif
}

void users_free(struct users *u)
{
	buf_free(&u->passwd);
	free(u->e);
	memset(u, 0, sizeof(*u));
}
