// SPDX-License-Identifier: MIT
/* The command line as typed and the context of a report page (common.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../kernel/sysctl.h"
#include "../render/report.h"
#include "../util/version.h"
#include "common.h"

static char line[4096];

/* W as one shell word into OUT at *OFF: as is when it is plain, else in single quotes. */
static void add_word(const char *w, size_t *off)
{
	bool plain = *w != '\0';
	for (const char *p = w; *p && plain; p++)
		plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			       "_./:=@%+,-",
			       *p) != NULL;
	size_t n = sizeof(line);
	if (*off && *off < n)
		*off += (size_t)snprintf(line + *off, n - *off, " ");
	if (plain) {
		if (*off < n)
			*off += (size_t)snprintf(line + *off, n - *off, "%s", w);
		return;
	}
	if (*off < n)
		*off += (size_t)snprintf(line + *off, n - *off, "'");
	for (const char *p = w; *p && *off < n; p++) {
		if (*p == '\'')
			*off += (size_t)snprintf(line + *off, n - *off, "'\\''");
		else
			*off += (size_t)snprintf(line + *off, n - *off, "%c", *p);
	}
	if (*off < n)
		*off += (size_t)snprintf(line + *off, n - *off, "'");
}

void cmd_line_set(int argc, char *const *argv)
{
	size_t off = 0;
	line[0] = '\0';
	for (int i = 0; i < argc && off < sizeof(line); i++)
		add_word(argv[i], &off);
	if (off >= sizeof(line))
		memcpy(line + sizeof(line) - 4, "...", 4); /* cut: say so */
}

const char *cmd_line(void)
{
	return line;
}

double cmd_wall_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void cmd_report_ctx(struct globals *g, double t0, double t1, struct report_ctx *ctx,
		    struct report_ctx_store *st)
{
	memset(st, 0, sizeof(*st));
	if (sysctl_read_line(&g->sr, "kernel", "hostname", st->host, sizeof(st->host)))
		st->host[0] = '\0';
	if (sysctl_read_line(&g->sr, "kernel", "osrelease", st->kernel, sizeof(st->kernel)))
		st->kernel[0] = '\0';
	*ctx = (struct report_ctx){.host = st->host,
				   .kernel = st->kernel,
				   .version = thpctl_version(),
				   .command = cmd_line(),
				   .t0 = t0,
				   .t1 = t1,
				   .tz = st->tz};
	time_t s = (time_t)t0;
	struct tm tm;
	if (localtime_r(&s, &tm)) {
		ctx->tz_known = true;
		ctx->utc_off_s = tm.tm_gmtoff;
		snprintf(st->tz, sizeof(st->tz), "%s", tm.tm_zone ? tm.tm_zone : "");
	}
}
