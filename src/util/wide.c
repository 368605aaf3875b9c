// SPDX-License-Identifier: MIT
#include "wide.h"

#include <stdio.h>

#include "units.h"

size_t fmt_u128(char *out, size_t n, u128 v)
{
	char tmp[40];
	size_t i = sizeof(tmp);
	do {
		tmp[--i] = (char)('0' + (unsigned)(v % 10));
		v /= 10;
	} while (v);
	size_t len = sizeof(tmp) - i;
	if (n == 0)
		return len;
	size_t c = len < n ? len : n - 1;
	for (size_t k = 0; k < c; k++)
		out[k] = tmp[i + k];
	out[c] = '\0';
	return len;
}

void fmt_kb_exact(char *out, size_t n, u128 kb)
{
	char d[40];
	bool mib = kb && kb % 1024 == 0;
	fmt_u128(d, sizeof(d), mib ? kb / 1024 : kb);
	snprintf(out, n, "%s %s", d, mib ? "MiB" : "kB");
}

void fmt_kb_wide(char *out, size_t n, u128 kb)
{
	if (u128_fits(kb)) {
		fmt_kb(out, n, (uint64_t)kb);
		return;
	}
	static const char *const unit[] = {"kB", "MiB", "GiB", "TiB"};
	int u = 0;
	while (u < 3 && kb % 1024 == 0) {
		kb /= 1024;
		u++;
	}
	char d[40];
	fmt_u128(d, sizeof(d), kb);
	snprintf(out, n, "%s %s", d, unit[u]);
}
