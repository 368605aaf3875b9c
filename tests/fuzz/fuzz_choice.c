// SPDX-License-Identifier: MIT
/*
 * Bracketed sysfs values (kernel/parse.c choice_parse, "always [madvise] never")
 * and the journal's reading of a knob (lab/journal.c journal_value_matches),
 * and a one-value file's value (kernel/sysfs.c sysfs_value_parse). Properties:
 * the selected word is one of the options and fits its array; a value is the
 * selected word of a choice, else a prefix of the text, never ending in a blank.
 */
#include "fuzz.h"

#include <errno.h>

#include "kernel/parse.h"
#include "kernel/sysfs.h"
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
	char v[64];
	int r = sysfs_value_parse((const char *)data, size, v, sizeof(v));
	FUZZ_CHECK(r == 0 || r == -E2BIG);
	if (r == 0) {
		size_t l = strlen(v);
		FUZZ_CHECK(!l || (v[l - 1] != '\n' && v[l - 1] != ' ' && v[l - 1] != '\t'));
		struct choice d;
		if (memchr(data, '[', size) && choice_parse((const char *)data, size, &d) == 0)
			FUZZ_CHECK(strcmp(v, d.selected) == 0);
		else
			FUZZ_CHECK(l <= size && memcmp(v, data, l) == 0);
	}
	return 0;
}
