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

/* The decimal digits of V into OUT (N bytes, N > 0; cut like str_copy). Returns true when they fit. */
bool u64_str(char *out, size_t n, uint64_t v);

#endif
