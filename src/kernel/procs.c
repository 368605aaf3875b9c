// SPDX-License-Identifier: MIT
#include "procs.h"
#include "../util/buf.h"
#include "../util/num.h"

#include <errno.h>
#include <stdlib.h>

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
