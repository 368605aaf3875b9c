// SPDX-License-Identifier: MIT
#include "buf.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void buf_free(struct buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

int buf_reserve(struct buf *b, size_t want)
{
	if (want <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : 16384;
	while (cap < want) {
		if (cap > SIZE_MAX / 2)
			return -ENOMEM;
		cap *= 2;
	}
	char *p = realloc(b->p, cap);
	if (!p)
		return -ENOMEM;
	b->p = p;
	b->cap = cap;
	return 0;
}

int buf_add(struct buf *b, const char *p, size_t n)
{
	if (buf_reserve(b, b->len + n + 1))
		return -ENOMEM;
	memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

int buf_vaddf(struct buf *b, const char *fmt, va_list ap)
{
	va_list again;
	va_copy(again, ap);
	int n = vsnprintf(NULL, 0, fmt, ap);
	if (n < 0 || buf_reserve(b, b->len + (size_t)n + 1)) {
		va_end(again);
		return -ENOMEM;
	}
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, again);
	va_end(again);
	b->len += (size_t)n;
	return 0;
}

int buf_addf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int e = buf_vaddf(b, fmt, ap);
	va_end(ap);
	return e;
}

int array_reserve(void *arrp, size_t *cap, size_t need, size_t elem, size_t first)
{
	if (need <= *cap)
		return 0;
	size_t n = *cap ? *cap : (first ? first : 1);
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return -ENOMEM;
		n *= 2;
	}
	if (elem && n > SIZE_MAX / elem)
		return -ENOMEM;
	void *p; /* *arrp is a T *: copied as bytes, not read through a void * lvalue */
	memcpy(&p, arrp, sizeof(p));
	void *q = realloc(p, n * elem);
	if (!q)
		return -ENOMEM;
	memcpy(arrp, &q, sizeof(q));
	*cap = n;
	return 0;
}
