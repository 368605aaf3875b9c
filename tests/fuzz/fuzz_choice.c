// SPDX-License-Identifier: MIT
/*
 * Bracketed sysfs values (kernel/parse.c choice_parse, "always [madvise] never")
 * and the journal's reading of a knob (lab/journal.c journal_value_matches).
 * Properties: the selected word is one of the options and fits its array.
 */
#include "fuzz.h"

#include "kernel/parse.h"
#include "lab/journal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct choice c;
	memset(&c, 0x5a, sizeof(c));
	if (choice_parse((const char *)data, size, &c) == 0) {
		FUZZ_CHECK(c.present);
		FUZZ_CHECK(c.noptions >= 1 && c.noptions <= CHOICE_MAX);
		FUZZ_CHECK(memchr(c.selected, '\0', CHOICE_LEN) != NULL);
		FUZZ_CHECK(c.selected[0] != '\0');
		for (int i = 0; i < c.noptions; i++)
			FUZZ_CHECK(memchr(c.options[i], '\0', CHOICE_LEN) != NULL);
		/* the selected word may be past CHOICE_MAX options; else it is offered */
		if (c.noptions < CHOICE_MAX)
			FUZZ_CHECK(choice_offers(&c, c.selected));
		FUZZ_CHECK(journal_value_matches((const char *)data, size, c.selected));
	}
	(void)journal_value_matches((const char *)data, size, "madvise");
	return 0;
}
