// SPDX-License-Identifier: MIT
#include "num.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The digits at *P (at least one), up to END; advances *P. 0, -EINVAL or -ERANGE. */
static int digits(const char **p, const char *end, uint64_t *out)
{
	const char *q = *p;
	if (q >= end || *q < '0' || *q > '9')
		return -EINVAL;
	uint64_t v = 0;
	for (; q < end && *q >= '0' && *q <= '9'; q++) {
		unsigned d = (unsigned)(*q - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*p = q;
	*out = v;
	return 0;
}

int parse_u64(const char **s, const char *end, uint64_t *out)
{
	const char *p = *s;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	int r = digits(&p, end, out);
	if (r == 0)
		*s = p;
	return r;
}

int str_to_u64(const char *s, size_t len, uint64_t lo, uint64_t hi, uint64_t *out)
{
	const char *p = s, *end = s + len;
	uint64_t v;
	int r = digits(&p, end, &v);
	if (r == -ERANGE) {
		/* all digits but too many: out of range, not malformed */
		while (p < end && *p >= '0' && *p <= '9')
			p++;
		return p == end ? -ERANGE : -EINVAL;
	}
	if (r || p != end)
		return -EINVAL;
	if (v < lo || v > hi)
		return -ERANGE;
	*out = v;
	return 0;
}

int str_to_i64(const char *s, size_t len, int64_t lo, int64_t hi, int64_t *out)
{
	bool neg = len && *s == '-';
	uint64_t mag;
	int r = str_to_u64(s + neg, len - neg, 0, neg ? (uint64_t)INT64_MAX + 1 : INT64_MAX, &mag);
	if (r)
		return r;
	int64_t v =
		neg ? (mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag) : (int64_t)mag;
	if (v < lo || v > hi)
		return -ERANGE;
	*out = v;
	return 0;
}

int str_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	return str_to_u64(s, strlen(s), lo, hi, out);
}

int str_i64(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
	return str_to_i64(s, strlen(s), lo, hi, out);
}

int str_long(const char *s, long lo, long hi, long *out)
{
	int64_t v;
	int r = str_i64(s, lo, hi, &v);
	if (r == 0)
		*out = (long)v;
	return r;
}

int str_pid(const char *s, pid_t *out)
{
	int64_t v;
	int r = str_i64(s, 1, PID_MAX_VALUE, &v);
	if (r == 0)
		*out = (pid_t)v;
	return r;
}

int str_double(const char *s, double lo, double hi, double *out)
{
	/* strtod also takes blanks, hex, inf and nan: only [-]digits[.digits][e[+-]digits] here */
	const char *p = s + (*s == '-');
	if (!(*p >= '0' && *p <= '9') && !(*p == '.' && p[1] >= '0' && p[1] <= '9'))
		return -EINVAL;
	if (strpbrk(p, "xXiInN"))
		return -EINVAL;
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE || !(v >= lo && v <= hi))
		return -ERANGE;
	*out = v;
	return 0;
}

int log2_floor(uint64_t v)
{
	return v ? 63 - __builtin_clzll(v) : -1;
}

int log2_exact(uint64_t v)
{
	return v && !(v & (v - 1)) ? log2_floor(v) : -1;
}
