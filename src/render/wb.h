/* SPDX-License-Identifier: MIT */
/* A sentence written in pieces into a fixed buffer (the render words files). */
#ifndef THPCTL_RENDER_WB_H
#define THPCTL_RENDER_WB_H

#include <stddef.h>

struct wb {
	char *p;
	size_t n, off; /* OFF may pass N: the text was cut at N - 1 bytes */
};

/* An empty sentence in OUT (N bytes, N > 0): OUT[0] is NUL; wb_put() appends. No errors. */
struct wb wb_begin(char *out, size_t n);

/* Append FMT (printf) to B; nothing once B is full. */
__attribute__((format(printf, 2, 3))) void wb_put(struct wb *b, const char *fmt, ...);

#endif
