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
	size_t width;	   /* columns to fit (util/wrap.h's wrap_width), 0: --wide, one line */
};

/*
 * Whether H lays the rows out compact: a WIDTH narrower than the wide layout's title line
 * (148 columns, 150 with tenths). Then a row is the time and 13 narrow columns (80 columns
 * with tenths, 78 without), values of at most 4 characters (util/units.h fmt_num_narrow,
 * fmt_kb_narrow), under a group line and short titles, and a row's mTHP rates go on
 * continuation lines under it, wrapped to WIDTH. A WIDTH below 78 or 80 keeps those lines
 * whole (the terminal folds them): no value is cut. Else (WIDTH 0 or wide enough) the wide
 * layout: one line per interval, the kernel's words as titles.
 */
bool watch_compact(const struct watch_hdr *h);

/*
 * The legend (its lines starting with '#': a comment to a reader of the rows; wrapped to
 * H->width, each continuation line "#" and 5 spaces) and the column names: one line in the
 * wide layout; in the compact one a line of groups ("THP fault", "khugepaged", "split",
 * "compaction", "reclaim") above short titles, each named in the legend by its counter.
 */
void watch_render_header(FILE *f, const struct watch_hdr *h, bool color);

/*
 * ROW's line into OUT (N bytes, no final newline; cut at N - 1, never overrun). A compaction
 * stall in the interval is marked '!' after its rate (outside the value's field: the
 * columns stay aligned), and red when COLOR. Its time has tenths of a second (HH:MM:SS.d)
 * under a header of H->interval_s < 1 s, else whole seconds. In the compact layout
 * (watch_compact) the sizes of mTHP that moved follow on continuation lines ("\n", indented,
 * within H->width), none when no size moved.
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
