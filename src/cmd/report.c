// SPDX-License-Identifier: MIT
/* `thpctl report FILE.jsonl -o PAGE.html`: a `watch --record` recording as an HTML report. */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../render/json.h"
#include "../render/report.h"
#include "../util/fileio.h"
#include "args.h"
#include "common.h"

#define RECORD_MAX (256u << 20) /* bytes of a recording read */

static void report_help(FILE *f)
{
	fprintf(f, "usage: thpctl report RECORDING.jsonl -o PAGE.html\n\n"
		   "Chart a `thpctl watch --record` recording as one self-contained HTML page:\n"
		   "THP fault alloc/fallback, compact_stall, split_pmd and khugepaged collapse\n"
		   "rates over time, and AnonHugePages, with a marker where a THP setting changed\n"
		   "(\"defrag: madvise -> defer\"); under each chart a table of its numbers.\n"
		   "The page loads nothing from elsewhere and runs no script.\n\n"
		   "options:\n"
		   "  -o, --output FILE  the page to write (replaced whole; never a symlink,\n"
		   "                     FIFO or device)\n" GLOBAL_HELP);
}

static int report_opt(int c, const char *arg, void *ctx)
{
	if (c != 'o')
		return -2;
	*(const char **)ctx = arg;
	return -1;
}

/* The JSON objects of the lines of TEXT into *REC (*N). Returns 0, -ENOMEM, or the bad line (> 0). */
static long parse_lines(char *text, json_t ***rec, size_t *n)
{
	size_t cap = 0;
	long line = 0;
	for (char *save = NULL, *l = strtok_r(text, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save)) {
		line++;
		if (!*l)
			continue;
		json_error_t e;
		json_t *j = json_loads(l, JSON_REJECT_DUPLICATES, &e);
		if (!json_is_object(j)) {
			json_decref(j);
			return line;
		}
		if (array_reserve(rec, &cap, *n + 1, sizeof(**rec), 64)) {
			json_decref(j);
			return -ENOMEM;
		}
		(*rec)[(*n)++] = j;
	}
	return 0;
}

int cmd_report(struct globals *g, int argc, char **argv)
{
	static const struct option opts[] = {GLOBAL_LONGOPTS, OPT_ARG("output", 'o'), OPTS_END};
	const char *out = NULL;
	int c = args_getopt(g, argc, argv, "ho:", opts, report_help, report_opt, &out);
	if (c >= 0)
		return c;
	if (optind != argc - 1 || !out) {
		warnx("report: name one recording and the page: report FILE.jsonl -o PAGE.html");
		return EXIT_USAGE;
	}
	const char *in = argv[optind];
	struct buf b = {0};
	int r = read_file_at(AT_FDCWD, in, &b, RECORD_MAX);
	if (r) {
		warnx("report: cannot read %s: %s", in, read_err_str(r));
		buf_free(&b);
		return EXIT_FAIL;
	}
	json_t **rec = NULL;
	size_t n = 0;
	long bad = parse_lines(b.p ? b.p : (char *)"", &rec, &n);
	int ret = EXIT_OK;
	struct hbuf page = {0};
	if (bad) {
		if (bad < 0)
			warnx("report: out of memory");
		else
			warnx("report: %s line %ld is not a JSON object", in, bad);
		ret = EXIT_FAIL;
		goto out;
	}
	report_begin(&page, "thpctl watch recording");
	report_para(&page, "meta", in);
	if (report_watch(&page, rec, n)) {
		warnx("report: %s holds no watch interval (made by thpctl watch --record?)", in);
		ret = EXIT_FAIL;
		goto out;
	}
	report_end(&page);
	ret = cmd_write_report("report", out, &page);
	if (!ret && g->json) {
		/* what was written: the page, the recording and its intervals */
		json_t *o = json_object();
		json_put(o, "recording", json_str(in));
		json_put(o, "page", json_str(out));
		json_put(o, "intervals", json_integer((json_int_t)n));
		json_put(o, "page_bytes", json_integer((json_int_t)page.b.len));
		ret = cmd_emit_json(o) ? EXIT_FAIL : EXIT_OK;
	}
out:
	for (size_t i = 0; i < n; i++)
		json_decref(rec[i]);
	free(rec);
	buf_free(&b);
	buf_free(&page.b);
	return ret;
}
