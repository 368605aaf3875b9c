// SPDX-License-Identifier: MIT
#include "procs.h"
#include "../util/buf.h"
#include "../util/num.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
	return x < y ? -1 : x > y;
}

int procs_list(const struct sysroot *sr, pid_t **pids)
{
	*pids = NULL;
	DIR *d = sysroot_opendir(sr, SR_PROC);
	if (!d)
		return -errno;
	size_t n = 0, cap = 0;
	pid_t *v = NULL;
	struct dirent *de;
	while ((de = readdir(d))) {
		pid_t pid;
		if (str_pid(de->d_name, &pid))
			continue;
		if (array_reserve(&v, &cap, n + 1, sizeof(*v), 256)) {
			free(v);
			closedir(d);
			return -ENOMEM;
		}
		v[n++] = pid;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), cmp_pid);
	*pids = v;
	return (int)n;
}

/* Append the pids listed in TEXT (space-separated) to OUT[*n..MAX). */
static void add_children(const char *text, size_t len, pid_t *out, int *n, int max)
{
	const char *p = text, *end = text + len;
	while (p < end && *n < max) {
		while (p < end && (*p == ' ' || *p == '\n'))
			p++;
		const char *s = p;
		while (p < end && *p >= '0' && *p <= '9')
			p++;
		if (p == s) {
			p++;
			continue;
		}
		char tok[16];
		long v;
		size_t l = (size_t)(p - s) < sizeof(tok) - 1 ? (size_t)(p - s) : sizeof(tok) - 1;
		memcpy(tok, s, l);
		tok[l] = '\0';
		if (str_long(tok, 1, INT32_MAX, &v) == 0)
			out[(*n)++] = (pid_t)v;
	}
}

int procs_tree(const struct sysroot *sr, pid_t root, pid_t *out, int max)
{
	char rel[64];
	snprintf(rel, sizeof(rel), SR_PROC "/%d/task", (int)root);
	DIR *probe = sysroot_opendir(sr, rel);
	if (!probe)
		return -ESRCH;
	closedir(probe);
	int n = 0;
	if (max < 1)
		return 0;
	out[n++] = root;
	struct buf b = {0};
	for (int i = 0; i < n && n < max; i++) {
		snprintf(rel, sizeof(rel), SR_PROC "/%d/task", (int)out[i]);
		DIR *d = sysroot_opendir(sr, rel);
		struct dirent *de;
		while (d && (de = readdir(d)) && n < max) {
			if (de->d_name[0] < '0' || de->d_name[0] > '9')
				continue;
			char cr[96];
			snprintf(cr, sizeof(cr), "%s/%s/children", rel, de->d_name);
			if (sysroot_read(sr, cr, &b) == 0)
				add_children(b.p, b.len, out, &n, max);
		}
		if (d)
			closedir(d);
	}
	buf_free(&b);
	return n;
}
