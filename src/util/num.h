/* SPDX-License-Identifier: MIT */
/*
 * Strict number parsing, one way for command-line options and kernel text
 * alike: a value is a whole token in range, or it is not a value. Decimal
 * only; no leading blanks, no '+', no trailing characters.
 * Errors: -EINVAL (empty, not a number, anything before or after it),
 * -ERANGE (outside [LO, HI], or beyond the type). *OUT is written only on
 * success.
 */
#ifndef THPCTL_UTIL_NUM_H
#define THPCTL_UTIL_NUM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * The one parser: [S, S+LEN) is a decimal u64 in [LO, HI]. Returns 0,
 * -EINVAL or -ERANGE.
 */
int str_to_u64(const char *s, size_t len, uint64_t lo, uint64_t hi, uint64_t *out);

/* [S, S+LEN) is an optionally '-'-signed decimal in [LO, HI]. 0, -EINVAL or -ERANGE. */
int str_to_i64(const char *s, size_t len, int64_t lo, int64_t hi, int64_t *out);

/* NUL-terminated S as a whole u64 / i64 / long in [LO, HI]. 0, -EINVAL or -ERANGE. */
int str_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out);
int str_i64(const char *s, int64_t lo, int64_t hi, int64_t *out);
int str_long(const char *s, long lo, long hi, long *out);

/* The largest process id Linux hands out (FUTEX_TID_MASK; pid_max is lower). */
#define PID_MAX_VALUE 0x3fffffff

/* S is a process id, 1 .. PID_MAX_VALUE. 0, -EINVAL or -ERANGE. */
int str_pid(const char *s, pid_t *out);

/*
 * S is a whole decimal floating-point number (strtod syntax, no leading
 * blanks, no hex, no inf/nan) in [LO, HI]. 0, -EINVAL or -ERANGE.
 */
int str_double(const char *s, double lo, double hi, double *out);

/*
 * Scanner for a number inside text (a field of a kernel line): the decimal
 * u64 at *S, after blanks (' ', '\t'), stopping at END or at the first
 * non-digit, which is left for the caller. Advances *S past the digits.
 * Returns 0, -EINVAL (no digit) or -ERANGE (above UINT64_MAX).
 */
int parse_u64(const char **s, const char *end, uint64_t *out);

/* floor(log2(V)): 0 for 1, 9 for 512 and 1023; -1 for 0. */
int log2_floor(uint64_t v);

/* log2(V) when V is a power of two (0 for 1), else -1. */
int log2_exact(uint64_t v);

#endif
