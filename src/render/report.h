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

/* The page head (title TITLE, escaped) with the style sheet, and an <h1>. */
void report_begin(struct hbuf *h, const char *title);
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
 * over time with a marker where a THP setting changed, AnonHugePages over
 * time. Returns 0, or -EINVAL when no record has a time.
 */
int report_watch(struct hbuf *h, json_t *const *rec, size_t n);

#endif
