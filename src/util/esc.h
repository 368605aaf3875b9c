/* SPDX-License-Identifier: MIT */
/*
 * Terminal-safe text: every string that comes from a recorded tree, a
 * process (comm, cmdline, environ, cgroup and unit names, paths, VMA names)
 * or an archive is escaped before it reaches a terminal, so that it cannot
 * drive it (clear the screen, set the title, hide text, move the cursor).
 * A C0 control byte, DEL, a C1 control (U+0080..U+009F: 0x9b is an 8-bit
 * CSI) and every byte of invalid UTF-8 are written as \xHH, as `ls -b` and
 * `ls -b`'s cousins do; valid UTF-8 text is kept as it is. A backslash is
 * not doubled: the escaped text is for reading, not for parsing back.
 */
#ifndef THPCTL_UTIL_ESC_H
#define THPCTL_UTIL_ESC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Length of the valid UTF-8 sequence at S (at most N bytes), or 0 if invalid or NUL. */
size_t utf8_seq(const unsigned char *s, size_t n);

/* Flags of the escapers: control characters let through as they are. */
enum {
	ESC_KEEP_NL = 1 << 0,  /* '\n' (a message's own line ends) */
	ESC_KEEP_TAB = 1 << 1, /* '\t' */
};

/*
 * Escape [S, S+LEN) into OUT (size N; NUL-terminated when N > 0, cut at a
 * whole escape). Returns the length the whole escaped text needs (as
 * snprintf does). At most 4 x LEN + 1 bytes.
 */
size_t esc_text(char *out, size_t n, const char *s, size_t len, unsigned flags);

/* S escaped into OUT (size N, cut at a whole escape); returns OUT, for a printf argument. */
const char *esc_buf(char *out, size_t n, const char *s);

/* Whether [S, S+LEN) holds anything esc_text() would escape. */
bool esc_needed(const char *s, size_t len, unsigned flags);

/* S escaped, malloc'd (NULL on ENOMEM or when S is NULL). */
char *esc_dup(const char *s, unsigned flags);

/* fputs of S escaped. */
void esc_fputs(const char *s, FILE *f, unsigned flags);

/*
 * Shell quoting, for a command a user pastes (thpctl run -- ITS ARGV, systemctl edit UNIT):
 * each word exact for POSIX sh, bash, zsh and ksh, and as safe on a terminal as esc_text().
 * A word of [A-Za-z0-9@%+=:,./_-] that does not start with '=' (zsh's =cmd) stays bare;
 * an empty one is ''; one with a byte esc_text() escapes (a control: C0, DEL, C1; a byte
 * of invalid UTF-8) is an ANSI-C string $'...' (bash, zsh, ksh93: \n \t \e, \\ and \',
 * any other such byte \xHH); any other is single-quoted, ' written '\''. No raw control
 * byte is ever written, and bash reads the text back into the same bytes.
 */

/*
 * The word ARG[0..LEN) quoted into OUT (N bytes). Returns the length the whole needs (as
 * snprintf does); OUT holds it when that is below N, else "" (when N > 0): never a cut word.
 */
size_t shell_quote(char *out, size_t n, const char *arg, size_t len);

/*
 * The NUL-separated argv TEXT[0..LEN) (its last word's NUL, if any, is its end: "a\0\0" is
 * a and an empty word) quoted word by word, joined with one space, into OUT (N bytes).
 * Returns 0, or -ENOSPC when the whole does not fit (OUT then holds "" when N > 0).
 */
int shell_quote_argv(const char *text, size_t len, char *out, size_t n);

/*
 * Put a filter on stderr: from now on everything written to it (warnx, err,
 * fprintf(stderr)) is escaped, '\n' and '\t' kept, so that no warning or
 * error can carry a raw control byte from a tree, a process or an archive
 * (an archive member named "ESC[2J..."). Returns the stream it replaced, for
 * the few writers that send their own controls (the progress line's
 * "\r ESC[K"), or NULL when the filter could not be set (stderr is then
 * unchanged).
 */
FILE *esc_stderr_filter(void);

/*
 * Wrap the filter's lines to WIDTH columns (util/wrap.h's rule, after escaping;
 * 0: not wrapped), except while WHOLE(CTX) is true (--wide). A line is then held
 * until its '\n' (or the exit): a prompt that must show before input is read
 * goes to esc_raw_stderr().
 */
void esc_stderr_wrap(size_t width, bool (*whole)(void *ctx), void *ctx);

/* The stream under the filter (stderr itself when there is none): for our own controls only. */
FILE *esc_raw_stderr(void);

#endif
