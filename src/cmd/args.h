/* SPDX-License-Identifier: MIT */
/*
 * Command-line values, one way for every command: process ids (pid_t, through
 * util's str_pid), sizes (util/units.h parse_size), ranged integers
 * (util/num.h). The checked forms print the caller's message on stderr and
 * return EXIT_USAGE, so an option case is one line; the plain forms return
 * 0 or -errno and print nothing.
 */
#ifndef THPCTL_CMD_ARGS_H
#define THPCTL_CMD_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "cmd.h"

/*
 * The one operand of CMD, a PID: argv[optind] must be the last argument.
 * Returns 0 with *PID set, or EXIT_USAGE after "CMD: expected one PID" (and
 * HELP(stderr) when HELP is not NULL) or "CMD: bad PID 'ARG'".
 */
int args_one_pid(const char *cmd, int argc, char **argv, void (*help)(FILE *f), pid_t *pid);

/*
 * A comma-separated list of PIDs ("1,2,3") appended to *V (N used, CAP
 * allocated; free *V). Returns 0, -EINVAL (a bad or empty element) or -ENOMEM.
 */
int args_pid_list(const char *arg, pid_t **v, size_t *n, size_t *cap);

/*
 * ARG is a whole decimal in [LO, HI] (util/num.h str_long). Returns 0 with *OUT
 * set, or EXIT_USAGE after warnx(FMT, ...).
 */
int args_long(const char *arg, long lo, long hi, long *out, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/*
 * ARG is a size ("64M", util/units.h parse_size) of at least MIN bytes.
 * Returns 0 with *BYTES set, or EXIT_USAGE after warnx(FMT, ...).
 */
int args_size(const char *arg, uint64_t min, uint64_t *bytes, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * --cont SIZE of `ps --folios` and `maps --folios`: a power-of-two number of
 * base pages, from 2 pages to the PMD size (page / 8 pages). Returns the size
 * in kB, or 0 when ARG is not one.
 */
uint64_t args_cont_kb(const char *arg);
/* args_cont_kb for an option loop: -1 with *KB set, or EXIT_USAGE after "CMD: bad --cont size". */
int args_cont(const char *cmd, const char *arg, uint64_t *kb);

/*
 * An option that only stores: a flag set true (ARGS_FLAG: FLAG) or its
 * argument kept (ARGS_ARG: ARG, pointing into argv).
 */
struct args_store {
	int id;
	bool *flag;
	const char **arg;
};
#define ARGS_FLAG(id, p)                                                                           \
	{                                                                                          \
		(id), (p), NULL                                                                    \
	}
#define ARGS_ARG(id, p)                                                                            \
	{                                                                                          \
		(id), NULL, (p)                                                                    \
	}
#define ARGS_N(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Option C (with ARG) among the N entries of S: stored, and -1 returned;
 * -2 when it is none of them.
 */
int args_store(int c, const char *arg, const struct args_store *s, size_t n);

/*
 * The getopt loop the commands share, over ARGV with SHORTOPTS and OPTS
 * (GLOBAL_LONGOPTS among them): a global option goes to G; -h prints HELP on
 * stdout (EXIT_OK); any other option goes to ON_OPT(C, optarg, CTX), which
 * returns -1 to go on, -2 for "not mine" (args_usage on stderr, EXIT_USAGE; so
 * does an unknown option), or an exit code. Returns -1 when every option was
 * taken (optind then is the first operand), else the exit code.
 */
int args_getopt(struct globals *g, int argc, char **argv, const char *shortopts,
		const struct option *opts, void (*help)(FILE *f),
		int (*on_opt)(int c, const char *arg, void *ctx), void *ctx);

/*
 * After a usage error's message: HELP's synopsis (its text up to the first
 * blank line) and "'thpctl CMD --help' for all its options.", on stderr (the
 * whole help, 30 to 60 lines, buried the one line that said what was wrong).
 * CMD: the command's name ("ps", "trace stalls"; a leading "thpctl: " is
 * dropped, as getopt's argv[0] has it). HELP whole when the text cannot be
 * held in memory.
 */
void args_usage(void (*help)(FILE *f), const char *cmd);

/* The hint alone, "'thpctl CMD --help' for all its options." (args_usage's last line). */
void args_usage_hint(const char *cmd);

/* No hint after this run's usage error: the options were right, a file they name is not
 * (the message said what to change there; --help would not help). */
void args_no_hint(void);

/* Whether args_usage or the hint ran in this process (main adds the hint to a usage error
 * otherwise). */
bool args_usage_shown(void);

/*
 * args_getopt for a command whose only option of its own is --dry-run (sets
 * *DRY); -h prints HELP. Returns -1 to go on, else the exit code.
 */
int args_dry_run(struct globals *g, int argc, char **argv, void (*help)(FILE *f), bool *dry);

/*
 * For a command that takes no operand, after C = args_getopt(...): C when it
 * is an exit code; EXIT_USAGE after "CMD: unexpected argument 'X'" when ARGV
 * holds an operand; else -1 (go on).
 */
int args_no_operand(int c, const char *cmd, int argc, char **argv);

#endif
