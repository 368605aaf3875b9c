// SPDX-License-Identifier: MIT
#include "task_sp.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/buf.h"

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* "0x7ffd..." -> V; 0 or -EINVAL. */
static int parse_hex_word(const char *s, size_t n, uint64_t *v)
{
	if (n < 3 || n > 18 || s[0] != '0' || s[1] != 'x')
		return -EINVAL;
	uint64_t x = 0;
	for (size_t i = 2; i < n; i++) {
		int d = hexval(s[i]);
		if (d < 0)
			return -EINVAL;
		x = x << 4 | (uint64_t)d;
	}
	*v = x;
	return 0;
}

int task_syscall_sp(const char *text, size_t len, uint64_t *sp)
{
	while (len && (text[len - 1] == '\n' || text[len - 1] == ' '))
		len--;
	if (len == 7 && !memcmp(text, "running", 7))
		return -EAGAIN;
	/* a whole line has 3 words ("-1 SP PC") or 9 ("NR ARG1..ARG6 SP PC") */
	const char *w[10];
	size_t wl[10];
	int n = 0;
	for (size_t i = 0; i < len;) {
		while (i < len && text[i] == ' ')
			i++;
		size_t s = i;
		while (i < len && text[i] != ' ')
			i++;
		if (i > s) {
			if (n == 10)
				return -EINVAL;
			w[n] = text + s;
			wl[n++] = i - s;
		}
	}
	uint64_t pc;
	if ((n != 3 && n != 9) || parse_hex_word(w[n - 2], wl[n - 2], sp) ||
	    parse_hex_word(w[n - 1], wl[n - 1], &pc))
		return -EINVAL;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int task_sps_read(const struct sysroot *sr, pid_t pid, struct task_sps *out)
{
	memset(out, 0, sizeof(*out));
	char rel[96];
	snprintf(rel, sizeof(rel), SR_PROC "/%d/task", (int)pid);
	DIR *d = sysroot_opendir(sr, rel);
	if (!d)
		return errno == ENOENT ? -ESRCH : -errno;
	struct buf b = {0};
	size_t cap = 0;
	struct dirent *de;
	int ret = 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9' || strlen(de->d_name) > 10)
			continue;
		out->ntasks++;
		snprintf(rel, sizeof(rel), SR_PROC "/%d/task/%s/syscall", (int)pid, de->d_name);
		int e = sysroot_read(sr, rel, &b);
		uint64_t sp;
		if (e == -EACCES || e == -EPERM)
			out->denied++;
		if (e || task_syscall_sp(b.p, b.len, &sp) || out->nknown >= TASK_SP_MAX)
			continue;
		if ((size_t)out->nknown == cap) {
			size_t nc = cap ? cap * 2 : 64;
			uint64_t *p = realloc(out->sp, nc * sizeof(*p));
			if (!p) {
				ret = -ENOMEM;
				break;
			}
			out->sp = p;
			cap = nc;
		}
		out->sp[out->nknown++] = sp;
	}
	closedir(d);
	buf_free(&b);
	if (out->nknown)
		qsort(out->sp, (size_t)out->nknown, sizeof(*out->sp), cmp_u64);
	if (ret)
		task_sps_free(out);
	return ret;
}

void task_sps_free(struct task_sps *t)
{
	free(t->sp);
	t->sp = NULL;
	t->nknown = 0;
}

int task_sps_in(const struct task_sps *t, uint64_t start, uint64_t end)
{
	int n = 0;
	for (int i = 0; i < t->nknown; i++)
		n += t->sp[i] >= start && t->sp[i] < end;
	return n;
}
