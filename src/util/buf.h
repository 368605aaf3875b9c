/* SPDX-License-Identifier: MIT */
/* A growable, NUL-terminated byte buffer, reused across reads; growable arrays. */
#ifndef THPCTL_UTIL_BUF_H
#define THPCTL_UTIL_BUF_H

#include <stddef.h>

struct buf {
	char *p;    /* NULL until the first reserve */
	size_t len; /* bytes of content, not counting the NUL */
	size_t cap; /* bytes allocated at p */
};

/*
 * Make room for at least WANT bytes (content and NUL together), keeping the
 * content: the capacity starts at 16 KiB and doubles. Returns 0 or -ENOMEM
 * (B is then unchanged).
 */
int buf_reserve(struct buf *b, size_t want);

/* Free B's memory; B is empty and reusable afterwards. */
void buf_free(struct buf *b);

/*
 * Growable arrays: make the array *ARRP (a pointer to any T *, *CAP items
 * of ELEM bytes allocated) hold at least NEED items. The capacity starts at
 * FIRST items and doubles. Returns 0, or -ENOMEM with the array and *CAP
 * unchanged. Typical use: if (array_reserve(&v, &cap, n + 1, sizeof(*v), 64)).
 */
int array_reserve(void *arrp, size_t *cap, size_t need, size_t elem, size_t first);

#endif
