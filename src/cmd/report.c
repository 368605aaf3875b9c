// SPDX-License-Identifier: MIT
/* `thpctl report FILE.jsonl -o PAGE.html`: a `watch --record` recording as an HTML report. */
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

/*
 * The JSON objects of the lines of TEXT[LEN] into *REC (*N); an empty line is skipped but
 * counted. Returns 0, -ENOMEM, or the number of the first bad line (> 0): not a JSON object,
 * or (*NUL) holding a NUL byte, which no recording has (a damaged file).
 */
static long parse_lines(const char *text, size_t len, json_t ***rec, size_t *n, bool *nul)
{
	size_t cap = 0;
	long line = 0;
	for (const char *p = text, *end = text + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *l = p;
		size_t ll = (size_t)((nl ? nl : end) - p);
		p = nl ? nl + 1 : end;
		line++;
		if ((*nul = memchr(l, '\0', ll) != NULL))
			return line;
		if (!ll)
			continue;
		json_error_t e;
		json_t *j = json_loadb(l, ll, JSON_REJECT_DUPLICATES, &e);
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

/* A string member KEY of HDR, NULL when absent or not a string. */
static const char *hdr_str(json_t *hdr, const char *key)
{
	return json_string_value(json_object_get(hdr, key));
}

/* What the page is about, from the recording's header HDR (NULL: none) and its N records. */
static void recording_ctx(json_t *hdr, json_t *const *rec, size_t n, struct report_ctx *ctx)
{
	json_t *t0 = n ? json_object_get(rec[0], "time_s") : NULL,
	       *t1 = n ? json_object_get(rec[n - 1], "time_s") : NULL,
	       *iv = n ? json_object_get(rec[0], "interval_s") : NULL,
	       *off = json_object_get(hdr, "utc_offset_s");
	/* a time_s is its interval's end: the data begins interval_s before the first */
	double first = json_is_number(iv) && json_number_value(iv) > 0 ? json_number_value(iv) : 0;
	*ctx = (struct report_ctx){
		.host = hdr_str(hdr, "hostname"),
		.kernel = hdr_str(hdr, "kernel"),
		.version = hdr_str(hdr, "thpctl_version"),
		.command = hdr_str(hdr, "command"),
		.t0 = json_is_number(t0) ? json_number_value(t0) - first : NAN,
		.t1 = json_is_number(t1) ? json_number_value(t1) : NAN,
		.tz_known = json_is_integer(off),
		.utc_off_s = json_is_integer(off) ? (long)json_integer_value(off) : 0,
		.tz = hdr_str(hdr, "timezone"),
		.note = hdr ? NULL
			    : "The recording has no header line (made by an older thpctl): the "
			      "host, kernel, thpctl version, command and time zone are unknown.",
	};
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
	struct stat si, so;
	if (stat(in, &si) == 0 && stat(out, &so) == 0 && si.st_dev == so.st_dev &&
	    si.st_ino == so.st_ino) {
		warnx("report: -o %s is the recording itself: the page would replace it; name another",
		      out);
		return EXIT_USAGE;
	}
	struct buf b = {0};
	int r = read_file_at(AT_FDCWD, in, &b, RECORD_MAX);
	if (r) {
		warnx("report: cannot read %s: %s", in, path_err_str(r));
		buf_free(&b);
		return EXIT_FAIL;
	}
	json_t **rec = NULL;
	size_t n = 0;
	bool nul = false;
	long bad = parse_lines(b.p ? b.p : "", b.len, &rec, &n, &nul);
	int ret = EXIT_OK;
	struct hbuf page = {0};
	if (bad) {
		if (bad < 0)
			warnx("report: out of memory");
		else if (nul)
			warnx("report: %s line %ld holds a NUL byte: the recording is damaged", in,
			      bad);
		else
			warnx("report: %s line %ld is not a JSON object", in, bad);
		ret = EXIT_FAIL;
		goto out;
	}
	/* the header line of `watch --record` (a recording by an older thpctl has none) */
	json_t *hdr = n && json_object_get(rec[0], "recording") ? rec[0] : NULL;
	json_t *const *data = hdr ? rec + 1 : rec;
	size_t nd = hdr ? n - 1 : n;
	struct report_ctx ctx;
	recording_ctx(hdr, data, nd, &ctx);
	report_begin(&page, "thpctl watch recording", &ctx);
	char what[PATH_MAX + 40];
	snprintf(what, sizeof(what), "recording: %s", in);
	report_para(&page, "meta", what);
	if (report_watch(&page, data, nd, &ctx)) {
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
		json_put(o, "intervals", json_integer((json_int_t)nd));
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
