// SPDX-License-Identifier: MIT
/* Command-line values shared by the commands' getopt loops (see args.h). */
#include "args.h"

#include <err.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/buf.h"
#include "../util/num.h"
#include "../util/units.h"
#include "../util/wrap.h"
#include "cmd.h"

int args_one_pid(const char *cmd, int argc, char **argv, void (*help)(FILE *f), pid_t *pid)
{
	if (optind != argc - 1) {
		warnx("%s: expected one PID", cmd);
		if (help)
			args_usage(help, cmd);
		return EXIT_USAGE;
	}
	if (str_pid(argv[optind], pid)) {
		warnx("%s: bad PID '%s'", cmd, argv[optind]);
		return EXIT_USAGE;
	}
	return 0;
}

int args_pid_list(const char *arg, pid_t **v, size_t *n, size_t *cap)
{
	char *dup = strdup(arg);
	if (!dup)
		return -ENOMEM;
	int r = 0;
	/* every piece a PID: an empty one (1,,2 or a trailing comma) is an error, not skipped */
	for (char *t = dup, *next; t && !r; t = next) {
		next = strchr(t, ',');
		if (next)
			*next++ = '\0';
		pid_t p;
		if (str_pid(t, &p))
			r = -EINVAL;
		else if (array_reserve(v, cap, *n + 1, sizeof(**v), 8))
			r = -ENOMEM;
		else
			(*v)[(*n)++] = p;
	}
	free(dup);
	return r;
}

/* In a function ending in (..., fmt, ...): warn with FMT and what follows it; EXIT_USAGE. */
#define RETURN_USAGE(fmt)                                                                          \
	do {                                                                                       \
		va_list ap_;                                                                       \
		va_start(ap_, fmt);                                                                \
		vwarnx(fmt, ap_);                                                                  \
		va_end(ap_);                                                                       \
		return EXIT_USAGE;                                                                 \
	} while (0)

int args_long(const char *arg, long lo, long hi, long *out, const char *fmt, ...)
{
	if (str_long(arg, lo, hi, out) == 0)
		return 0;
	RETURN_USAGE(fmt);
}

int args_size(const char *arg, uint64_t min, uint64_t *bytes, const char *fmt, ...)
{
	uint64_t b;
	if (parse_size(arg, &b) == 0 && b >= min) {
		*bytes = b;
		return 0;
	}
	RETURN_USAGE(fmt);
}

uint64_t args_cont_kb(const char *arg)
{
	uint64_t bytes, page = (uint64_t)sysconf(_SC_PAGESIZE);
	if (parse_size(arg, &bytes) || bytes < 2 * page || bytes % page ||
	    ((bytes / page) & (bytes / page - 1)) || bytes / page > page / 8)
		return 0;
	return bytes / 1024;
}

int args_store(int c, const char *arg, const struct args_store *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i].id != c)
			continue;
		if (s[i].flag)
			*s[i].flag = true;
		else
			*s[i].arg = arg;
		return -1;
	}
	return -2;
}

static bool usage_shown; /* args_usage has written its hint in this run */

bool args_usage_shown(void)
{
	return usage_shown;
}

void args_usage(void (*help)(FILE *f), const char *cmd)
{
	usage_shown = true;
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	if (m) {
		help(m);
		if (fclose(m)) {
			free(text);
			text = NULL;
		}
	}
	if (!text) {
		help(stderr);
		return;
	}
	char *cut = strstr(text, "\n\n");
	if (cut)
		cut[1] = '\0';
	fputs(text, stderr);
	free(text);
	args_usage_hint(cmd);
}

void args_no_hint(void)
{
	usage_shown = true;
}

void args_usage_hint(const char *cmd)
{
	usage_shown = true;
	if (strncmp(cmd, "thpctl: ", 8) == 0)
		cmd += 8;
	fprintf(stderr, "'thpctl %s --help' for all its options.\n", cmd);
}

int args_getopt(struct globals *g, int argc, char **argv, const char *shortopts,
		const struct option *opts, void (*help)(FILE *f),
		int (*on_opt)(int c, const char *arg, void *ctx), void *ctx)
{
	int c;
	while ((c = getopt_long(argc, argv, shortopts, opts, NULL)) != -1) {
		if (global_opt(g, c, optarg))
			continue;
		if (c == 'h') {
			wrap_stdout_help(true);
			help(stdout);
			wrap_stdout_help(false);
			return EXIT_OK;
		}
		int r = c == '?' || c == ':' || !on_opt ? -2 : on_opt(c, optarg, ctx);
		if (r == -2) {
			args_usage(help, argv[0]);
			return EXIT_USAGE;
		}
		if (r >= 0)
			return r;
	}
	return -1;
}

static int one_flag(int c, const char *arg, void *ctx)
{
	(void)c;
	(void)arg;
	*(bool *)ctx = true;
	return -1;
}

int args_dry_run(struct globals *g, int argc, char **argv, void (*help)(FILE *f), bool *dry)
{
	static const struct option opts[] = {GLOBAL_LONGOPTS, OPT_FLAG("dry-run", OPT_CMD_BASE),
					     OPTS_END};
	return args_getopt(g, argc, argv, "h", opts, help, one_flag, dry);
}

int args_no_operand(int c, const char *cmd, int argc, char **argv)
{
	if (c >= 0)
		return c;
	if (optind < argc) {
		warnx("%s: unexpected argument '%s'", cmd, argv[optind]);
		return EXIT_USAGE;
	}
	return -1;
}

int args_cont(const char *cmd, const char *arg, uint64_t *kb)
{
	if ((*kb = args_cont_kb(arg)))
		return -1;
	warnx("%s: bad --cont size '%s' (a power of two of base pages, 2 pages to the PMD size, "
	      "e.g. 64K)",
	      cmd, arg);
	return EXIT_USAGE;
}
