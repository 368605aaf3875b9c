/* SPDX-License-Identifier: MIT */
#ifndef THPCTL_CMD_COMMON_H
#define THPCTL_CMD_COMMON_H

#include "../render/json.h"
#include <stdint.h>
#include <stdio.h>

#include "../util/units.h"
#include "cmd.h"

/*
 * The terminal width for tables, in characters: COLUMNS, else TIOCGWINSZ,
 * when stdout is a terminal; 0 (no limit) when it is not.
 */
int cmd_term_width(void);
/*
 * Decide colour and the table width (cmd_term_width(), none with --json) and
 * open the sysroot. Returns EXIT_OK or EXIT_FAIL (after a message).
 */
int cmd_setup(struct globals *g);
/*
 * --sysroot FILE (a regular file): extract the bundle of `thpctl capture`
 * safely into a private temporary directory (removed at exit) and open it as
 * g->sr, g->sr.path naming FILE (cmd/bundle.c). Returns EXIT_OK or EXIT_FAIL
 * after a message (a corrupt archive, a limit passed).
 */
int bundle_open(struct globals *g);
/* Print ROOT to stdout and free it. EXIT_OK, or EXIT_FAIL on ENOMEM (ROOT NULL) or write error. */
int cmd_emit_json(json_t *root);

/*
 * Option loop of a command that takes only the global options. Returns -1
 * to go on (optind at the first operand), else the exit code: EXIT_OK after
 * --help, EXIT_USAGE on an unknown option. HELP prints the command's usage.
 */
int cmd_global_opts_only(struct globals *g, int argc, char **argv, void (*help)(FILE *f));

struct fdcache;

/*
 * Keep the files that watch and exporter read every interval open (see
 * kernel/fdcache.h): raise the soft RLIMIT_NOFILE towards the hard one, size
 * C to fit under it, and hang it on g->sr. Free C with fdcache_free().
 */
void cmd_fdcache(struct globals *g, struct fdcache *c);

/* Option values (PIDs, sizes, ranged integers): cmd/args.h, over util/num.h and util/units.h. */

/*
 * A progress line on stderr for work that runs longer than a second: shown
 * only on a tty, after the first second, and erased at the end.
 */
struct progress {
	const char *what;
	double start; /* CLOCK_MONOTONIC seconds */
	double last;
	bool shown, tty;
};

void progress_start(struct progress *p, const char *what);
void progress_update(struct progress *p, size_t done, size_t total);
void progress_end(struct progress *p);

#endif
