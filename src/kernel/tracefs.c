// SPDX-License-Identifier: MIT
#include "tracefs.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "parse.h"

/* The new mount API's constants (linux/mount.h, 5.2), spelled out for older headers. */
#ifndef FSOPEN_CLOEXEC
#define FSOPEN_CLOEXEC 0x00000001
#endif
#ifndef FSMOUNT_CLOEXEC
#define FSMOUNT_CLOEXEC 0x00000001
#endif
#define THP_FSCONFIG_CMD_CREATE 6

const char *tracefs_find_mount(const char *mounts, size_t n)
{
	static const char *const cands[] = {SR_TRACEFS, SR_DEBUG_TRACING};
	const char *pos = mounts, *end = mounts + n, *line, *le;
	bool found[2] = {false, false};
	while (next_line(&pos, end, &line, &le)) {
		/* "tracefs /sys/kernel/tracing tracefs rw,nosuid,... 0 0" */
		const char *f[3];
		size_t fl[3];
		const char *p = line;
		int nf = 0;
		while (nf < 3 && p < le) {
			while (p < le && *p == ' ')
				p++;
			const char *a = p;
			while (p < le && *p != ' ')
				p++;
			if (p > a) {
				f[nf] = a;
				fl[nf++] = (size_t)(p - a);
			}
		}
		if (nf < 3 || fl[2] != 7 || memcmp(f[2], "tracefs", 7))
			continue;
		for (int c = 0; c < 2; c++) {
			size_t cl = strlen(cands[c]);
			if (fl[1] == cl + 1 && f[1][0] == '/' &&
			    memcmp(f[1] + 1, cands[c], cl) == 0)
				found[c] = true;
		}
	}
	for (int c = 0; c < 2; c++)
		if (found[c])
			return cands[c];
	return NULL;
}

static void tracefs_reset(struct tracefs *t)
{
	memset(t, 0, sizeof(*t));
	t->root = t->inst = -1;
}

/* A detached tracefs mount (5.2+): an fd, never in any mount table. */
static int mount_detached(void)
{
#if defined(SYS_fsopen) && defined(SYS_fsconfig) && defined(SYS_fsmount)
	int fs = (int)syscall(SYS_fsopen, "tracefs", FSOPEN_CLOEXEC);
	if (fs < 0)
		return -errno;
	int r = 0;
	if (syscall(SYS_fsconfig, fs, THP_FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		r = -errno;
	int m = r ? -1 : (int)syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC, 0);
	if (!r && m < 0)
		r = -errno;
	close(fs);
	return r ? r : m;
#else
	return -ENOSYS;
#endif
}

/* Before 5.2: mount tracefs at sr's SR_TRACEFS in a mount namespace of our own. */
static int mount_in_namespace(struct tracefs *t, const struct sysroot *sr)
{
	const char *base = strcmp(sr->path, "/") == 0 ? "" : sr->path;
	snprintf(t->ns_mnt, sizeof(t->ns_mnt), "%s/%s", base, SR_TRACEFS);
	if (unshare(CLONE_NEWNS))
		return -errno;
	/* no propagation back to the host's peer group (/ is shared under systemd) */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return -errno;
	if (mount("nodev", t->ns_mnt, "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL))
		return -errno;
	int fd = open(t->ns_mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		int e = -errno;
		umount2(t->ns_mnt, MNT_DETACH);
		t->ns_mnt[0] = '\0';
		return e;
	}
	return fd;
}

int tracefs_open(struct tracefs *t, const struct sysroot *sr)
{
	tracefs_reset(t);
	struct buf b = {0};
	int r = sysroot_read(sr, SR_MOUNTS, &b);
	const char *rel = r == 0 ? tracefs_find_mount(b.p, b.len) : NULL;
	buf_free(&b);
	if (rel) {
		t->root = sysroot_openat(sr, rel, O_RDONLY | O_DIRECTORY);
		if (t->root >= 0) {
			snprintf(t->where, sizeof(t->where), "%s%s%s", sr->path,
				 sr->path[strlen(sr->path) - 1] == '/' ? "" : "/", rel);
			return 0;
		}
		if (t->root == -EACCES || t->root == -EPERM)
			return t->root;
	}
	const char *force = NULL;
#ifdef THPCTL_TEST_HOOKS
	/* test builds only: force the namespace fallback (tests/live/trace.sh) */
	force = getenv("THPCTL_TRACEFS_MOUNT");
#endif
	int fd = force && strcmp(force, "ns") == 0 ? -ENOSYS : mount_detached();
	if (fd == -ENOSYS)
		fd = mount_in_namespace(t, sr);
	if (fd < 0) {
		t->ns_mnt[0] = '\0';
		return fd;
	}
	t->root = fd;
	t->private_mount = true;
	snprintf(t->where, sizeof(t->where), "%s",
		 t->ns_mnt[0] ? "private mount namespace" : "private detached mount");
	return 0;
}

bool tracefs_instance_name_ok(const char *name)
{
	if (strncmp(name, "thpctl-", 7) || !name[7] || strlen(name) > 20)
		return false;
	for (const char *p = name + 7; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

int tracefs_instance_create(struct tracefs *t, const char *name)
{
	char rel[96];
	snprintf(rel, sizeof(rel), "instances/%s", name);
	if (mkdirat(t->root, rel, 0750))
		return -errno;
	snprintf(t->name, sizeof(t->name), "%s", name);
	t->inst = openat(t->root, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (t->inst < 0) {
		int e = -errno;
		tracefs_instance_remove(t);
		return e;
	}
	return 0;
}

int tracefs_iopen(struct tracefs *t, const char *rel, int flags)
{
	if (t->inst < 0)
		return -EBADF;
	int fd = openat(t->inst, rel, flags | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int tracefs_iwrite(struct tracefs *t, const char *rel, const char *val)
{
	int fd = tracefs_iopen(t, rel, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return fd;
	size_t n = strlen(val);
	ssize_t w;
	do
		w = write(fd, val, n);
	while (w < 0 && errno == EINTR);
	int r = w < 0 ? -errno : (size_t)w == n ? 0 : -EIO;
	close(fd);
	return r;
}

int tracefs_iread(struct tracefs *t, const char *rel, char *out, size_t n)
{
	int fd = tracefs_iopen(t, rel, O_RDONLY);
	if (fd < 0)
		return fd;
	ssize_t r = read(fd, out, n - 1);
	int e = r < 0 ? -errno : 0;
	close(fd);
	if (e)
		return e;
	while (r > 0 && out[r - 1] == '\n')
		r--;
	out[r] = '\0';
	return 0;
}

bool tracefs_has_event(const struct tracefs *t, const char *sys_name)
{
	char rel[160];
	snprintf(rel, sizeof(rel), "events/%s", sys_name);
	return t->root >= 0 && faccessat(t->root, rel, F_OK, 0) == 0;
}

int tracefs_instance_remove(struct tracefs *t)
{
	if (!t->name[0])
		return 0;
	if (t->inst >= 0)
		close(t->inst);
	t->inst = -1;
	char rel[96];
	snprintf(rel, sizeof(rel), "instances/%s", t->name);
	int r = 0;
	/* a reader's last reference can be dropped a moment after its close() */
	for (int i = 0; i < 50; i++) {
		r = unlinkat(t->root, rel, AT_REMOVEDIR) ? -errno : 0;
		if (r != -EBUSY)
			break;
		struct timespec ts = {0, 20 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	if (r == -ENOENT)
		r = 0;
	if (r == 0)
		t->name[0] = '\0';
	return r;
}

void tracefs_close(struct tracefs *t)
{
	if (t->inst >= 0)
		close(t->inst);
	if (t->root >= 0)
		close(t->root);
	if (t->ns_mnt[0] && umount2(t->ns_mnt, 0) && errno == EBUSY)
		umount2(t->ns_mnt, MNT_DETACH);
	tracefs_reset(t);
}

int tracefs_remove_instance_named(const char *name)
{
	if (!tracefs_instance_name_ok(name))
		return -EINVAL;
	struct sysroot sr;
	int r = sysroot_open(&sr, NULL);
	if (r)
		return r;
	struct tracefs t;
	r = tracefs_open(&t, &sr);
	if (r == 0) {
		snprintf(t.name, sizeof(t.name), "%s", name);
		r = tracefs_instance_remove(&t);
		tracefs_close(&t);
	}
	sysroot_close(&sr);
	return r;
}
