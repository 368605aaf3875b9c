// SPDX-License-Identifier: MIT
#include "evidence.h"

const char *evidence_path(enum kpath k, long long arg, const char *name, char *out, size_t n)
{
	return kpath(k, arg, name, out, n);
}
