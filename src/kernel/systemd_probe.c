// SPDX-License-Identifier: MIT
#include "systemd_probe.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/fileio.h"

#define CHUNK (64u << 10)     /* a read; more would only add to peak RSS */
#define MAX_BYTES (64u << 20) /* a manager library is a few MiB */

int systemd_bytes_have(const char *p, size_t n, const char *needle, size_t m)
{
	return m && n >= m && memmem(p, n, needle, m) != NULL;
}

/* Search file REL for NEEDLE in chunks that overlap by its length. 1, 0 or -errno. */
static int file_has(const struct sysroot *sr, const char *rel, const char *needle)
{
	int fd = sysroot_open_file(sr, rel);
	if (fd < 0)
		return fd;
	size_t m = strlen(needle), keep = 0, total = 0;
	char *b = malloc(CHUNK + m);
	if (!b) {
		close(fd);
		return -ENOMEM;
	}
	int found = 0;
	for (;;) {
		ssize_t r = read_retry(fd, b + keep, CHUNK);
		if (r <= 0) {
			found = (int)r;
			break;
		}
		size_t have = keep + (size_t)r;
		if (systemd_bytes_have(b, have, needle, m)) {
			found = 1;
			break;
		}
		keep = have < m ? have : m - 1;
		memmove(b, b + have - keep, keep);
		if ((total += (size_t)r) > MAX_BYTES)
			break;
	}
	free(b);
	close(fd);
	return found;
}

/* The first libsystemd-core-*.so in DIR (relative) into OUT, or -ENOENT. */
static int find_core(const struct sysroot *sr, const char *dir, char *out, size_t n)
{
	DIR *d = sysroot_opendir(sr, dir);
	if (!d)
		return -ENOENT;
	struct dirent *de;
	int r = -ENOENT;
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, "libsystemd-core-", 16) && strstr(de->d_name, ".so")) {
			snprintf(out, n, "%s/%s", dir, de->d_name);
			r = 0;
			break;
		}
	closedir(d);
	return r;
}

int systemd_knows(const struct sysroot *sr, const char *name)
{
	static const char *const dirs[] = {"usr/lib/x86_64-linux-gnu/systemd",
					   "usr/lib/aarch64-linux-gnu/systemd", "usr/lib/systemd",
					   "usr/lib64/systemd"};
	char rel[512], needle[128];
	snprintf(needle, sizeof(needle), "Service.%s", name);
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (find_core(sr, dirs[i], rel, sizeof(rel)) == 0)
			return file_has(sr, rel, needle);
	return -ENOENT;
}
