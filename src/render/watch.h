/* SPDX-License-Identifier: MIT */
/* `thpctl watch`: a line (or a refreshed screen) per interval, or JSON lines. */
#ifndef THPCTL_RENDER_WATCH_H
#define THPCTL_RENDER_WATCH_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "../model/rates.h"

/* What the header says. */
struct watch_hdr {
	double interval_s; /* requested interval, seconds */
	uint64_t pmd_kb;   /* PMD size in kB, 0 unknown */
	bool top;	   /* --top: a table of processes follows each line */
	size_t width;	   /* the legend's width (util/wrap.h), 0: one line */
};

/*
 * The legend (its lines starting with '#': a comment to a reader of the rows; wrapped to
 * H->width, each continuation line "#" and 5 spaces) and the column names (a row: one line).
 */
void watch_render_header(FILE *f, const struct watch_hdr *h, bool color);

/*
 * One line for ROW into OUT (N bytes, no newline). A compaction stall in the
 * interval is marked '!' after its rate, and red when COLOR. Its time has tenths of a
 * second (HH:MM:SS.d) under a header of H->interval_s < 1 s, else whole seconds.
 */
void watch_format_line(char *out, size_t n, const struct watch_hdr *h, const struct watch_row *row,
		       bool color);

/* The processes that changed most, as an indented table (nothing if none). */
void watch_render_top(FILE *f, const struct watch_row *row, bool color);

/*
 * A refreshed terminal screen: clear, header, the last NLINES formatted lines
 * (oldest first), then the top table of ROW when H->top.
 */
void watch_render_screen(FILE *f, const struct watch_hdr *h, char *const *lines, size_t nlines,
			 const struct watch_row *row, bool color);

/*
 * How many of the newest of NLINES formatted LINES fit a terminal of ROWS x WIDTH under the
 * screen's header and top table (watch_render_screen's), each line folded at WIDTH by the
 * terminal (escape sequences take no column); at least 1 (pure but for a memory stream).
 */
size_t watch_screen_fit(const struct watch_hdr *h, char *const *lines, size_t nlines,
			const struct watch_row *row, bool color, size_t rows, size_t width);

/* One JSON object for ROW (absent rates are null). NULL on ENOMEM. */
json_t *watch_row_to_json(const struct watch_row *row, bool with_top);

/*
 * The THP settings S as one flat JSON object for `watch --record`: the
 * top-level choices, khugepaged's knobs (not its counters) as
 * "khugepaged/NAME" and each size's "hugepages-NkB/enabled". Files not read
 * are left out. NULL on ENOMEM.
 */
json_t *watch_settings_json(const struct thp_settings *s);

#endif
