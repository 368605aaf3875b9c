// SPDX-License-Identifier: MIT
#include "wb.h"

#include <stdarg.h>
#include <stdio.h>

struct wb wb_begin(char *out, size_t n)
{
	out[0] = '\0';
	return (struct wb){out, n, 0};
}

void wb_put(struct wb *b, const char *fmt, ...)
{
	if (b->off >= b->n)
		return;
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(b->p + b->off, b->n - b->off, fmt, ap);
	va_end(ap);
	if (k > 0)
		b->off += (size_t)k;
}
