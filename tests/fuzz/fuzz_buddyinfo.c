// SPDX-License-Identifier: MIT
/*
 * /proc/buddyinfo (kernel/buddyinfo.c): buddyinfo_parse(). Properties: zone and
 * order counts within their arrays; blocks at or above an order never grow with it; the
 * exact (u128) sums: pages at or above an order hold at least its blocks << order.
 */
#include "fuzz.h"

#include "kernel/buddyinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buddyinfo bi;
	memset(&bi, 0, sizeof(bi));
	if (buddyinfo_parse((const char *)data, size, &bi) != 0)
		return 0;
	FUZZ_CHECK(bi.nzones >= 0 && bi.nzones <= BUDDY_MAX_ZONES);
	for (int i = 0; i < bi.nzones; i++) {
		const struct buddy_zone *z = &bi.zones[i];
		FUZZ_CHECK(z->norders >= 0 && z->norders <= BUDDY_MAX_ORDERS);
		FUZZ_CHECK(memchr(z->zone, '\0', sizeof(z->zone)) != NULL);
		for (int o = 0; o + 1 <= z->norders; o++)
			FUZZ_CHECK(buddy_blocks_at_least(z, o + 1) <= buddy_blocks_at_least(z, o));
		/* exact (u128): pages at or above an order are at least the blocks, each 2^o */
		for (int o = 0; o < z->norders; o++)
			FUZZ_CHECK(buddy_pages_at_least(z, o) >= buddy_blocks_at_least(z, o) << o);
		FUZZ_CHECK(buddy_pages_at_least(z, BUDDY_MAX_ORDERS + 3) == 0);
	}
	return 0;
}
