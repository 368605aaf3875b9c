/* SPDX-License-Identifier: MIT */
/* What to change for a flagged process (model/remedy.h): the block of advise and why, and JSON. */
#ifndef THPCTL_RENDER_REMEDY_H
#define THPCTL_RENDER_REMEDY_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "../model/remedy.h"

/* The sentences of R, each into OUT (N bytes); each returns OUT. */
const char *remedy_mech_words(const struct remedy *r, char *out, size_t n);
const char *remedy_part_words(const struct remedy *r, char *out, size_t n);
const char *remedy_fix_words(const struct remedy *r, int i, char *out, size_t n);
const char *remedy_fix_saves(const struct remedy *r, int i, char *out, size_t n);
/* The command of fix I, "" when the fix is a change in the program. */
const char *remedy_fix_command(const struct remedy *r, int i, char *out, size_t n);

/*
 * Where a restart command runs (model/remedy.h struct run_cwd), each into OUT (N bytes), each
 * returning OUT: the prefix "cd DIR && " (DIR shell-quoted) when the command must run from a
 * directory that is known, else ""; the note when it must run from one that could not be
 * read ("its argument hp.py is a path relative to its working directory, ..."), else "".
 */
const char *run_cwd_prefix(const struct run_cwd *c, char *out, size_t n);
const char *run_cwd_note(const struct run_cwd *c, char *out, size_t n);

/* Bytes that hold the restart command of any struct run_argv (4 per byte at most, and a cd). */
#define RUN_CMD_MAX (4 * RUN_ARGV_MAX + 2048)

/*
 * "[cd DIR && ]thpctl run --thp=MODE -- ITS ARGV" into OUT (N bytes; RUN_CMD_MAX hold any),
 * each word quoted for a shell (util/esc.h shell_quote_argv): pasted, it runs that exact
 * argv. Returns 0; -ENOENT when R is not RUN_ARGS_INTACT, -ENOSPC when it does not fit
 * (OUT then holds ""): never a command cut short.
 */
int run_command(const struct run_argv *r, const char *mode, char *out, size_t n);

/*
 * Why R gives no restart command, into OUT (N bytes), returning OUT: "its command line
 * could not be read whole (...)", "its command line, N bytes, is longer than the 4096 bytes
 * thpctl keeps", "its arguments are unknown (a process title ...)"; "" when R is
 * RUN_ARGS_INTACT.
 */
const char *run_unread_words(const struct run_argv *r, char *out, size_t n);

/* R's argv as a JSON array of strings (exact: JSON escapes controls; a byte of invalid
 * UTF-8, which JSON cannot hold, reads U+FFFD), null unless RUN_ARGS_INTACT. */
json_t *run_argv_json(const struct run_argv *r);

/* "  PID N (comm)", its mechanism, the part responsible, the fixes ranked. */
void remedy_render_text(FILE *f, const struct remedy *r, bool color);
/* {"pid", "mechanism", "cost_kb", "responsible": {...}, "fixes": [...]} */
json_t *remedy_to_json(const struct remedy *r);

#endif
