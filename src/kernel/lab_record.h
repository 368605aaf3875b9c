// SPDX-License-Identifier: MIT
/*
 * The records `thpctl lab` keeps under /var/lib/thpctl for later commands
 * (lab-shrinker, lab-tlb): a magic first line, "kernel RELEASE" and
 * "time T" once each, then lines of the record's own. One parser and one
 * bounded reader for all of them; each record parses its own lines.
 */
#ifndef THPCTL_KERNEL_LAB_RECORD_H
#define THPCTL_KERNEL_LAB_RECORD_H

#include <stdbool.h>
#include <stddef.h>

#include "../util/buf.h"
#include "sysroot.h"

/* Where a record's head goes: the release and the time (UTC, ISO 8601). */
struct lab_record_head {
	char *kernel;
	size_t kernel_len;
	char *time;
	size_t time_len;
};

/*
 * One line of the record's own (not the magic, kernel or time): 0, or
 * -EINVAL for damage (an unknown key, a bad value, a key seen twice).
 */
typedef int (*lab_record_line_fn)(const char *s, size_t len, void *ctx);

/*
 * Parse TEXT whose first line is MAGIC; kernel and time each exactly once
 * (visible ASCII words) into HEAD; every other non-empty line to FN. Returns
 * 0, or -EINVAL (pure).
 */
int lab_record_parse(const char *text, size_t len, const char *magic,
		     const struct lab_record_head *head, lab_record_line_fn fn, void *ctx);

/* The L bytes at S, shorter than N, copied into OUT as a string (for sscanf); else false. */
bool lab_record_copy(const char *s, size_t l, char *out, size_t n);

/* A token of visible ASCII (no space), shorter than N: copied into OUT. */
bool lab_record_word(const char *s, size_t l, char *out, size_t n);

/*
 * The record file REL of SR (at most 4 KiB), given to PARSE(text, len, REC)
 * when it was read. Returns PARSE's result, -ENOENT (never recorded here),
 * -EINVAL (too large), -ENOMEM or -errno.
 */
int lab_record_read(const struct sysroot *sr, const char *rel,
		    int (*parse)(const char *text, size_t len, void *rec), void *rec);

/*
 * A record formatted into TEXT (CAP bytes; K: what the last snprintf
 * returned, summed) copied into B. Returns 0, or -ENOMEM when K shows an
 * error or a cut text, or B could not grow.
 */
int lab_record_text(const char *text, int k, size_t cap, struct buf *b);

#endif
