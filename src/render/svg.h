/* SPDX-License-Identifier: MIT */
/*
 * Inline SVG charts for the HTML reports (`--report`, `thpctl report`):
 * an append-only text buffer with HTML escaping, linear and log scales with
 * nice ticks, and chart primitives (axes with tick labels and units,
 * polylines, points, bars, whiskers, vertical markers, a legend). Colors
 * are CSS classes (s0..s7) the page defines for light and dark mode; text
 * and axes use currentColor. Pure: no I/O.
 */
#ifndef THPCTL_RENDER_SVG_H
#define THPCTL_RENDER_SVG_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#include "../util/buf.h"

/* Text being built; ERR is the first error (-ENOMEM), after which appends do nothing. */
struct hbuf {
	struct buf b;
	int err;
};

void hb_puts(struct hbuf *h, const char *s);
void hb_printf(struct hbuf *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * S as HTML/SVG text or attribute value: & < > " ' as entities, control
 * characters (but tab and newline) and bytes that are not UTF-8 as U+FFFD.
 * For every string that comes from a process, the kernel or a file.
 */
void hb_esc(struct hbuf *h, const char *s);

/* fmin and fmax (a NaN gives way to the other), without libm: thpctl links none (svg_ready). */
static inline double svg_min(double a, double b)
{
	return isnan(a) ? b : isnan(b) ? a : a < b ? a : b;
}
static inline double svg_max(double a, double b)
{
	return isnan(a) ? b : isnan(b) ? a : a > b ? a : b;
}

/* A map from data [d0, d1] to pixels [r0, r1]; LOG: log10 (d0, d1 > 0). */
struct svg_scale {
	double d0, d1, r0, r1;
	bool log;
};

/*
 * 0 when log scales can be drawn: log10 comes from libm, loaded on first use (thpctl links
 * none); else -ENOENT with why in WHY (LEN bytes, when not NULL), and a log scale maps every
 * value to r0, and its ticks, and linear ticks, are none.
 */
int svg_ready(char *why, size_t len);

/* V in pixels (a log scale maps V <= 0 to r0). */
double svg_map(const struct svg_scale *s, double v);

/*
 * A 1-2-5 x 10^k step giving about WANT ticks over [*LO, *HI], which are
 * widened to multiples of it (an empty range around V becomes V-1..V+1, or
 * 0..2V). Ticks into OUT (at most MAX); returns their count.
 */
int svg_ticks_linear(double *lo, double *hi, int want, double *out, int max);

/*
 * Decades 10^k over [*LO, *HI] (both > 0), widened to whole decades (at
 * least one). Ticks into OUT (at most MAX); returns their count, 0 when LO
 * is not > 0.
 */
int svg_ticks_log(double *lo, double *hi, double *out, int max);

/* A tick label: "0", "0.25", "40", "1.5k", "10k", "2M" (at most 3 significant digits). */
void svg_fmt_tick(char *out, size_t n, double v);

#define SVG_COLORS 8

/* A chart being drawn into H. */
struct svg_chart {
	struct hbuf *h;
	double w, ht;		/* viewBox, px */
	double ml, mr, mt, mb;	/* margins, px */
	struct svg_scale x, y;	/* set by svg_chart_begin from the data ranges */
	const char *const *cat; /* category labels of a category x axis (index i at i+0.5) */
	int ncat;
	bool clock; /* x: wall-clock seconds since the epoch (svg_chart_begin_clock) */
	double clock_off, clock_step; /* its UTC offset and tick step, s */
};

/*
 * Open a <figure> whose caption is TITLE (the chart's visible title) and in it an <svg>
 * with id ID and class "chart CLS" whose <title> is TITLE too, x
 * over [X0, X1] (LOGX) and y over [Y0, Y1] (LOGY), widened to nice ticks.
 * Then draw the grid, the axes, tick labels and the axis titles XLABEL and
 * YLABEL (units in them: "fault latency (µs)"). NCAT > 0: a category x axis
 * with labels CAT, x over [0, NCAT].
 */
void svg_chart_begin(struct svg_chart *c, struct hbuf *h, const char *id, const char *cls,
		     const char *title, double x0, double x1, bool logx, double y0, double y1,
		     bool logy, const char *xlabel, const char *ylabel, const char *const *cat,
		     int ncat);
void svg_chart_end(struct svg_chart *c);

/*
 * A line chart over wall-clock time: x from T0 to T1 (seconds since the epoch), ticks at whole
 * clock steps (1 s .. 1 day) of the time zone UTC_OFF_S seconds east of UTC, labelled
 * "HH:MM:SS", "HH:MM" or "MM-DD"; y over [Y0, Y1] widened to nice ticks. Otherwise as
 * svg_chart_begin (class "chart lines").
 */
void svg_chart_begin_clock(struct svg_chart *c, struct hbuf *h, const char *id, const char *title,
			   double t0, double t1, double utc_off_s, double y0, double y1,
			   const char *xlabel, const char *ylabel);
/*
 * Clock ticks over [T0, T1] (s since the epoch) at multiples of a step of 1, 2, 5, 10, 15, 30 s,
 * 1, 2, 5, 10, 15, 30 min, 1, 2, 3, 6, 12 h or whole days (days doubled until at most 7
 * intervals, and at most MAX ticks) in the zone OFF s east of UTC. Ticks into OUT, the step into *STEP; returns their count.
 */
int svg_ticks_clock(double t0, double t1, double off, double *out, int max, double *step);
/* A clock tick label of T (s since the epoch, OFF s east of UTC) for ticks STEP s apart. */
void svg_fmt_clock(char *out, size_t n, double t, double off, double step);
/* A sentence (escaped) inside the plot, centred at data X (NAN: the plot's middle). */
void svg_note(struct svg_chart *c, double x, const char *text);

/* A polyline through N points (X, Y) in color COLOR, with a dot at each when DOTS. */
void svg_line(struct svg_chart *c, const double *x, const double *y, int n, int color, bool dots);
/* A step line of an empirical CDF: sorted values V (N), y from 1/N to 1. */
void svg_cdf(struct svg_chart *c, const double *v, int n, int color);
/* A dot at (X, Y), radius R px. */
void svg_dot(struct svg_chart *c, double x, double y, double r, int color);
/* A bar from 0 (or the axis' bottom) to Y over x [X0, X1]. */
void svg_bar(struct svg_chart *c, double x0, double x1, double y, int color);
/* A vertical whisker at X from Y0 to Y1 with caps W px wide. */
void svg_whisker(struct svg_chart *c, double x, double y0, double y1, double w);
/* A horizontal dashed reference line at Y labelled LABEL (escaped). */
void svg_hline(struct svg_chart *c, double y, const char *label);
/* A vertical dashed marker at X labelled LABEL (escaped), the K-th on this chart (staggered). */
void svg_vmarker(struct svg_chart *c, double x, const char *label, int k);
/* A legend of N names (escaped), colors 0..N-1, above the plot. */
void svg_legend(struct svg_chart *c, const char *const *names, int n);
/* A legend of N names in the colors COLORS (NULL: 0..N-1). */
void svg_legend_colored(struct svg_chart *c, const char *const *names, const int *colors, int n);

#endif
