// SPDX-License-Identifier: MIT
/* `thpctl watch`: THP and compaction rates per interval. */
#include <err.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "../kernel/fdcache.h"
#include "../kernel/features.h"
#include "../model/rates.h"
#include "../kernel/sample.h"
#include "../render/report.h"
#include "../render/watch.h"
#include "../render/table.h"
#include "../util/num.h"
#include "../util/wrap.h"
#include "args.h"
#include "common.h"

static void watch_help(FILE *f)
{
	fprintf(f,
		"usage: thpctl watch [-i SECONDS] [-n|--count N] [--top N] [--record FILE]\n"
		"                    [--json]\n\n"
		"Rates per second of the THP and compaction counters, a row per interval (on a\n"
		"terminal: a refreshed screen): THP fault alloc/fallback, khugepaged\n"
		"collapses, splits, deferred splits, compaction stalls and failures, direct\n"
		"reclaim (allocstall_* summed, pgscan_direct), per-size mTHP fault rates for the\n"
		"sizes that moved, AnonHugePages and free PMD-order blocks. Intervals with\n"
		"compaction stalls are marked '!' (red on a terminal). The rows fit the width\n"
		"(COLUMNS, the terminal's, 80 on a pipe): narrow columns under short titles\n"
		"that the legend names, k/M/G for large values, the mTHP rates on a line\n"
		"under the row; with --wide, or 148 columns or more (150 with -i below 1):\n"
		"one wide row per interval, the mTHP rates at its end. With --json: one JSON\n"
		"object per interval and line (JSON lines).\n\n"
		"The narrow layout's titles and the counters behind them (events/s):\n"
		"  THP fault alloc, fall   thp_fault_alloc, thp_fault_fallback\n"
		"  khugepaged alloc, fail  thp_collapse_alloc, thp_collapse_alloc_failed\n"
		"  split page, pmd, defer  thp_split_page, thp_split_pmd,\n"
		"                          thp_deferred_split_page\n"
		"  compaction stall, fail  compact_stall ('!': stalls in the interval),\n"
		"                          compact_fail\n"
		"  reclaim stall, scan     allocstall_* summed, pgscan_direct (pages/s)\n"
		"  AnonHuge                /proc/meminfo AnonHugePages (a size, not a rate)\n"
		"  freePMD                 free PMD-order blocks (/proc/buddyinfo, all zones\n"
		"                          but DMA)\n"
		"  mTHP                    hugepages-SIZE/stats anon_fault_alloc and\n"
		"                          anon_fault_fallback of the sizes that moved\n\n"
		"options:\n"
		"  -i, --interval SECONDS  seconds between lines (default 1; 0.1 to 86400)\n"
		"  -n, --count N           stop after N lines (default: until interrupted)\n"
		"  --top N                 also the N processes whose AnonHugePages or RSS\n"
		"                          changed most (status + smaps_rollup of every\n"
		"                          process each interval; up to 100)\n"
		"  --record FILE           also write each interval to FILE as a JSON line (the\n"
		"                          --json object plus the THP settings read in it),\n"
		"                          after a header line (host, kernel, thpctl version,\n"
		"                          command, time zone); `thpctl report FILE -o\n"
		"                          PAGE.html` charts it; a FILE that holds data is\n"
		"                          not replaced\n" GLOBAL_HELP
		"\nCtrl-C (SIGINT) or SIGTERM ends it with exit status 0.\n");
}

enum { OPT_TOP = OPT_CMD_BASE, OPT_RECORD };

/* --record FILE, NULL without. */
static const char *record_path;

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* Sleep until DEADLINE (CLOCK_MONOTONIC); false when a signal asked us to stop. */
static bool sleep_until(const struct timespec *deadline)
{
	while (!stop) {
		int r = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, deadline, NULL);
		if (r == 0)
			return true;
		if (r != EINTR)
			return false;
	}
	return false;
}

/* The terminal's rows and columns (24 x 80 when it does not say). */
static void terminal_size(size_t *rows, size_t *cols)
{
	struct winsize ws;
	bool ok = ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0;
	*rows = ok && ws.ws_row > 0 ? ws.ws_row : 24;
	*cols = ok && ws.ws_col > 0 ? ws.ws_col : 80;
}

struct history {
	char **lines;
	size_t n, cap;
};

/* Keep the last CAP lines. */
static void history_add(struct history *h, const char *line)
{
	char *dup = strdup(line);
	if (!dup)
		return;
	if (h->n == h->cap && h->n) {
		free(h->lines[0]);
		memmove(h->lines, h->lines + 1, (h->n - 1) * sizeof(char *));
		h->n--;
	}
	if (h->n < h->cap)
		h->lines[h->n++] = dup;
	else
		free(dup);
}

/* One option into CTX, double[3]: interval (s), count, top. -1, or EXIT_USAGE after a message. */
static int watch_opt(int c, const char *arg, void *ctx)
{
	double *v = ctx;
	switch (c) {
	case 'i':
		if (str_double(arg, 0.1, 86400, &v[0])) {
			warnx("watch: bad interval '%s' (seconds, 0.1 to 86400)", arg);
			return EXIT_USAGE;
		}
		return -1;
	case 'n':
		if (str_double(arg, 1, 1e9, &v[1]) || v[1] != floor(v[1])) {
			warnx("watch: bad count '%s' (a positive integer)", arg);
			return EXIT_USAGE;
		}
		return -1;
	case OPT_RECORD:
		record_path = arg;
		return -1;
	case OPT_TOP:
		if (str_double(arg, 1, WATCH_MAX_TOP, &v[2]) || v[2] != floor(v[2])) {
			warnx("watch: bad --top '%s' (1 to %d)", arg, WATCH_MAX_TOP);
			return EXIT_USAGE;
		}
		return -1;
	default:
		return -2;
	}
}

/* Options into INTERVAL (s), COUNT (0: for ever) and TOP. Returns -1 to go on, else the exit code. */
static int watch_options(struct globals *g, int argc, char **argv, double *interval_out,
			 double *count_out, double *top_out)
{
	static const struct option opts[] = {
		GLOBAL_LONGOPTS,	 OPT_ARG("interval", 'i'),	OPT_ARG("count", 'n'),
		OPT_ARG("top", OPT_TOP), OPT_ARG("record", OPT_RECORD), OPTS_END};
	double v[3] = {1, 0, 0}; /* interval, count, top */
	int c = args_getopt(g, argc, argv, "hi:n:", opts, watch_help, watch_opt, v);
	if ((c = args_no_operand(c, "watch", argc, argv)) >= 0)
		return c;
	double interval = v[0], count = v[1], top = v[2];
	*interval_out = interval;
	*count_out = count;
	*top_out = top;
	return -1;
}

/* J (may be NULL: out of memory) as one compact JSON line into F, then freed. 0, or EXIT_FAIL. */
static int record_line(FILE *f, json_t *j)
{
	char *text =
		j ? json_dump_text(j, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(13))
		  : NULL;
	int bad = !text || fputs(text, f) == EOF || fputc('\n', f) == EOF || fflush(f);
	free(text);
	json_decref(j);
	if (bad)
		warnx("watch: cannot write %s: %s", record_path, strerror(errno ? errno : EIO));
	return bad ? EXIT_FAIL : 0;
}

/*
 * The first line of a recording: what it is about, for `thpctl report`'s page (a line without
 * "time_s"): {"recording": "thpctl watch", "thpctl_version", "hostname", "kernel", "command",
 * "interval_s", "started_s", "utc_offset_s", "timezone"}. 0, or EXIT_FAIL after a message.
 */
static int record_header(struct globals *g, FILE *f, double interval)
{
	struct report_ctx ctx;
	struct report_ctx_store st;
	double now = cmd_wall_s();
	cmd_report_ctx(g, now, now, &ctx, &st);
	json_t *j = json_object();
	json_put(j, "recording", json_str("thpctl watch"));
	json_put(j, "thpctl_version", json_str(ctx.version));
	json_put(j, "hostname", *st.host ? json_str(st.host) : json_null());
	json_put(j, "kernel", *st.kernel ? json_str(st.kernel) : json_null());
	json_put(j, "command", json_str(ctx.command));
	json_put(j, "interval_s", json_real(interval));
	json_put(j, "started_s", json_real(floor(now * 1000) / 1000));
	json_put(j, "utc_offset_s", ctx.tz_known ? json_integer(ctx.utc_off_s) : json_null());
	json_put(j, "timezone", ctx.tz_known ? json_str(st.tz) : json_null());
	return record_line(f, j);
}

/*
 * ROW and the settings of sample CUR as one JSON line into F: a `watch --json` line (its
 * schema first, docs/json/watch.json) plus "settings". 0, or EXIT_FAIL (after a message).
 */
static int record_row(FILE *f, const struct watch_row *row, const struct sample *cur, bool top)
{
	json_t *j = json_with_schema(watch_row_to_json(row, top), "watch", NULL);
	if (j)
		json_put(j, "settings",
			 cur->host.has_settings ? watch_settings_json(&cur->host.thp)
						: json_null());
	return record_line(f, j);
}

/* Print one row: a JSON line, the screen, or a text line (and the top table). 0 or EXIT_FAIL. */
static int emit_row(struct globals *g, const struct watch_hdr *hdr, struct history *hist,
		    bool screen, const struct watch_row *row, double top)
{
	char line[4096]; /* a compact row and its mTHP lines: 32 sizes at 40 columns */
	if (g->json) {
		json_t *j = json_with_schema(watch_row_to_json(row, top > 0), "watch", NULL);
		char *text = j ? json_dump_text(j, JSON_COMPACT | JSON_PRESERVE_ORDER |
							   JSON_REAL_PRECISION(13))
			       : NULL;
		int bad = !text || fputs(text, stdout) == EOF || fputc('\n', stdout) == EOF;
		free(text);
		json_decref(j);
		if (bad)
			return EXIT_FAIL;
	} else if (screen) {
		watch_format_line(line, sizeof(line), hdr, row, g->color);
		history_add(hist, line);
		/* what fits under the header and the top table, each as the terminal folds it
		 * (the legend wraps; a row's mTHP line is a row more, a wide row on a narrow
		 * terminal (COLUMNS wider than it) takes 2 or more) */
		size_t rows, cols;
		terminal_size(&rows, &cols);
		size_t show =
			watch_screen_fit(hdr, hist->lines, hist->n, row, g->color, rows, cols);
		watch_render_screen(stdout, hdr, hist->lines + (hist->n - show), show, row,
				    g->color);
	} else {
		watch_format_line(line, sizeof(line), hdr, row, g->color);
		printf("%s\n", line);
		watch_render_top(stdout, row, g->color);
	}
	return fflush(stdout) || ferror(stdout) ? EXIT_FAIL : 0;
}

/* The screen (history of SCREEN lines) or header before the first interval. 0 or EXIT_FAIL. */
static int start_output(const struct globals *g, const struct watch_hdr *hdr, struct history *hist,
			bool screen, double interval)
{
	if (screen) {
		hist->cap = 512;
		hist->lines = calloc(hist->cap, sizeof(char *));
		if (!hist->lines) {
			warnx("out of memory");
			return EXIT_FAIL;
		}
		watch_render_screen(stdout, hdr, NULL, 0, NULL, g->color);
		printf("(first line after %g s)\n", interval);
	} else if (!g->json) {
		watch_render_header(stdout, hdr, g->color);
	}
	fflush(stdout);
	return 0;
}

/* SIGINT and SIGTERM end the loop (on_signal); no SA_RESTART: they wake the sleep. */
/* Once (*SAID): --top's processes this user cannot read; the table alone shows '-' for them
 * and may hide the one that grew. */
static void note_unreadable(const struct sample *cur, bool *said)
{
	if (!cur->procs_unreadable || *said)
		return;
	*said = true;
	warnx("watch: --top: %zu process(es) whose smaps_rollup this user cannot read: their "
	      "AnonHugePages is '-' and only their RSS is seen (run as root to see all)",
	      cur->procs_unreadable);
}

static void catch_stop_signals(void)
{
	struct sigaction sa = {.sa_handler = on_signal};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int cmd_watch(struct globals *g, int argc, char **argv)
{
	double interval, count, top;
	int ret = watch_options(g, argc, argv, &interval, &count, &top);
	if (ret >= 0)
		return ret;
	/* rates need two readings of counters that move: a recorded tree's are one moment */
	ret = cmd_setup_live(g, "watch: rates need the live host's counters twice; a recorded "
				"tree does not move (its counters: thpctl --sysroot DIR status)");
	if (ret)
		return ret;

	catch_stop_signals();
	struct features feat;
	features_probe(&g->sr, &feat);
	struct fdcache fc;
	cmd_fdcache(g, &fc);
	struct sampler smp;
	sampler_init(&smp, &g->sr, feat.page_size,
		     SAMPLE_SETTINGS | (top > 0 ? SAMPLE_PROCS_ALL : 0));
	if (g->sr.live)
		smp.skip_pid = getpid(); /* our own RSS moves with what we read */
	struct sample *samples = calloc(2, sizeof(*samples));
	struct watch_row *row = calloc(1, sizeof(*row));
	struct sample *old = samples, *cur = samples ? &samples[1] : NULL;
	struct history hist = {0};
	FILE *rec = NULL;
	bool screen = !g->json && isatty(STDOUT_FILENO);
	ret = EXIT_OK;

	if (record_path &&
	    (!(rec = cmd_open_record("watch", record_path)) || record_header(g, rec, interval))) {
		ret = EXIT_FAIL;
		goto out;
	}
	if (!samples || !row || sample_collect(&smp, old)) {
		warnx("out of memory");
		ret = EXIT_FAIL;
		goto out;
	}
	if (!old->host.has_vmstat) {
		warnx("watch: cannot read %s/proc/vmstat", g->sr.path);
		ret = EXIT_FAIL;
		goto out;
	}
	struct watch_hdr hdr = {
		.interval_s = interval,
		.pmd_kb = old->host.thp.hpage_pmd_size.present
				  ? old->host.thp.hpage_pmd_size.v / 1024
				  : 0,
		.top = top > 0,
		/* the legend's and the layout's: compact rows below the wide layout's width */
		.width = g->json ? 0 : wrap_width(g->wide),
	};
	table_set_stack_width((int)hdr.width); /* stdout unfiltered: --top's table stacks itself */
	if ((ret = start_output(g, &hdr, &hist, screen, interval)))
		goto out;

	struct timespec deadline;
	bool said_unreadable = false;
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	for (unsigned long long n = 0; !stop && (count == 0 || n < (unsigned long long)count);
	     n++) {
		double next = (double)deadline.tv_sec + (double)deadline.tv_nsec / 1e9 + interval;
		deadline.tv_sec = (time_t)next;
		deadline.tv_nsec = (long)((next - (double)deadline.tv_sec) * 1e9);
		if (!sleep_until(&deadline))
			break;
		if (sample_collect(&smp, cur)) {
			warnx("out of memory");
			ret = EXIT_FAIL;
			break;
		}
		if (top > 0)
			note_unreadable(cur, &said_unreadable);
		if (watch_derive(old, cur, (size_t)top, row) == 0 &&
		    ((rec && (ret = record_row(rec, row, cur, top > 0))) ||
		     (ret = emit_row(g, &hdr, &hist, screen, row, top))))
			break;
		struct sample *t = old;
		old = cur;
		cur = t;
	}
out:
	if (rec && fclose(rec) && ret == EXIT_OK) {
		warnx("watch: cannot write %s", record_path);
		ret = EXIT_FAIL;
	}
	for (size_t i = 0; i < hist.n; i++)
		free(hist.lines[i]);
	free(hist.lines);
	g->sr.cache = NULL;
	fdcache_free(&fc);
	if (samples) {
		sample_free(&samples[0]);
		sample_free(&samples[1]);
	}
	free(samples);
	free(row);
	sampler_free(&smp);
	return ret;
}
