// SPDX-License-Identifier: MIT
#include "str.h"

#include <errno.h>
#include <string.h>

bool str_copy(char *out, size_t n, const char *src)
{
	size_t len = strlen(src);
	size_t k = len < n ? len : n - 1;
	memmove(out, src, k);
	out[k] = '\0';
	return k == len;
}

int str_copy_rtrim(char *out, size_t n, const char *v, size_t l, const char *blanks)
{
	while (l && memchr(blanks, v[l - 1], strlen(blanks)))
		l--;
	if (l >= n)
		return -E2BIG;
	memcpy(out, v, l);
	out[l] = '\0';
	return 0;
}

bool str_cat(char *out, size_t n, const char *src)
{
	size_t used = strnlen(out, n);
	if (used >= n)
		return false;
	return str_copy(out + used, n - used, src);
}

bool u64_str(char *out, size_t n, uint64_t v)
{
	char d[24];
	size_t i = sizeof(d);
	d[--i] = '\0';
	do
		d[--i] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	return str_copy(out, n, d + i);
}
