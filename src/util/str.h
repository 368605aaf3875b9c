/* SPDX-License-Identifier: MIT */
/* Bounded string copies and digits, for keys, values and names (no formatting). */
#ifndef THPCTL_UTIL_STR_H
#define THPCTL_UTIL_STR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Copy SRC into OUT (N bytes, N > 0), always NUL-terminated; cut at N-1
 * bytes. Returns true when all of SRC fit.
 */
bool str_copy(char *out, size_t n, const char *src);

/* Append SRC to the string in OUT (N bytes), cut like str_copy. Returns true when all of SRC fit. */
bool str_cat(char *out, size_t n, const char *src);

/*
 * The L bytes at V without the trailing characters of BLANKS (a newline, a
 * blank...) into OUT (N bytes), NUL-terminated. Returns 0, or -E2BIG (OUT
 * unchanged) when they do not fit.
 */
int str_copy_rtrim(char *out, size_t n, const char *v, size_t l, const char *blanks);

/* The decimal digits of V into OUT (N bytes, N > 0; cut like str_copy). Returns true when they fit. */
bool u64_str(char *out, size_t n, uint64_t v);

#endif
