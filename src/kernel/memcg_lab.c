// SPDX-License-Identifier: MIT
#include "memcg_lab.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../util/buf.h"
#include "../util/fileio.h"
#include "parse.h"

#define CG_ABS "/sys/fs/cgroup/"

int memcg_lab_plan(const struct sysroot *sr, const char *what, struct memcg_lab *m)
{
	struct buf b = {0};
	memset(m, 0, sizeof(*m));
	const char *dir = NULL;
	if (sysroot_read(sr, SR_CGROUP "/cgroup.controllers", &b) == 0 && strstr(b.p, "memory")) {
		m->version = 2;
		dir = SR_CGROUP;
	} else if (sysroot_exists(sr, SR_CGROUP "/memory/memory.limit_in_bytes") == 0) {
		m->version = 1;
		dir = SR_CGROUP "/memory";
	}
	buf_free(&b);
	if (!dir)
		return -ENOENT;
	snprintf(m->rel, sizeof(m->rel), "%s/thpctl-lab-%s-%ld", dir, what, (long)getpid());
	snprintf(m->path, sizeof(m->path), "/%s", m->rel);
	return memcg_lab_path_ok(m->path) ? 0 : -EINVAL;
}

int memcg_lab_create(const struct sysroot *sr, const struct memcg_lab *m)
{
	return mkdirat(sr->dirfd, m->rel, 0755) ? -errno : 0;
}

/* Write TEXT to FILE of M. 0 or -errno. */
static int put(const struct sysroot *sr, const struct memcg_lab *m, const char *file,
	       const char *text)
{
	char rel[192];
	snprintf(rel, sizeof(rel), "%s/%s", m->rel, file);
	int fd = openat(sr->dirfd, rel, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	ssize_t w = write(fd, text, strlen(text));
	int e = w < 0 ? -errno : (size_t)w == strlen(text) ? 0 : -EIO;
	if (close(fd) && !e)
		e = -errno;
	return e;
}

int memcg_lab_join(const struct sysroot *sr, const struct memcg_lab *m, pid_t pid)
{
	char v[24];
	snprintf(v, sizeof(v), "%ld\n", (long)pid);
	return put(sr, m, "cgroup.procs", v);
}

int memcg_lab_usage(const struct sysroot *sr, const struct memcg_lab *m, uint64_t *bytes)
{
	struct buf b = {0};
	int r = sysroot_readf(sr, &b, "%s/%s", m->rel,
			      m->version == 2 ? "memory.current" : "memory.usage_in_bytes");
	if (!r)
		r = parse_u64_text(b.p, b.len, bytes);
	buf_free(&b);
	return r;
}

int memcg_lab_pressure(const struct sysroot *sr, const struct memcg_lab *m, uint64_t bytes,
		       char *how, size_t n)
{
	char v[32];
	int r;
	if (m->version == 2) {
		snprintf(v, sizeof(v), "%llu", (unsigned long long)bytes);
		r = put(sr, m, "memory.reclaim", v);
		snprintf(how, n, "memory.reclaim %s: %s", v,
			 !r		? "done"
			 : r == -EAGAIN ? "reclaim ran and fell short (EAGAIN): pressure applied"
					: strerror(-r));
		return r;
	}
	uint64_t use = 0;
	if ((r = memcg_lab_usage(sr, m, &use)))
		return r;
	uint64_t lim = use > bytes ? use - bytes : 4096;
	snprintf(v, sizeof(v), "%llu", (unsigned long long)lim);
	r = put(sr, m, "memory.limit_in_bytes", v);
	snprintf(how, n, "memory.limit_in_bytes %s (usage %llu): %s", v, (unsigned long long)use,
		 !r ? "taken"
		 : r == -EBUSY
			 ? "refused (EBUSY) when the cgroup's reclaim freed nothing more: pressure "
			   "applied, the limit not held"
			 : strerror(-r));
	return r;
}

bool memcg_lab_path_ok(const char *path)
{
	size_t l = strlen(path);
	if (l >= 96 || strncmp(path, CG_ABS, strlen(CG_ABS)) || strstr(path, "/./") ||
	    strstr(path, "/../") || strstr(path, "//"))
		return false;
	const char *last = strrchr(path, '/') + 1, *p = last + strlen("thpctl-lab-");
	if (strncmp(last, "thpctl-lab-", 11))
		return false;
	const char *w = p;
	while (*p >= 'a' && *p <= 'z')
		p++;
	if (p == w || *p++ != '-' || !*p)
		return false;
	for (; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

/* SIGKILL every pid in PATH/cgroup.procs; how many were listed (0: empty), -errno. */
static int kill_procs(const char *path)
{
	char f[160];
	snprintf(f, sizeof(f), "%s/cgroup.procs", path);
	int fd = open(f, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	struct buf b = {0};
	int r = buf_read_fd(&b, fd, 1u << 20, 0);
	close(fd);
	int n = 0;
	for (const char *p = b.p; !r && p && *p;) {
		char *e;
		long pid = strtol(p, &e, 10);
		if (e == p)
			break;
		if (pid > 1 && pid != (long)getpid())
			kill((pid_t)pid, SIGKILL);
		n++;
		p = e + (*e == '\n');
	}
	buf_free(&b);
	return r ? r : n;
}

int memcg_lab_remove(const char *path)
{
	if (!memcg_lab_path_ok(path))
		return -EINVAL;
	struct stat st;
	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	for (int i = 0; i < 200; i++) {
		int n = kill_procs(path);
		if (n <= 0)
			break;
		struct timespec ts = {0, 10000000};
		nanosleep(&ts, NULL);
	}
	return rmdir(path) && errno != ENOENT ? -errno : 0;
}
