/* SPDX-License-Identifier: MIT */
/* Aligned text tables for human output (sizes: util/units.h). */
#ifndef THPCTL_TABLE_H
#define THPCTL_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../util/esc.h"   /* esc_*, utf8_seq: every cell and fputs_safe */
#include "../util/units.h" /* fmt_kb, fmt_bytes */

struct table;

/*
 * A table of NCOLS columns. ALIGN holds one char per column: 'l' or 'r', or
 * 'L' for a left-aligned name that may be cut to fit table_set_width() ('~'
 * in its middle, fputs_cut; numbers and values are never cut), only when the
 * row then fits: a row that would still be too wide keeps its names whole. HEADERS may be
 * NULL (no header row). Returns NULL on ENOMEM.
 */
struct table *table_new(int ncols, const char *const *headers, const char *align);
/* Append a cell to the current row; a row ends after NCOLS cells. */
void table_cell(struct table *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* 'L' columns are not cut below this many characters. */
#define TABLE_MIN_NAME 8
/*
 * The terminal width every table_print() fits its 'L' columns into, in
 * characters; 0 (the default) for no limit (output that is not a terminal).
 */
void table_set_width(int cols);
/* The width set by table_set_width(), 0 for none. */
int table_width(void);
/*
 * The width, in characters, human output is wrapped to (a terminal's, or 80 on
 * a pipe; 0: not wrapped, --wide or --json). A table whose columns do not fit
 * it is printed in stacked lines: each row's first columns on one line, the
 * rest on the next lines indented by TABLE_STACK_INDENT, every line aligned
 * under its own header line (the last column, free text, may still wrap).
 */
void table_set_stack_width(int cols);
#define TABLE_STACK_INDENT 4
/* The last column counts this wide at most when deciding to stack (it may wrap). */
#define TABLE_STACK_LAST 24
/*
 * fputs of S cut to COLS characters when longer: its first (COLS - 1) / 2
 * characters, '~', and as many of its last as fill COLS.
 */
void fputs_cut(const char *s, size_t cols, FILE *f);
/* Print with INDENT leading spaces; columns separated by two spaces. */
void table_print(const struct table *t, FILE *f, int indent, bool color);
/*
 * Appends row I of a table printed by table_print_rows() to T: its NCOLS cells
 * (table_cell), or none to leave it out.
 */
typedef void (*table_row_fn)(size_t i, struct table *t, void *ctx);
/*
 * table_print() of the rows T holds, then of NROWS more that ROW makes on demand, each
 * made twice (once measured, once printed) and one held at a time: a table of 10 000 rows
 * (maps) without 10 000 rows of cells in memory (each new page's first touch costs ~10 us
 * under some hypervisors). T keeps only the rows it held before.
 */
void table_print_rows(struct table *t, FILE *f, int indent, bool color, size_t nrows,
		      table_row_fn row, void *ctx);
void table_free(struct table *t);
/* table_print(), then table_free(). */
void table_flush(struct table *t, FILE *f, int indent, bool color);
/* Number of complete rows. */
size_t table_rows(const struct table *t);

/*
 * Replace control characters (C0, DEL, C1) and invalid UTF-8 bytes in S with
 * '?', in place, keeping its length (for text measured before it is shown).
 * Returns S. What is printed is escaped instead (util/esc.h).
 */
char *strip_ctl(char *s);
/* fputs of S escaped (esc_fputs(), util/esc.h): "\x1b" for ESC, and so on. */
void fputs_safe(const char *s, FILE *f);

/* Colour escapes, or "" when colour is off. */
const char *col_red(bool on);
const char *col_yellow(bool on);
const char *col_bold(bool on);
const char *col_dim(bool on);
const char *col_reset(bool on);

#endif
