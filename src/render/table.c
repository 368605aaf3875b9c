// SPDX-License-Identifier: MIT
#include "table.h"

#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../util/buf.h"

/* A cell: its text in the table's one buffer (not a malloc each: maps has 80 000 cells at
 * 10 000 VMAs), and its display width, counted once. */
struct tcell {
	uint32_t off;	   /* in text (a table of 4 GiB of text: the rest is "?") */
	uint32_t w : 31;   /* display width */
	uint32_t none : 1; /* could not be formatted: shown as "?" */
};

struct table {
	int ncols;
	char align[16];
	bool has_header;
	size_t ncells, cap;
	struct tcell *cells; /* row-major, header row first when present */
	struct buf text;     /* the cells' texts, each NUL-terminated */
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
		t->align[i] = align && (align[i] == 'r' || align[i] == 'L') ? align[i] : 'l';
	if (headers) {
		t->has_header = true;
		for (int i = 0; i < ncols; i++)
			table_cell(t, "%s", headers[i]);
	}
	return t;
}

static size_t width(const char *s);

void table_cell(struct table *t, const char *fmt, ...)
{
	if (!t)
		return;
	if (array_reserve(&t->cells, &t->cap, t->ncells + 1, sizeof(*t->cells), 64))
		return;
	struct buf *b = &t->text;
	size_t at = b->len;
	int n = -1;
	va_list ap, again;
	va_start(ap, fmt);
	va_copy(again, ap);
	/* most cells: a string or a text without a conversion ("-"), copied; an int in decimal
	 * (vsnprintf's own cost was ~500 instructions a cell, most of a table: callgrind) */
	char num[16];
	const char *lit = NULL;
	if (fmt[0] == '%' && fmt[1] == 'd' && !fmt[2]) {
		int x = va_arg(ap, int);
		unsigned u = x < 0 ? 0u - (unsigned)x : (unsigned)x;
		char *p = num + sizeof(num);
		*--p = '\0';
		do
			*--p = (char)('0' + u % 10);
		while (u /= 10);
		if (x < 0)
			*--p = '-';
		lit = p;
	} else if (fmt[0] == '%' && fmt[1] == 's' && !fmt[2]) {
		lit = va_arg(ap, const char *);
	} else if (!strchr(fmt, '%')) {
		lit = fmt;
	}
	if (lit) {
		const char *v = lit;
		size_t len = strlen(v);
		n = buf_reserve(b, at + len + 1) || len > INT_MAX ? -1 : (int)len;
		if (n >= 0) { /* NUL-terminated, as vsnprintf leaves it (esc_dup reads to it) */
			memcpy(b->p + at, v, len);
			b->p[at + len] = '\0';
		}
	} else if (!buf_reserve(b, at + 256)) { /* the room there is: one vsnprintf */
		size_t room = b->cap - at;
		n = vsnprintf(b->p + at, room, fmt, ap);
		if (n >= 0 && (size_t)n >= room)
			n = buf_reserve(b, at + (size_t)n + 1)
				    ? -1
				    : vsnprintf(b->p + at, (size_t)n + 1, fmt, again);
	}
	va_end(again);
	va_end(ap);
	struct tcell *c = &t->cells[t->ncells++];
	*c = (struct tcell){.off = (uint32_t)at, .w = 1, .none = n < 0 || at > UINT32_MAX - 4096};
	if (c->none) {
		b->len = at;
		return;
	}
	b->len = at + (size_t)n;
	/* printable ASCII, most cells: kept as it is, a byte a column (one pass) */
	const unsigned char *u = (const unsigned char *)b->p + at;
	size_t k = 0;
	while (k < (size_t)n && u[k] >= 0x20 && u[k] < 0x7f)
		k++;
	if (k == (size_t)n) {
		b->p[b->len++] = '\0'; /* room reserved above */
		c->w = k < (1u << 31) ? (uint32_t)k : (1u << 31) - 1;
		return;
	}
	/* a cell holds names from trees and processes: escaped (util/esc.h), never raw */
	char *e = esc_needed(b->p + at, (size_t)n, 0) ? esc_dup(b->p + at, 0) : NULL;
	if (e) {
		b->len = at;
		c->none = buf_add(b, e, strlen(e)) != 0;
		free(e);
	}
	if (c->none || buf_add(b, "\0", 1)) { /* the cell's end */
		b->len = at;
		c->none = true;
		return;
	}
	size_t w = width(b->p + at);
	c->w = w < (1u << 31) ? (uint32_t)w : (1u << 31) - 1;
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

static int term_width; /* 0: no limit */

void table_set_width(int cols)
{
	term_width = cols > 0 ? cols : 0;
}

int table_width(void)
{
	return term_width;
}

static int stack_width; /* 0: never stacked */

void table_set_stack_width(int cols)
{
	stack_width = cols > 0 ? cols : 0;
}

/*
 * The lines a row is printed on when the columns of widths W do not fit
 * stack_width: FIRST[g] is the first column of line g; returns the number of
 * lines (1: one line, as wide as it is).
 */
static int stack_groups(const struct table *t, const size_t *w, int indent, int *first)
{
	first[0] = 0;
	if (!stack_width || t->ncols < 2)
		return 1;
	size_t lim = (size_t)stack_width, line = (size_t)indent;
	int ng = 1;
	for (int c = 0; c < t->ncols; c++) {
		size_t cw = c == t->ncols - 1 && w[c] > TABLE_STACK_LAST ? TABLE_STACK_LAST : w[c];
		bool lead = c == first[ng - 1];
		if (!lead && line + 2 + cw > lim) {
			first[ng++] = c;
			line = (size_t)indent + TABLE_STACK_INDENT + cw;
			continue;
		}
		line += (lead ? 0 : 2) + cw;
	}
	/* the last column alone on a line of its own: text (a name) wraps instead; a number
	 * goes under its own header (the word wrapper would split "% OF RSS" from its column) */
	if (ng > 1 && first[ng - 1] == t->ncols - 1 && t->align[t->ncols - 1] != 'r')
		ng--;
	return ng;
}

/*
 * Narrow the 'L' columns of W (widest first, none under TABLE_MIN_NAME) until the line fits;
 * when it cannot fit that way, or when only a last column of text is too wide (it wraps),
 * no column is narrowed: a name is not cut for a line that wraps anyway (util/wrap.h).
 */
static void fit(const struct table *t, size_t *w, int indent)
{
	size_t total = (size_t)indent + 2 * (size_t)(t->ncols - 1), least = total;
	for (int c = 0; c < t->ncols; c++) {
		total += w[c];
		least += t->align[c] == 'L' && w[c] > TABLE_MIN_NAME ? TABLE_MIN_NAME : w[c];
	}
	if (!term_width || total <= (size_t)term_width || least > (size_t)term_width)
		return; /* numbers and values are never cut: the line stays long */
	/* a last column of text wraps (util/wrap.h): the names need only leave it room */
	int last = t->ncols - 1;
	size_t room = w[last] < TABLE_STACK_LAST ? w[last] : TABLE_STACK_LAST;
	if (last > 0 && t->align[last] != 'r' && total - w[last] + room <= (size_t)term_width)
		return;
	while (total > (size_t)term_width) {
		int best = -1;
		for (int c = 0; c < t->ncols; c++)
			if (t->align[c] == 'L' && w[c] > TABLE_MIN_NAME &&
			    (best < 0 || w[c] > w[best]))
				best = c;
		w[best]--;
		total--;
	}
}

void fputs_cut(const char *s, size_t cols, FILE *f)
{
	if (width(s) <= cols) {
		fputs(s, f);
		return;
	}
	if (!cols)
		return;
	/* the head and the tail, which tells "max_ptes_none" from "max_ptes_swap" */
	size_t head = (cols - 1) / 2, tail = cols - 1 - head, total = width(s);
	size_t n = 0, i = 0;
	for (; s[i]; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80 && n++ == head)
			break;
	fwrite(s, 1, i, f);
	fputc('~', f);
	for (n = 0, i = 0; s[i]; i++) /* the first byte of character total - tail */
		if (((unsigned char)s[i] & 0xc0) != 0x80 && n++ == total - tail)
			break;
	fputs(s + i, f);
}

/* Whether the cells [A, B) of row R are all empty. */
static bool empty_cells(const struct table *t, size_t r, int a, int b)
{
	for (int c = a; c < b; c++)
		if (t->cells[r * (size_t)t->ncols + (size_t)c].w)
			return false;
	return true;
}

/* The line being printed: written to F whole (one fwrite a line, not one a cell: maps prints
 * 10 000 rows). Should the buffer not grow, what it holds and S go to F as they are. */
static inline void out(struct buf *b, const char *s, size_t n, FILE *f)
{
	if (b->cap - b->len >= n && n) { /* the room is there: most pieces */
		memcpy(b->p + b->len, s, n);
		b->len += n;
	} else if (buf_add(b, s, n)) {
		fwrite(b->p, 1, b->len, f);
		b->len = 0;
		fwrite(s, 1, n, f);
	}
}

static void out_blanks(struct buf *b, size_t n, FILE *f)
{
	static const char sp[] = "                                ";
	while (n) {
		size_t k = n < sizeof(sp) - 1 ? n : sizeof(sp) - 1;
		out(b, sp, k, f);
		n -= k;
	}
}

static void out_flush(struct buf *b, FILE *f)
{
	if (b->len)
		fwrite(b->p, 1, b->len, f);
	b->len = 0;
}

/* Cell (R, C) padded to width W, then two blanks unless LAST on its line, into B. */
static void print_cell(const struct table *t, size_t r, int c, size_t w, bool last, struct buf *b,
		       FILE *f)
{
	const struct tcell *cell = &t->cells[r * (size_t)t->ncols + (size_t)c];
	const char *s = cell->none ? "?" : t->text.p + cell->off;
	size_t sw = cell->w, pad = sw < w ? w - sw : 0;
	if (sw > w) { /* an 'L' column narrowed by fit() */
		out_flush(b, f);
		fputs_cut(s, w, f);
	} else if (t->align[c] == 'r') {
		out_blanks(b, pad, f);
		out(b, s, strlen(s), f);
	} else {
		out(b, s, strlen(s), f);
		if (!last)
			out_blanks(b, pad, f);
	}
	if (!last)
		out(b, "  ", 2, f);
}

/* W[c] raised to the widest cell of column c in rows R0.. of T. */
static void widths_add(const struct table *t, size_t r0, size_t *w)
{
	size_t end = t->ncells / (size_t)t->ncols * (size_t)t->ncols;
	for (size_t i = r0 * (size_t)t->ncols; i < end; i++) {
		size_t cw = t->cells[i].w;
		int c = (int)(i % (size_t)t->ncols);
		if (cw > w[c])
			w[c] = cw;
	}
}

struct layout {
	size_t w[16];
	int first[17], ng;
	int indent;
	bool color;
	struct buf line;
};

/* Rows R0.. of T (whole rows only) printed under layout L to F. */
static void print_rows(const struct table *t, size_t r0, struct layout *l, FILE *f)
{
	size_t rows = t->ncells / (size_t)t->ncols;
	for (size_t r = r0; r < rows; r++) {
		bool hdr = t->has_header && r == 0;
		for (int g = 0; g < l->ng; g++) {
			if (g && !hdr && empty_cells(t, r, l->first[g], l->first[g + 1]))
				continue; /* a totals row's blank columns: no line of blanks */
			int in = l->indent + (g ? TABLE_STACK_INDENT : 0),
			    end = l->first[g + 1] - 1;
			/* a line ends at its last cell with text: no trailing blanks (a totals row) */
			while (end > l->first[g] && !t->cells[r * (size_t)t->ncols + (size_t)end].w)
				end--;
			out_blanks(&l->line, (size_t)in, f);
			if (hdr)
				out(&l->line, col_bold(l->color), strlen(col_bold(l->color)), f);
			for (int c = l->first[g]; c <= end; c++)
				print_cell(t, r, c, l->w[c], c == end, &l->line, f);
			if (hdr)
				out(&l->line, col_reset(l->color), strlen(col_reset(l->color)), f);
			out(&l->line, "\n", 1, f);
			out_flush(&l->line, f);
		}
	}
}

/* The layout of T's columns of widths L->w: names narrowed to fit, lines stacked. */
static void layout_set(const struct table *t, struct layout *l)
{
	fit(t, l->w, l->indent);
	l->ng = stack_groups(t, l->w, l->indent, l->first);
	l->first[l->ng] = t->ncols;
}

void table_print(const struct table *t, FILE *f, int indent, bool color)
{
	if (!t)
		return;
	struct layout l = {.indent = indent, .color = color};
	widths_add(t, 0, l.w);
	layout_set(t, &l);
	print_rows(t, 0, &l, f);
	buf_free(&l.line);
}

void table_print_rows(struct table *t, FILE *f, int indent, bool color, size_t nrows,
		      table_row_fn row, void *ctx)
{
	if (!t)
		return;
	struct layout l = {.indent = indent, .color = color};
	size_t held = t->ncells / (size_t)t->ncols, ncells = held * (size_t)t->ncols;
	size_t len = t->text.len;
	widths_add(t, 0, l.w);
	for (size_t i = 0; i < nrows; i++) { /* the widths: each row made, measured, let go */
		row(i, t, ctx);
		widths_add(t, held, l.w);
		t->ncells = ncells;
		t->text.len = len;
	}
	layout_set(t, &l);
	print_rows(t, 0, &l, f);
	for (size_t i = 0; i < nrows; i++) { /* then made again and printed */
		row(i, t, ctx);
		print_rows(t, held, &l, f);
		t->ncells = ncells;
		t->text.len = len;
	}
	buf_free(&l.line);
}

void table_free(struct table *t)
{
	if (!t)
		return;
	buf_free(&t->text);
	free(t->cells);
	free(t);
}

void table_flush(struct table *t, FILE *f, int indent, bool color)
{
	table_print(t, f, indent, color);
	table_free(t);
}

/* Whether the valid sequence at S (LEN bytes) is a C0, DEL or C1 control. */
static bool is_ctl(const unsigned char *s, size_t len)
{
	if (len == 1)
		return s[0] < 0x20 || s[0] == 0x7f;
	return len == 2 && s[0] == 0xc2 && s[1] < 0xa0; /* U+0080..U+009F */
}

char *strip_ctl(char *s)
{
	unsigned char *p = (unsigned char *)s;
	size_t n = strlen(s);
	for (size_t i = 0; i < n;) {
		size_t l = utf8_seq(p + i, n - i);
		if (!l || is_ctl(p + i, l)) {
			/* invalid byte or control: one '?' per byte keeps the length */
			for (size_t k = 0; k < (l ? l : 1); k++)
				p[i + k] = '?';
			i += l ? l : 1;
		} else {
			i += l;
		}
	}
	return s;
}

void fputs_safe(const char *s, FILE *f)
{
	esc_fputs(s, f, 0);
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
