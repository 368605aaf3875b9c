/* SPDX-License-Identifier: MIT */
/* Internal to render/watch*.c: what the wide and the compact layout of `thpctl watch` share. */
#ifndef THPCTL_RENDER_WATCH_INT_H
#define THPCTL_RENDER_WATCH_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "watch.h"

/* Rows less than a second apart (H->interval_s < 1): times with tenths, "HH:MM:SS.d". */
bool watch_tenths(const struct watch_hdr *h);

/* The time column's width: 10 with tenths, else 8. */
int watch_time_width(const struct watch_hdr *h);

/* ROW's wall-clock time as the time column shows it ("-" when unknown) into OUT (N bytes). */
void watch_fmt_time(char *out, size_t n, const struct watch_hdr *h, const struct watch_row *row);

/*
 * Append the printf of FMT at byte AT of OUT (N bytes, NUL-terminated, cut at N - 1, never
 * overrun). Returns the new end.
 */
size_t watch_put(char *out, size_t n, size_t at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The free-blocks words of the legends: "2048 kB" (H->pmd_kb), "PMD" when unknown, into OUT. */
void watch_pmd_words(char *out, size_t n, const struct watch_hdr *h);

/* OUT (N bytes) started afresh with ROW's time column; returns the end (watch_put's AT). */
size_t watch_line_time(char *out, size_t n, const struct watch_hdr *h, const struct watch_row *row);

/* LEGEND as comment lines ("# " each), wrapped 2 columns narrower than WIDTH (0: one line). */
void watch_legend(FILE *f, const char *legend, size_t width, bool color);

/* The compact layout's header: legend, group line, short titles (watch_render_header's). */
void watch_compact_header(FILE *f, const struct watch_hdr *h, bool color);

/* The compact layout's row, and its mTHP continuation lines (watch_format_line's). */
void watch_compact_line(char *out, size_t n, const struct watch_hdr *h, const struct watch_row *row,
			bool color);

/* Columns of the compact layout's header and rows (without mTHP) under H. */
size_t watch_compact_width(const struct watch_hdr *h);

#endif
