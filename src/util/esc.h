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
