// SPDX-License-Identifier: MIT
#include "units.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "num.h"

void fmt_kb(char *out, size_t n, uint64_t kb)
{
	if (kb < 10240 && n >= 9) { /* the common case, without a format to parse */
		char d[5];
		int k = 0;
		do
			d[k++] = (char)('0' + kb % 10);
		while ((kb /= 10));
		while (k)
			*out++ = d[--k];
		memcpy(out, " kB", 4);
	} else if (kb < 10240)
		snprintf(out, n, "%llu kB", (unsigned long long)kb);
	else if (kb < 1ull << 20)
		snprintf(out, n, "%.1f MiB", (double)kb / 1024);
	else if (kb < 10ull << 30)
		snprintf(out, n, "%.2f GiB", (double)kb / (1024 * 1024));
	else
		snprintf(out, n, "%.2f TiB", (double)kb / (1024.0 * 1024 * 1024));
}

void fmt_bytes(char *out, size_t n, uint64_t b)
{
	if (b % 1024 == 0 || b >= 10240)
		fmt_kb(out, n, b / 1024);
	else
		snprintf(out, n, "%llu B", (unsigned long long)b);
}

void fmt_size_token(char *out, size_t n, uint64_t kb)
{
	if (kb && kb % (1u << 20) == 0)
		snprintf(out, n, "%lluG", (unsigned long long)(kb >> 20));
	else if (kb && kb % 1024 == 0)
		snprintf(out, n, "%lluM", (unsigned long long)(kb >> 10));
	else
		snprintf(out, n, "%lluK", (unsigned long long)kb);
}

int parse_size(const char *s, uint64_t *out)
{
	size_t nd = 0;
	while (s[nd] >= '0' && s[nd] <= '9')
		nd++;
	uint64_t v;
	int r = str_to_u64(s, nd, 0, UINT64_MAX, &v);
	if (r)
		return r;
	const char *end = s + nd;
	unsigned shift = 0;
	switch (*end) {
	case 'k':
	case 'K':
		shift = 10;
		break;
	case 'm':
	case 'M':
		shift = 20;
		break;
	case 'g':
	case 'G':
		shift = 30;
		break;
	case 't':
	case 'T':
		shift = 40;
		break;
	default:
		break;
	}
	if (shift)
		end++;
	if (*end == 'i' && shift)
		end++;
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end)
		return -EINVAL;
	if (shift && v > (UINT64_MAX >> shift))
		return -ERANGE;
	*out = v << shift;
	return 0;
}

void fmt_bound(char *out, size_t n, double v, double pivot, int decimals)
{
	for (int d = decimals;; d++) {
		snprintf(out, n, "%.*f", d, v);
		double shown = strtod(out, NULL);
		bool same_side = v < pivot ? shown < pivot : v > pivot ? shown > pivot : true;
		if (same_side || d >= decimals + 4)
			return;
	}
}

void fmt_pct(char *out, size_t n, uint64_t num, uint64_t den, int decimals)
{
	if (!den) {
		snprintf(out, n, "-");
		return;
	}
	double p = (double)num / (double)den * 100;
	int d = decimals < 0 ? 0 : decimals > 6 ? 6 : decimals;
	for (;; d++) {
		snprintf(out, n, "%.*f%%", d, p);
		double shown = strtod(out, NULL);
		bool over = num < den && shown >= 100, under = num > 0 && shown <= 0;
		if (!over && !under)
			return;
		if (d == 6)
			break;
	}
	/* still on an end at 6 decimals: cut towards the middle instead of rounding */
	double q = num < den ? floor(p * 1e6) / 1e6 : ceil(p * 1e6) / 1e6;
	if (num < den && q >= 100)
		q = 100 - 1e-6; /* a double too close to 100 to tell apart */
	if (num > 0 && q <= 0)
		q = 1e-6;
	snprintf(out, n, "%.6f%%", q);
}

void fmt_measured(char *out, size_t n, double v, int sign)
{
	const char *plus = sign && v >= 0 ? "+" : "";
	if (fabs(v) >= 100 || v == floor(v))
		snprintf(out, n, "%s%.0f", plus, v);
	else if (fabs(v) >= 10)
		snprintf(out, n, "%s%.1f", plus, v);
	else
		snprintf(out, n, "%s%.2f", plus, v);
}

/* V in at most 4 characters: UNITS[0] up to LIM0 (9999 or 999), then each further unit of
 * BASE times the one before: one decimal below 9.95, whole below 999.5. */
static void fmt_narrow(char *out, size_t n, double v, double base, const char *const *units,
		       double lim0)
{
	if (!(v >= 0)) {
		snprintf(out, n, "-");
		return;
	}
	if (v < lim0) {
		if (v < 9.95 && v != floor(v))
			snprintf(out, n, "%.1f%s", v, units[0]);
		else
			snprintf(out, n, "%.0f%s", v, v == 0 ? "" : units[0]);
		return;
	}
	int u = 0;
	do {
		v /= base;
		u++;
	} while (v >= 999.5 && units[u + 1]);
	snprintf(out, n, v < 9.95 ? "%.1f%s" : "%.0f%s", v, units[u]);
}

void fmt_num_narrow(char *out, size_t n, double v)
{
	static const char *const units[] = {"", "k", "M", "G", "T", "P", "E", "Z", "Y", NULL};
	fmt_narrow(out, n, v, 1000, units, 9999.5);
}

void fmt_kb_narrow(char *out, size_t n, uint64_t kb)
{
	static const char *const units[] = {"K", "M", "G", "T", "P", "E", "Z", NULL};
	fmt_narrow(out, n, (double)kb, 1024, units, 999.5);
}
