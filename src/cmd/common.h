/* SPDX-License-Identifier: MIT */
#ifndef THPCTL_CMD_COMMON_H
#define THPCTL_CMD_COMMON_H

#include "../render/json.h"
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

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
 * cmd_setup for a command that acts on the live host: with --sysroot, WHY on
 * stderr and EXIT_USAGE. Returns EXIT_OK, EXIT_FAIL or EXIT_USAGE.
 */
int cmd_setup_live(struct globals *g, const char *why);

struct host_snapshot;
/*
 * The host's snapshot (kernel/host_snapshot.h: host_snapshot_read of every
 * part) through G's sysroot, allocated; the caller frees it with
 * host_snapshot_free() and free(). NULL after "out of memory" on stderr.
 */
struct host_snapshot *cmd_host_snapshot(struct globals *g);
/*
 * --sysroot FILE (a regular file): extract the bundle of `thpctl capture`
 * safely into a private temporary directory (removed at exit) and open it as
 * g->sr, g->sr.path naming FILE (cmd/bundle.c). Returns EXIT_OK or EXIT_FAIL
 * after a message (a corrupt archive, a limit passed).
 */
int bundle_open(struct globals *g);
/* The command whose documents cmd_emit_json() names ("thpctl.NAME/1"); main sets it. */
void cmd_json_name(const char *name);
/* The name set by cmd_json_name() ("thpctl" before). */
const char *cmd_json_cmd(void);
/*
 * Print ROOT (an object) to stdout with "schema": "thpctl.CMD/1" as its first key (CMD from
 * cmd_json_name()) and free it. EXIT_OK, or EXIT_FAIL on ENOMEM (ROOT NULL) or write error.
 */
int cmd_emit_json(json_t *root);
/* cmd_emit_json() for a command's second shape: "thpctl.CMD.VARIANT/1" (docs/json/). */
int cmd_emit_json_as(json_t *root, const char *variant);
/* cmd_emit_json() of ROOT whose empty top-level array KEY gets N items made by ITEM one at a
 * time (render/json.h json_dump_streamed): the same bytes, without the items' tree. */
int cmd_emit_json_streamed(json_t *root, const char *key, size_t n, json_item_fn item, void *ctx);

/*
 * Option loop of a command that takes only the global options. Returns -1
 * to go on (optind at the first operand), else the exit code: EXIT_OK after
 * --help, EXIT_USAGE on an unknown option. HELP prints the command's usage.
 */
int cmd_global_opts_only(struct globals *g, int argc, char **argv, void (*help)(FILE *f));

struct hbuf;

/*
 * Write the page H (an HTML report) to PATH: refused when PATH exists and
 * is not a regular file (a symlink, FIFO, device, directory); otherwise a
 * temporary file in PATH's directory renamed over it (write_file_atomic).
 * WHAT prefixes the message. Returns EXIT_OK, or EXIT_FAIL after a message.
 */
int cmd_write_report(const char *what, const char *path, const struct hbuf *h);
/*
 * Whether a file thpctl writes may go to PATH: 0 when PATH is absent or a regular file, else
 * -ERR_NOTREG (a symlink, FIFO, device, socket or directory: never renamed over) or lstat's
 * -errno. src/cmd/common.c
 */
int cmd_output_path_ok(const char *path);
/*
 * Whether H holds nothing (no vmstat, no meminfo, no THP tree): then, once, "WHAT: nothing
 * readable under SYSROOT ..." on stderr, and the command exits 1 before any output (a report
 * built on nothing would claim "THP not built in"). src/cmd/common.c
 */
bool cmd_nothing_readable(const struct globals *g, const char *what, const struct host_snapshot *h);

/*
 * Open PATH to write a recording from its start (created 0644, truncated),
 * refusing what cmd_write_report() refuses. Returns a FILE, or NULL after a
 * message prefixed with WHAT.
 */
FILE *cmd_open_record(const char *what, const char *path);

struct fdcache;

/*
 * Keep the files that watch and exporter read every interval open (see
 * kernel/fdcache.h): raise the soft RLIMIT_NOFILE towards the hard one, size
 * C to fit under it, and hang it on g->sr. Free C with fdcache_free().
 */
void cmd_fdcache(struct globals *g, struct fdcache *c);

struct proc_info;
/*
 * Whether PID has a memory map to show (kernel/proc_read.h proc_mm_read: its
 * status, and stat to tell a kernel thread from a zombie), read into PI.
 * Returns EXIT_OK, or EXIT_FAIL after "WHO: no such process PID", "WHO:
 * process PID is a kernel thread: it has no memory map to show" (a zombie;
 * either), or why its status cannot be read.
 */
int cmd_pid_mm(struct globals *g, const char *who, pid_t pid, struct proc_info *pi);
/*
 * cmd_pid_mm() for each of the N PIDS that SHOWN (when not NULL) does not say is shown (a
 * message for each without a memory map: why a PID asked for has no row). Returns how many
 * have none: absent, kernel threads, zombies, unreadable.
 */
size_t cmd_pids_no_mm(struct globals *g, const char *who, const pid_t *pids, size_t n,
		      bool (*shown)(const void *ctx, pid_t pid), const void *ctx);

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

/* cmd/context.c: what a report page is about. */
struct report_ctx;
/* Keep the command line as typed (main, before any getopt permutes ARGV). */
void cmd_line_set(int argc, char *const *argv);
/* "thpctl lab faults --report 'a b.html'": the words, quoted where a shell would need it. */
const char *cmd_line(void);
/* Wall-clock seconds since the epoch (CLOCK_REALTIME): when data was taken. */
double cmd_wall_s(void);
/* Strings behind a report_ctx filled by cmd_report_ctx(). */
struct report_ctx_store {
	char host[256], kernel[128], tz[16];
};
/*
 * CTX for a page of data taken on G's host from T0 to T1 (s since the epoch): the host name and
 * kernel release (proc/sys/kernel through the sysroot), this thpctl's version, cmd_line(), and
 * the local time zone at T0. The strings live in ST.
 */
void cmd_report_ctx(struct globals *g, double t0, double t1, struct report_ctx *ctx,
		    struct report_ctx_store *st);

#endif
