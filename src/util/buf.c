// SPDX-License-Identifier: MIT
#include "buf.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

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
