/* SPDX-License-Identifier: MIT */
/*
 * The HTML reports of `lab --report`, `ab --report` and `thpctl report`: one
 * self-contained page (inline CSS and SVG, no script, nothing fetched), a
 * chart per figure (svg.h) and under each a table of the numbers it draws
 * (class "data", data-chart naming the chart's id). Every string from a
 * process, the kernel or a recording is escaped. Pure: the page is built in
 * an hbuf; the command writes it.
 */
#ifndef THPCTL_RENDER_REPORT_H
#define THPCTL_RENDER_REPORT_H

#include <jansson.h>
#include <stddef.h>

#include "../lab/lab.h"
#include "ab.h"
#include "svg.h"

/*
 * What a page is about, for a person who files it with an incident: the host, its kernel, the
 * thpctl that made the data, the command, and when the data was taken. Strings may be NULL or
 * "" (unknown, said so); they come from the host or a recording and are escaped.
 */
struct report_ctx {
	const char *host, *kernel, *version, *command;
	double t0,
		t1; /* the data's first and last wall-clock time, s since the epoch; NAN unknown */
	bool tz_known;	  /* the data host's time zone: */
	long utc_off_s;	  /* seconds east of UTC */
	const char *tz;	  /* its abbreviation ("CET"), may be "" */
	const char *note; /* a sentence about what is unknown and why, or NULL */
};

/*
 * The page head (title TITLE, escaped) with the style sheet, an <h1>, and the table of CTX
 * (class "context": host, kernel, thpctl, command, data in UTC, data in local time).
 */
void report_begin(struct hbuf *h, const char *title, const struct report_ctx *ctx);
/* The context table alone (report_begin writes it). */
void report_context(struct hbuf *h, const struct report_ctx *ctx);
/* T (s since the epoch) as "2026-12-02 03:40:12" OFF s east of UTC; "unknown" when not finite. */
void report_time(char *out, size_t n, double t, long off);
/* A paragraph of escaped TEXT with class CLS ("meta", "verdict"). */
void report_para(struct hbuf *h, const char *cls, const char *text);
/* Close the page. */
void report_end(struct hbuf *h);

/* A number as the text tables print it: "1234", "12.3", "1.23". */
void report_num(char *out, size_t n, double v);

/* A table of the numbers of chart ID: open it with the N column names COLS (escaped). */
void report_table_begin(struct hbuf *h, const char *id, const char *const *cols, int n);
/* One row: the label (escaped), then N cells already formatted (escaped). */
void report_table_row(struct hbuf *h, const char *label, const char *const *cells, int n);
void report_table_end(struct hbuf *h);

/*
 * One lab result as a section: a chart per series chart id (CDF, lines,
 * strip plot), a range chart per unit of its columns (median bars, min..max
 * whiskers), each with its table; then proofs and the verdict. IDX makes the
 * chart ids unique on a page ("lab-3-faults-cdf").
 */
void report_lab(struct hbuf *h, const struct lab_result *r, int idx);

/* `thpctl ab`: wall time per mode (strip plot), the ratio to the base with its interval. */
void report_ab(struct hbuf *h, const struct ab_report *r);

/*
 * A `watch --record` recording: N JSON objects (one per interval) REC. Rates
 * over wall-clock time (in CTX's time zone when known, else UTC) with a marker
 * where a THP setting changed, AnonHugePages over time; a series that is 0
 * throughout is listed, not drawn; the numbers folded under each chart.
 * Returns 0, or -EINVAL when the first record has no time.
 */
int report_watch(struct hbuf *h, json_t *const *rec, size_t n, const struct report_ctx *ctx);

#endif
