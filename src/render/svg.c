// SPDX-License-Identifier: MIT
#include "svg.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../util/dl_libs.h"
#include "../util/esc.h"

static void hb_add(struct hbuf *h, const char *s, size_t n)
{
	if (!h->err && buf_add(&h->b, s, n))
		h->err = -ENOMEM;
}

void hb_puts(struct hbuf *h, const char *s)
{
	hb_add(h, s, strlen(s));
}

void hb_printf(struct hbuf *h, const char *fmt, ...)
{
	if (h->err)
		return;
	va_list ap;
	va_start(ap, fmt);
	if (buf_vaddf(&h->b, fmt, ap))
		h->err = -ENOMEM;
	va_end(ap);
}

void hb_esc(struct hbuf *h, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);
	while (n) {
		size_t k = 1;
		if (*p == '&')
			hb_puts(h, "&amp;");
		else if (*p == '<')
			hb_puts(h, "&lt;");
		else if (*p == '>')
			hb_puts(h, "&gt;");
		else if (*p == '"')
			hb_puts(h, "&quot;");
		else if (*p == '\'')
			hb_puts(h, "&#39;");
		else if ((*p < 0x20 && *p != '\t' && *p != '\n') || *p == 0x7f)
			hb_puts(h, "\xef\xbf\xbd");
		else if (*p < 0x80)
			hb_add(h, (const char *)p, 1);
		else if ((k = utf8_seq(p, n)))
			hb_add(h, (const char *)p, k);
		else {
			k = 1;
			hb_puts(h, "\xef\xbf\xbd");
		}
		p += k;
		n -= k;
	}
}

/* log10(V) through libm loaded on first use (util/dl_libs.h); NaN when it cannot be loaded
 * (svg_ready says why): a NaN tick or position is dropped or drawn at the axis' start. */
static double lg(double v)
{
	return svg_ready(NULL, 0) ? NAN : lm.log10(v);
}

/* 10^E for a whole E (|E| <= 400, a finite double): exact to 1e22, below 1 one division. */
static double exp10i(double e)
{
	int k = (int)fabs(e);
	double p = 1;
	for (int i = 0; i < k && i < 400; i++)
		p *= 10;
	return e < 0 ? 1 / p : p;
}

int svg_ready(char *why, size_t len)
{
	return lm_load(why, len);
}

double svg_map(const struct svg_scale *s, double v)
{
	double a = s->d0, b = s->d1;
	if (s->log) {
		if (v <= 0 || a <= 0 || b <= 0)
			return s->r0;
		a = lg(a);
		b = lg(b);
		v = lg(v);
		if (!isfinite(a) || !isfinite(b) || !isfinite(v))
			return s->r0;
	}
	if (b == a)
		return (s->r0 + s->r1) / 2;
	return s->r0 + (v - a) / (b - a) * (s->r1 - s->r0);
}

int svg_ticks_linear(double *lo, double *hi, int want, double *out, int max)
{
	if (!isfinite(*lo) || !isfinite(*hi)) {
		*lo = 0;
		*hi = 1;
	}
	if (*hi < *lo) {
		double t = *lo;
		*lo = *hi;
		*hi = t;
	}
	if (*hi == *lo) {
		double v = *lo;
		*lo = v > 0 ? 0 : v < 0 ? 2 * v : 0;
		*hi = v > 0 ? 2 * v : v < 0 ? 0 : 1;
	}
	if (want < 2)
		want = 2;
	double raw = (*hi - *lo) / want;
	double mag = floor(lg(raw));
	if (!isfinite(mag))
		return 0;
	mag = exp10i(mag);
	double f = raw / mag;
	double step = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
	*lo = floor(*lo / step + 1e-9) * step;
	*hi = ceil(*hi / step - 1e-9) * step;
	int n = 0;
	for (double v = *lo; v <= *hi + step / 2 && n < max; v += step) {
		double t = round(v / step) * step;
		out[n++] = fabs(t) < step * 1e-9 ? 0 : t;
	}
	return n;
}

int svg_ticks_log(double *lo, double *hi, double *out, int max)
{
	if (!(*lo > 0) || !(*hi > 0))
		return 0;
	if (*hi < *lo) {
		double t = *lo;
		*lo = *hi;
		*hi = t;
	}
	double a = floor(lg(*lo) + 1e-9), b = ceil(lg(*hi) - 1e-9);
	if (!isfinite(a) || !isfinite(b))
		return 0;
	if (b <= a)
		b = a + 1;
	*lo = exp10i(a);
	*hi = exp10i(b);
	int n = 0;
	for (double e = a; e <= b && n < max; e++)
		out[n++] = exp10i(e);
	return n;
}

void svg_fmt_tick(char *out, size_t n, double v)
{
	double a = fabs(v);
	const char *suf = "";
	if (a >= 1e9) {
		v /= 1e9;
		suf = "G";
	} else if (a >= 1e6) {
		v /= 1e6;
		suf = "M";
	} else if (a >= 1e4) {
		v /= 1e3;
		suf = "k";
	}
	char t[32];
	snprintf(t, sizeof(t), "%.3g", v);
	/* %.3g writes 1e+03 for 1000 */
	if (strchr(t, 'e'))
		snprintf(t, sizeof(t), "%.0f", v);
	snprintf(out, n, "%s%s", strcmp(t, "-0") ? t : "0", suf);
}

static const char *const axis_style = "class=\"ax\"";

/* The y axis: grid lines and labels at the ticks. */
static void draw_yaxis(struct svg_chart *c, const double *t, int n)
{
	struct hbuf *h = c->h;
	double x0 = c->ml, x1 = c->w - c->mr;
	for (int i = 0; i < n; i++) {
		double y = svg_map(&c->y, t[i]);
		char l[32];
		svg_fmt_tick(l, sizeof(l), t[i]);
		hb_printf(h,
			  "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>",
			  x0, x1, y, y);
		hb_printf(
			h,
			"<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
			x0 - 6, y + 4, l);
	}
}

/* The x axis: ticks and labels, or category labels. */
static void draw_xaxis(struct svg_chart *c, const double *t, int n)
{
	struct hbuf *h = c->h;
	double yb = c->ht - c->mb;
	for (int i = 0; i < (c->ncat ? c->ncat : n); i++) {
		double v = c->ncat ? i + 0.5 : t[i];
		double x = svg_map(&c->x, v);
		hb_printf(h, "<line %s x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>",
			  axis_style, x, x, yb, yb + 5);
		hb_printf(h, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
			  x, yb + 18);
		if (c->ncat)
			hb_esc(h, c->cat[i]);
		else {
			char l[32];
			if (c->clock)
				svg_fmt_clock(l, sizeof(l), v, c->clock_off, c->clock_step);
			else
				svg_fmt_tick(l, sizeof(l), v);
			hb_puts(h, l);
		}
		hb_puts(h, "</text>\n");
	}
}

/* The frame of chart C (scales set): the figure and its visible title, the grid, the axes with
 * their ticks XT (NX) and YT (NY), the axis titles. */
static void chart_frame(struct svg_chart *c, const char *id, const char *cls, const char *title,
			const double *xt, int nx, const double *yt, int ny, const char *xlabel,
			const char *ylabel)
{
	struct hbuf *h = c->h;
	/* the title shows above the chart (figcaption) and is the SVG's accessible name */
	hb_puts(h, "<figure class=\"fig\"><figcaption>");
	hb_esc(h, title);
	hb_puts(h, "</figcaption>\n<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"");
	hb_esc(h, id);
	hb_printf(h, "\" class=\"chart %s\" viewBox=\"0 0 %.0f %.0f\" role=\"img\"><title>", cls,
		  c->w, c->ht);
	hb_esc(h, title);
	hb_puts(h, "</title>\n");
	draw_yaxis(c, yt, ny);
	draw_xaxis(c, xt, nx);
	double yb = c->ht - c->mb;
	hb_printf(h, "<line %s x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", axis_style,
		  c->ml, c->w - c->mr, yb, yb);
	hb_printf(h, "<line %s x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>\n", axis_style,
		  c->ml, c->ml, c->mt, yb);
	hb_printf(h, "<text class=\"lbl\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
		  (c->ml + c->w - c->mr) / 2, c->ht - 8);
	hb_esc(h, xlabel);
	hb_printf(h,
		  "</text><text class=\"lbl\" transform=\"translate(16 %.1f) rotate(-90)\" "
		  "text-anchor=\"middle\">",
		  (c->mt + yb) / 2);
	hb_esc(h, ylabel);
	hb_puts(h, "</text>\n");
}

static void chart_init(struct svg_chart *c, struct hbuf *h, const char *const *cat, int ncat)
{
	*c = (struct svg_chart){.h = h,
				.w = 720,
				.ht = 320,
				.ml = 70,
				.mr = 20,
				.mt = 40,
				.mb = 50,
				.cat = cat,
				.ncat = ncat};
}

void svg_chart_begin(struct svg_chart *c, struct hbuf *h, const char *id, const char *cls,
		     const char *title, double x0, double x1, bool logx, double y0, double y1,
		     bool logy, const char *xlabel, const char *ylabel, const char *const *cat,
		     int ncat)
{
	chart_init(c, h, cat, ncat);
	double xt[24], yt[24];
	int nx = 0, ny;
	if (ncat) {
		x0 = 0;
		x1 = ncat;
	} else if (!logx || !(nx = svg_ticks_log(&x0, &x1, xt, 24))) {
		logx = false;
		nx = svg_ticks_linear(&x0, &x1, 6, xt, 24);
	}
	if (!logy || !(ny = svg_ticks_log(&y0, &y1, yt, 24))) {
		logy = false;
		ny = svg_ticks_linear(&y0, &y1, 5, yt, 24);
	}
	c->x = (struct svg_scale){x0, x1, c->ml, c->w - c->mr, logx};
	c->y = (struct svg_scale){y0, y1, c->ht - c->mb, c->mt, logy};
	chart_frame(c, id, cls, title, xt, nx, yt, ny, xlabel, ylabel);
}

void svg_chart_begin_clock(struct svg_chart *c, struct hbuf *h, const char *id, const char *title,
			   double t0, double t1, double utc_off_s, double y0, double y1,
			   const char *xlabel, const char *ylabel)
{
	chart_init(c, h, NULL, 0);
	double xt[24], yt[24];
	if (!(t1 > t0))
		t1 = t0 + 1;
	c->clock = true;
	c->clock_off = utc_off_s;
	int nx = svg_ticks_clock(t0, t1, utc_off_s, xt, 24, &c->clock_step);
	int ny = svg_ticks_linear(&y0, &y1, 5, yt, 24);
	c->x = (struct svg_scale){t0, t1, c->ml, c->w - c->mr, false};
	c->y = (struct svg_scale){y0, y1, c->ht - c->mb, c->mt, false};
	chart_frame(c, id, "lines", title, xt, nx, yt, ny, xlabel, ylabel);
}

/* The steps of a clock axis, seconds: each divides the next larger unit. */
static const double clock_steps[] = {1,	  2,   5,    10,   15,	 30,	60,    120,   300,
				     600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400};

int svg_ticks_clock(double t0, double t1, double off, double *out, int max, double *step)
{
	size_t k = 0, n = sizeof(clock_steps) / sizeof(clock_steps[0]);
	while (k + 1 < n && (t1 - t0) / clock_steps[k] > 7)
		k++;
	double s = clock_steps[k];
	while ((t1 - t0) / s > 7 || (t1 - t0) / s > max - 1)
		s *= 2; /* past a week: whole days, doubled until they fit */
	*step = s;
	int m = 0;
	for (double v = ceil((t0 + off) / s - 1e-9) * s - off; v <= t1 + 1e-9 && m < max; v += s)
		out[m++] = v;
	return m;
}

void svg_fmt_clock(char *out, size_t n, double t, double off, double step)
{
	time_t s = (time_t)floor(t + off + 0.5);
	struct tm tm;
	if (!gmtime_r(&s, &tm)) {
		snprintf(out, n, "?");
		return;
	}
	if (step >= 86400)
		strftime(out, n, "%m-%d", &tm);
	else if (step >= 60)
		strftime(out, n, "%H:%M", &tm);
	else
		strftime(out, n, "%H:%M:%S", &tm);
}

void svg_chart_end(struct svg_chart *c)
{
	hb_puts(c->h, "</svg></figure>\n");
}

void svg_note(struct svg_chart *c, double x, const char *text)
{
	double px = isfinite(x) ? svg_map(&c->x, x) : (c->ml + c->w - c->mr) / 2;
	hb_printf(c->h, "<text class=\"note\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", px,
		  (c->mt + c->ht - c->mb) / 2);
	hb_esc(c->h, text);
	hb_puts(c->h, "</text>\n");
}

void svg_line(struct svg_chart *c, const double *x, const double *y, int n, int color, bool dots)
{
	if (n <= 0)
		return;
	hb_printf(c->h, "<polyline class=\"ln s%d\" points=\"", color % SVG_COLORS);
	for (int i = 0; i < n; i++)
		hb_printf(c->h, "%s%.1f,%.1f", i ? " " : "", svg_map(&c->x, x[i]),
			  svg_map(&c->y, y[i]));
	hb_puts(c->h, "\"/>\n");
	for (int i = 0; dots && i < n; i++)
		svg_dot(c, x[i], y[i], 3, color);
}

void svg_cdf(struct svg_chart *c, const double *v, int n, int color)
{
	if (n <= 0)
		return;
	hb_printf(c->h, "<polyline class=\"ln s%d\" points=\"", color % SVG_COLORS);
	double prev = svg_map(&c->y, 0);
	for (int i = 0; i < n; i++) {
		double x = svg_map(&c->x, v[i]), y = svg_map(&c->y, (double)(i + 1) / n);
		hb_printf(c->h, "%s%.1f,%.1f %.1f,%.1f", i ? " " : "", x, prev, x, y);
		prev = y;
	}
	hb_puts(c->h, "\"/>\n");
}

void svg_dot(struct svg_chart *c, double x, double y, double r, int color)
{
	hb_printf(c->h, "<circle class=\"pt s%d\" cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\"/>",
		  color % SVG_COLORS, svg_map(&c->x, x), svg_map(&c->y, y), r);
}

void svg_bar(struct svg_chart *c, double x0, double x1, double y, int color)
{
	double base = c->y.log || c->y.d0 > 0 ? c->y.r0 : svg_map(&c->y, 0);
	double py = svg_map(&c->y, y), a = svg_map(&c->x, x0), b = svg_map(&c->x, x1);
	double top = py < base ? py : base, hgt = fabs(base - py);
	hb_printf(c->h,
		  "<rect class=\"bar s%d\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>",
		  color % SVG_COLORS, a, top, b - a, hgt);
}

void svg_whisker(struct svg_chart *c, double x, double y0, double y1, double w)
{
	double px = svg_map(&c->x, x), a = svg_map(&c->y, y0), b = svg_map(&c->y, y1);
	hb_printf(c->h, "<path %s d=\"M%.1f %.1fV%.1fM%.1f %.1fH%.1fM%.1f %.1fH%.1f\"/>",
		  axis_style, px, a, b, px - w / 2, a, px + w / 2, px - w / 2, b, px + w / 2);
}

void svg_hline(struct svg_chart *c, double y, const char *label)
{
	double py = svg_map(&c->y, y);
	hb_printf(c->h, "<line class=\"mark\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>",
		  c->ml, c->w - c->mr, py, py);
	hb_printf(c->h, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\">", c->ml + 4, py - 4);
	hb_esc(c->h, label);
	hb_puts(c->h, "</text>\n");
}

void svg_vmarker(struct svg_chart *c, double x, const char *label, int k)
{
	double px = svg_map(&c->x, x);
	hb_printf(c->h,
		  "<line class=\"mark\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
		  "<text class=\"mtext\" x=\"%.1f\" y=\"%.1f\">",
		  px, px, c->mt, c->ht - c->mb, px + 3, c->mt + 12 + 13 * (k % 4));
	hb_esc(c->h, label);
	hb_puts(c->h, "</text>\n");
}

void svg_legend_colored(struct svg_chart *c, const char *const *names, const int *colors, int n)
{
	double x = c->ml;
	for (int i = 0; i < n; i++) {
		hb_printf(
			c->h,
			"<rect class=\"bar s%d\" x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\"/>"
			"<text class=\"tick\" x=\"%.1f\" y=\"%.1f\">",
			(colors ? colors[i] : i) % SVG_COLORS, x, 10.0, x + 16, 20.0);
		hb_esc(c->h, names[i]);
		hb_puts(c->h, "</text>");
		x += 30 + 7 * (double)strlen(names[i]);
	}
	hb_puts(c->h, "\n");
}

void svg_legend(struct svg_chart *c, const char *const *names, int n)
{
	svg_legend_colored(c, names, NULL, n);
}
