// SPDX-License-Identifier: MIT
/* What a report page is about: host, kernel, thpctl, command, when (report.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "report.h"

void report_time(char *out, size_t n, double t, long off)
{
	time_t s = isfinite(t) ? (time_t)floor(t + (double)off) : 0;
	struct tm tm;
	if (!isfinite(t) || !gmtime_r(&s, &tm) || !strftime(out, n, "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(out, n, "unknown");
}

/* A row "<tr><th>KEY</th><td>VALUE (escaped) or unknown</td></tr>", VALUE in <code> if CODE. */
static void row(struct hbuf *h, const char *key, const char *value, bool code)
{
	hb_printf(h, "<tr><th>%s</th><td>", key);
	if (!value || !*value) {
		hb_puts(h, "unknown");
	} else {
		hb_puts(h, code ? "<code>" : "");
		hb_esc(h, value);
		hb_puts(h, code ? "</code>" : "");
	}
	hb_puts(h, "</td></tr>\n");
}

/* "UTC+01:00" for OFF seconds east of UTC. */
static void utc_name(char *out, size_t n, long off)
{
	long a = off < 0 ? -off : off;
	snprintf(out, n, "UTC%c%02ld:%02ld", off < 0 ? '-' : '+', a / 3600, a % 3600 / 60);
}

/* The span T0..T1 OFF s east of UTC: "2026-12-02 03:40:12 to 03:45:13" (the date once when the
 * same), with the zone ZONE; a <time> element carries T0 in ISO 8601 UTC. */
static void span(struct hbuf *h, double t0, double t1, long off, const char *zone)
{
	char a[40], b[40], iso[40];
	report_time(a, sizeof(a), t0, off);
	report_time(b, sizeof(b), t1, off);
	report_time(iso, sizeof(iso), t0, 0);
	if (strlen(iso) == 19)
		iso[10] = 'T';
	hb_puts(h, "<time datetime=\"");
	hb_esc(h, iso);
	hb_puts(h, strlen(iso) == 19 ? "Z\">" : "\">");
	hb_esc(h, a);
	hb_puts(h, "</time>");
	if (isfinite(t1) && t1 != t0) {
		hb_puts(h, " to ");
		/* the same day: the time alone */
		hb_esc(h, strncmp(a, b, 11) ? b : b + 11);
	}
	hb_puts(h, " ");
	hb_esc(h, zone);
}

void report_context(struct hbuf *h, const struct report_ctx *ctx)
{
	hb_puts(h, "<table class=\"context\">\n");
	row(h, "host", ctx->host, false);
	row(h, "kernel", ctx->kernel, false);
	row(h, "thpctl", ctx->version, false);
	row(h, "command", ctx->command, true);
	hb_puts(h, "<tr><th>data (UTC)</th><td>");
	if (isfinite(ctx->t0)) {
		span(h, ctx->t0, ctx->t1, 0, "UTC");
		if (isfinite(ctx->t1) && ctx->t1 > ctx->t0)
			hb_printf(h, " (%.0f s)", ctx->t1 - ctx->t0);
	} else {
		hb_puts(h, "unknown");
	}
	hb_puts(h, "</td></tr>\n<tr><th>data (local)</th><td>");
	if (isfinite(ctx->t0) && ctx->tz_known) {
		char u[16], zone[64];
		utc_name(u, sizeof(u), ctx->utc_off_s);
		if (ctx->tz && *ctx->tz && strcmp(ctx->tz, "UTC") && strcmp(ctx->tz, "GMT"))
			snprintf(zone, sizeof(zone), "%s (%s)", ctx->tz, u);
		else
			snprintf(zone, sizeof(zone), "%s", u);
		span(h, ctx->t0, ctx->t1, ctx->utc_off_s, zone);
		hb_puts(h, ", the data host's time zone");
	} else {
		hb_puts(h, "unknown");
	}
	hb_puts(h, "</td></tr>\n</table>\n");
	if (ctx->note)
		report_para(h, "meta", ctx->note);
}
