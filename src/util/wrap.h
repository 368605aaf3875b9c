/* SPDX-License-Identifier: MIT */
/*
 * Human output that fits the terminal: a stdout filter that wraps each line
 * wider than W columns at spaces, with a hanging indent.
 *
 * The rule (one, everywhere): a line no wider than W is kept as it is. A wider
 * line is cut at the spaces between words; each continuation line starts with
 * the line's own leading spaces plus 4 more (at most W / 2 in all), and the
 * spaces at a cut are dropped. A number and the unit after it ("512 kB",
 * "12 ms,", "99 %") are one word: never on two lines. A word longer than
 * the room left starts a line of its own; one longer than that line's room
 * (a long path) is broken into pieces that fit, each on a continuation line,
 * after a '/' where one fits (else after the last character that fits):
 * every character is shown, no line overflows W.
 * Width is counted in UTF-8 code points ("µs" is 2), and a CSI escape
 * sequence (ESC [ ... final byte: SGR colour "\033[1;31m") counts 0.
 *
 * A line to paste is the one exception: a shell command (wrap_put_command) is
 * never broken inside a word but between its words, with " \" ending each
 * line but the last (a continuation line less indented when its word would not
 * fit: a long path), and a word wider than W (a long quoted script) stays
 * whole on a line wider than W; a line of a file to copy (a tmpfiles.d
 * line: wrap_put_verbatim) is never broken (hugetlb plan prints one wider than
 * W as the shell command that adds it to its file, through wrap_put_command).
 */
#ifndef THPCTL_UTIL_WRAP_H
#define THPCTL_UTIL_WRAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "buf.h"

/* The display width of S[0..N): UTF-8 code points, CSI escape sequences excluded. */
size_t wrap_display_width(const char *s, size_t n);

/*
 * Append LINE (LEN bytes, no newline) to OUT, wrapped to WIDTH columns by the
 * rule above (continuation lines separated by "\n"; no final newline). OUT's
 * content is NUL-terminated. Returns 0, or -ENOMEM (OUT keeps what it had).
 */
int wrap_line(struct buf *out, const char *line, size_t len, size_t width);

/*
 * wrap_line for a help text's two-column lines: a line indented, whose first
 * column ends at a run of two blanks or more (option or name, then its words),
 * continues under its second column when that starts within WIDTH / 2; any
 * other line (a paragraph, a description on a line of its own) under its own
 * indent. Returns 0, or -ENOMEM (OUT keeps what it had).
 */
int wrap_help_line(struct buf *out, const char *line, size_t len, size_t width);

/*
 * Append INDENT spaces and the shell command CMD[0..LEN) (one line, its words quoted:
 * util/esc.h shell_quote_argv) to OUT: as it is when WIDTH is 0 or it fits; else broken
 * between its words (never inside quotes, nor in a comment from an unquoted '#') with
 * " \" at the end of each line but the last, each further line INDENT + 4 spaces in (at most
 * WIDTH / 2; less for a word that fits the width only so: a long path), so that
 * pasted into a shell it is the same command. A word wider than the room left stays whole. No final newline; OUT NUL-terminated. Returns 0, or -ENOMEM (OUT keeps
 * what it had).
 */
int wrap_command(struct buf *out, const char *cmd, size_t len, size_t indent, size_t width);

/*
 * Write CMD, a shell command to paste, to F at the start of a line: INDENT spaces, CMD
 * escaped for the terminal (util/esc.h; a quoted command has nothing to escape) and broken
 * by wrap_command() to the width of the stdout filter when F is that filter (not raw), then
 * a newline; the filter writes those lines as they are. Elsewhere (a file, --wide) one line.
 */
void wrap_put_command(FILE *f, size_t indent, const char *cmd);

/* Write LINE (a line of a file to copy, a tmpfiles.d line) to F like wrap_put_command, but
 * never broken: one line, escaped for the terminal. */
void wrap_put_verbatim(FILE *f, size_t indent, const char *line);

/*
 * The width for human output: 0 (no wrapping) when WIDE; else COLUMNS when it
 * is a number >= 40; else the terminal's width (TIOCGWINSZ, at least 40) when
 * stdout is a terminal; else 80.
 */
size_t wrap_width(bool wide);

/*
 * The width for messages on stderr (util/esc.h's filter): COLUMNS when it is a
 * number >= 40; else the terminal's width (at least 40; 80 when it does not
 * say) when stderr is a terminal; else 0 (a pipe or a file: not wrapped).
 */
size_t wrap_stderr_width(void);

/*
 * COLUMNS when it is a whole number in [LO, HI]; else the terminal's width
 * (TIOCGWINSZ) when stdout is one; else 0.
 */
size_t wrap_term_columns(uint64_t lo, uint64_t hi);

/*
 * Replace stdout with a filter (fopencookie) that writes each line to the real
 * stdout through wrap_line(WIDTH). When RAW(CTX) is true at the time a write
 * arrives (--json or --wide given after the command), text passes unchanged.
 * Registers wrap_end() with atexit(). Returns 0, or -1 (stdout unchanged).
 */
int wrap_stdout(size_t width, bool (*raw)(void *ctx), void *ctx);

/* While ON, the stdout filter lays out lines as a help text (wrap_help_line); flushes stdout
 * first, so the lines written before take the layout they were written under. */
void wrap_stdout_help(bool on);

/* The width the stdout filter wraps to now: 0 when none is installed (wrap_stdout()) or it
 * passes text unchanged (its RAW is true: --json or --wide given after the command). */
size_t wrap_stdout_width(void);

/*
 * Flush the filter, write a last partial line, and put the real stdout back.
 * Returns 0, or -1 when a write to the real stdout failed (ferror). Does
 * nothing (0) when no filter is installed; safe to call twice.
 */
int wrap_end(void);

#endif
