// SPDX-License-Identifier: MIT
#include "sysfs.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/fileio.h"
#include "../util/str.h"

int sysfs_value_parse(const char *text, size_t len, char *out, size_t n)
{
	struct choice c;
	const char *v = text;
	size_t l = len;
	if (memchr(text, '[', len) && choice_parse(text, len, &c) == 0) {
		v = c.selected;
		l = strlen(v);
	}
	l = strnlen(v, l); /* a NUL ends the value (a sysfs file holds none: damage) */
	return str_copy_rtrim(out, n, v, l, "\n \t");
}

/* Read all of REL into BUF (CAP bytes, NUL-terminated), without allocating. 0, -EFBIG or -errno. */
static int read_small(const struct sysroot *sr, const char *rel, char *buf, size_t cap, size_t *len)
{
	*len = 0;
	buf[0] = '\0';
	int fd = sysroot_open_file(sr, rel);
	if (fd < 0)
		return fd;
	size_t got = 0;
	int r = 0;
	char extra;
	for (;;) {
		bool full = got == cap - 1;
		ssize_t k = read_retry(fd, full ? &extra : buf + got, full ? 1 : cap - 1 - got);
		if (k <= 0) {
			r = (int)k;
			break;
		}
		if (full) { /* one byte past the ceiling */
			r = -EFBIG;
			break;
		}
		got += (size_t)k;
	}
	close(fd);
	buf[got] = '\0';
	*len = got;
	return r;
}

int sysfs_u64(const struct sysroot *sr, const char *rel, uint64_t *v)
{
	char b[SYSFS_VALUE_MAX + 1];
	size_t len;
	int r = read_small(sr, rel, b, sizeof(b), &len);
	return r ? r : sysfs_u64_parse(b, len, v);
}

int sysfs_value(const struct sysroot *sr, const char *rel, char *out, size_t n)
{
	char b[SYSFS_VALUE_MAX + 1];
	size_t len;
	int r = read_small(sr, rel, b, sizeof(b), &len);
	return r ? r : sysfs_value_parse(b, len, out, n);
}

int sysfs_choice(const struct sysroot *sr, const char *rel, struct choice *c)
{
	char b[SYSFS_VALUE_MAX + 1];
	size_t len;
	memset(c, 0, sizeof(*c));
	int r = read_small(sr, rel, b, sizeof(b), &len);
	if (r)
		return r;
	if (!len || b[len - 1] != '\n') /* cut: the kernel ends every choice with one */
		return -EINVAL;
	r = choice_parse(b, len, c);
	if (r)
		memset(c, 0, sizeof(*c));
	return r;
}

int thp_real_rel(const struct sysroot *sr, const char *rel, char *out, size_t n)
{
	while (*rel == '/')
		rel++;
	size_t l = strlen(SR_THP);
	int w;
	if (sr->rhel_thp && strncmp(rel, SR_THP, l) == 0 && (!rel[l] || rel[l] == '/'))
		w = snprintf(out, n, "%s%s", SR_THP_RHEL6, rel + l);
	else
		w = snprintf(out, n, "%s", rel);
	return w < 0 || (size_t)w >= n ? -ENAMETOOLONG : 0;
}

const char *thp_dir_host(const struct sysroot *sr)
{
	return sr->rhel_thp ? "/" SR_THP_RHEL6 : PATH_THP;
}

int thp_knob_rel(char *out, size_t n, const char *key)
{
	int l = snprintf(out, n, SR_THP "/%s", key);
	return l < 0 || (size_t)l >= n ? -ENAMETOOLONG : 0;
}

const char *thp_knob_key(const char *key)
{
	static const char *const prefixes[] = {PATH_THP "/", "transparent_hugepage/"};
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strncmp(key, prefixes[i], strlen(prefixes[i])) == 0)
			key += strlen(prefixes[i]);
	return key;
}

int thp_size_rel(char *out, size_t n, uint64_t size_kb, const char *file)
{
	int l = snprintf(out, n, SR_THP "/hugepages-%llukB/%s", (unsigned long long)size_kb, file);
	return l < 0 || (size_t)l >= n ? -ENAMETOOLONG : 0;
}

int hugetlb_pool_rel(char *out, size_t n, uint64_t size_kb, const char *file)
{
	int l = snprintf(out, n, SR_HUGETLB "/hugepages-%llukB/%s", (unsigned long long)size_kb,
			 file);
	return l < 0 || (size_t)l >= n ? -ENAMETOOLONG : 0;
}

int sysctl_vm_rel(char *out, size_t n, const char *name)
{
	int l = snprintf(out, n, SR_PROC "/sys/vm/%s", name);
	return l < 0 || (size_t)l >= n ? -ENAMETOOLONG : 0;
}

int thp_knob_u64(const struct sysroot *sr, const char *key, uint64_t *v)
{
	char rel[PATH_MAX];
	int r = thp_knob_rel(rel, sizeof(rel), key);
	return r ? r : sysfs_u64(sr, rel, v);
}

int thp_knob_value(const struct sysroot *sr, const char *key, char *out, size_t n)
{
	char rel[PATH_MAX];
	int r = thp_knob_rel(rel, sizeof(rel), key);
	return r ? r : sysfs_value(sr, rel, out, n);
}

int thp_knob_choice(const struct sysroot *sr, const char *key, struct choice *c)
{
	char rel[PATH_MAX];
	memset(c, 0, sizeof(*c));
	int r = thp_knob_rel(rel, sizeof(rel), key);
	return r ? r : sysfs_choice(sr, rel, c);
}

int thp_size_stat(const struct sysroot *sr, uint64_t size_kb, const char *name, uint64_t *v)
{
	char rel[PATH_MAX], file[128];
	int l = snprintf(file, sizeof(file), "stats/%s", name);
	if (l < 0 || (size_t)l >= sizeof(file))
		return -ENAMETOOLONG;
	int r = thp_size_rel(rel, sizeof(rel), size_kb, file);
	return r ? r : sysfs_u64(sr, rel, v);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int thp_sizes_list(const struct sysroot *sr, uint64_t *kb, int max)
{
	DIR *d = sysroot_opendir(sr, SR_THP);
	if (!d)
		return -errno;
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d)) && n < max) {
		uint64_t k = hugepages_dirname_kb(de->d_name);
		if (k)
			kb[n++] = k;
	}
	closedir(d);
	if (n > 1)
		qsort(kb, (size_t)n, sizeof(*kb), cmp_u64);
	return n;
}

int thp_size_stats_read(const struct sysroot *sr, uint64_t size_kb, struct kvlist *l)
{
	char dir[PATH_MAX];
	kvlist_clear(l);
	int r = thp_size_rel(dir, sizeof(dir), size_kb, "stats");
	if (r)
		return r;
	DIR *d = sysroot_opendir(sr, dir);
	if (!d)
		return -errno;
	struct dirent *de;
	while (!r && (de = readdir(d))) {
		char rel[PATH_MAX];
		uint64_t v;
		if (de->d_name[0] == '.')
			continue;
		int k = snprintf(rel, sizeof(rel), "%s/%s", dir, de->d_name);
		if (k < 0 || (size_t)k >= sizeof(rel) || sysfs_u64(sr, rel, &v)) {
			l->bad++;
			continue;
		}
		r = kvlist_add(l, de->d_name, strlen(de->d_name), v);
		if (r == -EINVAL) { /* a name too long to keep */
			l->bad++;
			r = 0;
		}
	}
	closedir(d);
	return r;
}
