// SPDX-License-Identifier: MIT
/* smaps_rollup (kernel/smaps.c): smaps_rollup_parse(). Property: success means a field was found. */
#include "fuzz.h"

#include "kernel/smaps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct smaps_totals t;
	memset(&t, 0xa5, sizeof(t));
	int r = smaps_rollup_parse((const char *)data, size, &t);
	if (r == 0)
		FUZZ_CHECK(t.present != 0);
	for (int f = 0; f < SM_NFIELDS; f++)
		if (r == 0 && smaps_has(&t, (enum smaps_field)f))
			(void)smaps_field_name((enum smaps_field)f);
	return 0;
}
