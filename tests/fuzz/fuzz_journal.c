// SPDX-License-Identifier: MIT
/*
 * The settings journal (lab/journal.c journal_parse, journal_format).
 * Properties: every kept entry passes the allow-list; a parsed journal
 * formats and parses back to the same entries.
 */
#include "fuzz.h"

#include "lab/journal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct journal j, back;
	static char out[JOURNAL_MAX_BYTES * 2];
	if (journal_parse((const char *)data, size, &j) != 0)
		return 0;
	FUZZ_CHECK(j.n >= 0 && j.n <= JOURNAL_MAX_ENTRIES);
	for (int i = 0; i < j.n; i++) {
		FUZZ_CHECK(journal_rel_allowed(j.e[i].rel));
		FUZZ_CHECK(journal_value_ok(j.e[i].old));
	}
	int n = journal_format(&j, j.owner, out, sizeof(out));
	FUZZ_CHECK(n > 0);
	FUZZ_CHECK(journal_parse(out, (size_t)n, &back) == 0);
	FUZZ_CHECK(back.n == j.n && back.rejected == 0);
	for (int i = 0; i < j.n; i++) {
		FUZZ_CHECK(strcmp(back.e[i].rel, j.e[i].rel) == 0);
		FUZZ_CHECK(strcmp(back.e[i].old, j.e[i].old) == 0);
	}
	return 0;
}
