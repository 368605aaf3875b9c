/* SPDX-License-Identifier: MIT */
/* Subcommands: parse options, call collect/model, call render. */
#ifndef THPCTL_CMD_H
#define THPCTL_CMD_H

#include <getopt.h>
#include <stdbool.h>

#include "../kernel/sysroot.h"

#define EXIT_OK 0
#define EXIT_FAIL 1
#define EXIT_USAGE 2

/* Options every command accepts, before or after its name. */
struct globals {
	const char *sysroot_dir; /* NULL = "/" */
	bool json;
	bool no_color;
	int color_opt; /* --color: 0 auto (default), 1 always, 2 never */
	bool wait;     /* --wait: wait for another thpctl changing settings */
	bool wide;     /* --wide (or THPCTL_WIDE=1): human output not wrapped to the width */
	bool raw_out;  /* set by a command whose stdout is a file format (snapshot save -):
			* the stdout filter writes it as it is */
	bool color;    /* decided after parsing: --color, else a tty, no NO_COLOR or TERM=dumb */
	struct sysroot sr;
};

enum {
	OPT_SYSROOT = 0x100,
	OPT_JSON,
	OPT_NO_COLOR,
	OPT_WAIT,
	OPT_COLOR,
	OPT_WIDE,
	OPT_CMD_BASE = 0x200
};

/*
 * getopt_long entries: a long option NAME taking an argument (OPT_ARG) or
 * none (OPT_FLAG), returning ID; OPTS_END ends the table.
 */
// clang-format off
#define OPT_ARG(name, id) {name, required_argument, NULL, id}
#define OPT_FLAG(name, id) {name, no_argument, NULL, id}
#define OPTS_END {NULL, 0, NULL, 0}
// clang-format on

#define GLOBAL_LONGOPTS                                                                            \
	{"sysroot", required_argument, NULL, OPT_SYSROOT},                                         \
		{"root", required_argument, NULL, OPT_SYSROOT},                                    \
		{"json", no_argument, NULL, OPT_JSON},                                             \
		{"no-color", no_argument, NULL, OPT_NO_COLOR},                                     \
		{"color", required_argument, NULL, OPT_COLOR},                                     \
		{"wait", no_argument, NULL, OPT_WAIT}, {"wide", no_argument, NULL, OPT_WIDE},      \
	{                                                                                          \
		"help", no_argument, NULL, 'h'                                                     \
	}

#define GLOBAL_HELP                                                                                \
	"  --sysroot DIR   read /proc and /sys under DIR, or in a bundle of thpctl\n"              \
	"                  capture (FILE.tar.gz, extracted with limits into a private\n"           \
	"                  temporary directory that is removed at exit)\n"                         \
	"  --json          machine-readable output; on a failure (exit 1 or 2) nothing\n"          \
	"                  on stdout, the message on stderr (exceptions: docs/json.md)\n"          \
	"  --color WHEN    auto (default: on a tty, unless NO_COLOR is set or TERM=dumb),\n"       \
	"                  always or never\n"                                                      \
	"  --no-color      --color=never\n"                                                        \
	"  --wait          when another thpctl is changing settings, wait for it to\n"             \
	"                  finish (default: exit 1 at once, naming it)\n"                          \
	"  --wide          do not wrap human output to COLUMNS (default: 80 on a pipe)\n"

/*
 * Handle a global option seen by a command's getopt loop. Returns true if it
 * was one. A bad --color value exits with EXIT_USAGE after a message.
 */
bool global_opt(struct globals *g, int opt, const char *arg);

int cmd_status(struct globals *g, int argc, char **argv);
int cmd_ps(struct globals *g, int argc, char **argv);
int cmd_maps(struct globals *g, int argc, char **argv);
int cmd_lab(struct globals *g, int argc, char **argv);
int cmd_watch(struct globals *g, int argc, char **argv);
/* `thpctl report FILE.jsonl -o PAGE.html` (cmd/report.c). */
int cmd_report(struct globals *g, int argc, char **argv);
int cmd_exporter(struct globals *g, int argc, char **argv);
int cmd_trace(struct globals *g, int argc, char **argv);
int cmd_why(struct globals *g, int argc, char **argv);
int cmd_advise(struct globals *g, int argc, char **argv);
int cmd_hugetlb(struct globals *g, int argc, char **argv);
int cmd_run(struct globals *g, int argc, char **argv);
int cmd_ab(struct globals *g, int argc, char **argv);
int cmd_collapse(struct globals *g, int argc, char **argv);
int cmd_set(struct globals *g, int argc, char **argv);
int cmd_snapshot(struct globals *g, int argc, char **argv);
int cmd_persist(struct globals *g, int argc, char **argv);
int cmd_cgroups(struct globals *g, int argc, char **argv);
int cmd_capture(struct globals *g, int argc, char **argv);

#endif
