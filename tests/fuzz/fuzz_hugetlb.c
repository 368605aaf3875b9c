// SPDX-License-Identifier: MIT
/*
 * hugetlb files (kernel/hugetlb.c reads them with these): the pool directory
 * name ("hugepages-2048kB", kernel/parse.c hugepages_dirname_kb) and each
 * count file's single number (parse_u64_text). Properties: a size is a kB
 * count printed back as the same name; a count is digits with blanks around.
 */
#include "fuzz.h"

#include <inttypes.h>

#include "kernel/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *name = fuzz_cstr(data, size);
	uint64_t kb = hugepages_dirname_kb(name);
	if (kb) {
		char back[64];
		snprintf(back, sizeof(back), "hugepages-%" PRIu64 "kB", kb);
		FUZZ_CHECK(strcmp(back, name) == 0);
	}
	free(name);
	uint64_t v;
	if (parse_u64_text((const char *)data, size, &v) == 0) {
		/* blanks around the digits only */
		size_t i = 0, d = 0;
		while (i < size && (data[i] == ' ' || data[i] == '\t'))
			i++;
		while (i + d < size && data[i + d] >= '0' && data[i + d] <= '9')
			d++;
		FUZZ_CHECK(d > 0);
		for (size_t k = i + d; k < size; k++)
			FUZZ_CHECK(data[k] == ' ' || data[k] == '\t' || data[k] == '\n');
	}
	return 0;
}
