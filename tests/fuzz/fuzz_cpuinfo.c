// SPDX-License-Identifier: MIT
/*
 * /proc/cpuinfo (kernel/cpuinfo.c): cpuinfo_parse_flag(). Properties: 1, 0 or
 * -ENOENT only; a flag found is a word of the text; -ENOENT for one flag is
 * -ENOENT for every flag (no flags line at all).
 */
#include <errno.h>

#include "fuzz.h"

#include "kernel/cpuinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *t = (const char *)data;
	int a = cpuinfo_parse_flag(t, size, "hypervisor");
	int b = cpuinfo_parse_flag(t, size, "fpu");
	FUZZ_CHECK(a == 1 || a == 0 || a == -ENOENT);
	FUZZ_CHECK((a == -ENOENT) == (b == -ENOENT));
	if (a == 1)
		FUZZ_CHECK(memmem(t, size, "hypervisor", 10) != NULL);
	return 0;
}
