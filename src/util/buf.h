/* SPDX-License-Identifier: MIT */
/* A growable, NUL-terminated byte buffer, reused across reads; growable arrays. */
#ifndef THPCTL_UTIL_BUF_H
#define THPCTL_UTIL_BUF_H

#include <stdarg.h>
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

/* Append the N bytes at P to B, keeping it NUL-terminated. Returns 0 or -ENOMEM (B unchanged). */
int buf_add(struct buf *b, const char *p, size_t n);

/*
 * Append FMT formatted (printf) to B, keeping it NUL-terminated. Returns 0, or
 * -ENOMEM (B unchanged; also for an encoding error of FMT).
 */
int buf_addf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* buf_addf with a va_list. */
int buf_vaddf(struct buf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

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
