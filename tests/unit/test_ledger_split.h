/* SPDX-License-Identifier: MIT */
/* Shared by test_ledger.c and test_why.c: issue 22's deferred-split case, measured there. */
#ifndef THPCTL_TEST_LEDGER_SPLIT_H
#define THPCTL_TEST_LEDGER_SPLIT_H

#include "model/ledger.h"

/*
 * Build into L the ledger of 128 MiB written, 511 of 512 pages dropped per PMD,
 * 8 ranges re-collapsed: huge 16 MiB, ~15.8 MiB invented (under 16 MiB), 56
 * folios x 2044 kB held by deferred split.
 */
static inline void ledger_split_build(struct thp_ledger *l)
{
	static const struct ledger_raw split = {.thps = 8,
						.thps_sampled = 8,
						.samples = 64,
						.zero_samples = 63,
						.partial_folios = 56,
						.held_pages = 56 * 511};
	ledger_build(16384, &split, 0, 8, true, 511, 4, 9, l);
}

#endif
