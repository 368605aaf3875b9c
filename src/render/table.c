// SPDX-License-Identifier: MIT
#include "table.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct table {
	int ncols;
	char align[16];
	bool has_header;
	size_t ncells, cap;
	char **cells; /* row-major, header row first when present */
};

struct table *table_new(int ncols, const char *const *headers, const char *align)
{
	if (ncols <= 0 || ncols > 16)
		return NULL;
	struct table *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->ncols = ncols;
	for (int i = 0; i < ncols; i++)
		t->align[i] = align && align[i] == 'r' ? 'r' : 'l';
	if (headers) {
		t->has_header = true;
		for (int i = 0; i < ncols; i++)
			table_cell(t, "%s", headers[i]);
	}
	return t;
}

void table_cell(struct table *t, const char *fmt, ...)
{
	if (!t)
		return;
	if (t->ncells == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		char **c = realloc(t->cells, cap * sizeof(*c));
		if (!c)
			return;
		t->cells = c;
		t->cap = cap;
	}
	va_list ap;
	va_start(ap, fmt);
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	t->cells[t->ncells++] = s;
}

size_t table_rows(const struct table *t)
{
	size_t rows = t->ncells / (size_t)t->ncols;
	return t->has_header && rows ? rows - 1 : rows;
}

/* Display width: count UTF-8 lead bytes only. */
static size_t width(const char *s)
{
	size_t w = 0;
	for (; s && *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

void table_print(const struct table *t, FILE *f, int indent, bool color)
{
	if (!t)
		return;
	size_t w[16] = {0};
	size_t rows = t->ncells / (size_t)t->ncols;
	for (size_t i = 0; i < rows * (size_t)t->ncols; i++) {
		size_t cw = width(t->cells[i]);
		int c = (int)(i % (size_t)t->ncols);
		if (cw > w[c])
			w[c] = cw;
	}
	for (size_t r = 0; r < rows; r++) {
		bool hdr = t->has_header && r == 0;
		fprintf(f, "%*s%s", indent, "", hdr ? col_bold(color) : "");
		for (int c = 0; c < t->ncols; c++) {
			const char *s = t->cells[r * (size_t)t->ncols + (size_t)c];
			if (!s)
				s = "?";
			size_t pad = w[c] - width(s);
			bool last = c == t->ncols - 1;
			if (t->align[c] == 'r')
				fprintf(f, "%*s%s", (int)pad, "", s);
			else if (last)
				fputs(s, f);
			else
				fprintf(f, "%s%*s", s, (int)pad, "");
			if (!last)
				fputs("  ", f);
		}
		fprintf(f, "%s\n", hdr ? col_reset(color) : "");
	}
}

void table_free(struct table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->ncells; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t);
}

void fmt_kb(char *out, size_t n, uint64_t kb)
{
	if (kb < 10240)
		snprintf(out, n, "%llu kB", (unsigned long long)kb);
	else if (kb < 10ull << 20)
		snprintf(out, n, "%.1f MiB", (double)kb / 1024);
	else
		snprintf(out, n, "%.2f GiB", (double)kb / (1024 * 1024));
}

void fmt_bytes(char *out, size_t n, uint64_t b)
{
	if (b % 1024 == 0 || b >= 10240)
		fmt_kb(out, n, b / 1024);
	else
		snprintf(out, n, "%llu B", (unsigned long long)b);
}

const char *col_red(bool on)
{
	return on ? "\033[31m" : "";
}
const char *col_yellow(bool on)
{
	return on ? "\033[33m" : "";
}
const char *col_bold(bool on)
{
	return on ? "\033[1m" : "";
}
const char *col_dim(bool on)
{
	return on ? "\033[2m" : "";
}
const char *col_reset(bool on)
{
	return on ? "\033[0m" : "";
}
