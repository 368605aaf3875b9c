/* SPDX-License-Identifier: MIT */
/* Shared by the cmocka unit tests: literals, reading live files (util/fileio.h), link stubs. */
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

#include "util/fileio.h"

/* A string literal as (text, len), without its NUL. */
#define LIT(s) s, sizeof(s) - 1

/* Read all of PATH (a /proc file: size unknown up front) into a malloc'd, NUL-terminated buffer. */
static inline char *unit_slurp(const char *path, size_t *len)
{
	struct buf b = {0};
	if (read_file_at(AT_FDCWD, path, &b, SIZE_MAX)) {
		buf_free(&b);
		return NULL;
	}
	*len = b.len;
	return b.p;
}

/* Write PRE, then N copies of C, then POST into DST (CAP bytes): an over-long field. */
static inline char *unit_long_field(char *dst, size_t cap, const char *pre, char c, size_t n,
				    const char *post)
{
	size_t lp = strlen(pre);
	assert_true(lp + n + strlen(post) < cap);
	memcpy(dst, pre, lp);
	memset(dst + lp, c, n);
	strcpy(dst + lp + n, post);
	return dst;
}

#endif
