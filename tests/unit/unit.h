/* SPDX-License-Identifier: MIT */
/* Shared by the cmocka unit tests: literals, reading live files, link stubs. */
#ifndef THPCTL_TEST_UNIT_H
#define THPCTL_TEST_UNIT_H

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

/* A string literal as (text, len), without its NUL. */
#define LIT(s) s, sizeof(s) - 1

/* Read all of PATH (a /proc file: size unknown up front) into a malloc'd, NUL-terminated buffer. */
static inline char *unit_slurp(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *p = malloc(cap);
	while (p) {
		if (n + 1 == cap) {
			char *q = realloc(p, cap * 2);
			if (!q) {
				free(p);
				p = NULL;
				break;
			}
			p = q;
			cap *= 2;
		}
		ssize_t r = read(fd, p + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(p);
			p = NULL;
			break;
		}
		if (r == 0) {
			p[n] = '\0';
			*len = n;
			break;
		}
		n += (size_t)r;
	}
	close(fd);
	return p;
}

#endif
