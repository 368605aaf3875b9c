// SPDX-License-Identifier: MIT
#include "wb.h"

#include <stdarg.h>
#include <stdio.h>

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
