// SPDX-License-Identifier: MIT
/*
 * The number and option parsers (util/num.c, util/units.c parse_size,
 * cmd/args.c args_pid_list). Oracle for str_to_u64/str_to_i64: a value is
 * the whole text as decimal digits (a '-' first for i64) within the type.
 */
#include "fuzz.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>

#include "cmd/args.h"
#include "util/num.h"
#include "util/units.h"

/* The reference: whether S[0..N) is all digits (n >= 1) and its value fits in 64 bits. */
static int ref_u64(const char *s, size_t n, uint64_t *v)
{
	if (n == 0)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
	size_t z = 0;
	while (z + 1 < n && s[z] == '0')
		z++;
	const char *max = "18446744073709551615";
	size_t d = n - z;
	if (d > 20 || (d == 20 && memcmp(s + z, max, 20) > 0))
		return -ERANGE;
	uint64_t x = 0;
	for (size_t i = z; i < n; i++)
		x = x * 10 + (uint64_t)(s[i] - '0');
	*v = x;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	uint64_t u = 0, ref = 0;
	int r = str_to_u64(s, size, 0, UINT64_MAX, &u), rr = ref_u64(s, size, &ref);
	FUZZ_CHECK(r == rr);
	if (r == 0)
		FUZZ_CHECK(u == ref);
	/* a range: in range or -ERANGE, never another value */
	if (r == 0) {
		uint64_t w;
		int q = str_to_u64(s, size, 1, 4096, &w);
		FUZZ_CHECK(q == (u >= 1 && u <= 4096 ? 0 : -ERANGE));
	}
	int64_t i;
	int ri = str_to_i64(s, size, INT64_MIN, INT64_MAX, &i);
	bool neg = size && s[0] == '-';
	int rm = ref_u64(s + neg, size - neg, &ref);
	if (rm == 0 && ref > (neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX))
		rm = -ERANGE;
	FUZZ_CHECK(ri == rm);
	if (ri == 0)
		FUZZ_CHECK(neg ? (uint64_t)(-(i + 1)) + 1 == ref : (uint64_t)i == ref);

	const char *p = s;
	if (parse_u64(&p, s + size, &u) == 0)
		FUZZ_CHECK(p > s && p <= s + size);

	char *c = fuzz_cstr(data, size);
	double d;
	if (str_double(c, -1e300, 1e300, &d) == 0)
		FUZZ_CHECK(isfinite(d));
	pid_t pid;
	if (str_pid(c, &pid) == 0)
		FUZZ_CHECK(pid >= 1 && pid <= PID_MAX_VALUE);
	uint64_t bytes;
	(void)parse_size(c, &bytes);
	long l;
	(void)str_long(c, -5, 5, &l);
	pid_t *v = NULL;
	size_t nv = 0, cap = 0;
	if (args_pid_list(c, &v, &nv, &cap) == 0)
		for (size_t k = 0; k < nv; k++)
			FUZZ_CHECK(v[k] >= 1);
	free(v);
	(void)args_cont_kb(c);
	free(c);
	return 0;
}
