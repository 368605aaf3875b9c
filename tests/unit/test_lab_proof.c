// SPDX-License-Identifier: MIT
/* Unit tests: a lab proof longer than its field says it was cut (lab/lab.c lab_proof). */
#include "unit.h"

#include <string.h>

#include "lab/lab.h"

static void test_long_proof_ends_in_dots_at_a_whole_character(UNIT_STATE)
{
	static struct lab_result r;
	char text[600];
	memset(text, 'a', sizeof(text));
	text[sizeof(text) - 1] = '\0';
	lab_proof(&r, "short", "%s", "fits");
	assert_string_equal(r.proofs[0].value, "fits");
	lab_proof(&r, "long", "%s", text);
	size_t n = strlen(r.proofs[1].value);
	assert_int_equal(n, sizeof(r.proofs[1].value) - 1);
	assert_string_equal(r.proofs[1].value + n - 3, "...");
	/* a two-byte character (u+00b5) across the cut: dropped whole, not split */
	size_t at = sizeof(r.proofs[2].value) - 5;
	memcpy(text + at, "\xc2\xb5", 2);
	lab_proof(&r, "utf8", "%s", text);
	const char *v = r.proofs[2].value;
	assert_int_equal(strlen(v), at + 3);
	assert_string_equal(v + at, "...");
}

UNIT_TESTS(test_long_proof_ends_in_dots_at_a_whole_character)
