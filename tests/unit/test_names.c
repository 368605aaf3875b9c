// SPDX-License-Identifier: MIT
/* Unit tests: src/util/names.h (enum names from a designated-initializer table). */
#include "unit.h"

#include "util/names.h"

enum colour { RED, GREEN, BLUE, NCOLOURS };

static const char *const colour_names[] = {[RED] = "red", [BLUE] = "blue"};

static void test_enum_name_set_entry_is_its_name(UNIT_STATE)
{
	assert_string_equal(ENUM_NAME(colour_names, RED, "?"), "red");
	assert_string_equal(ENUM_NAME(colour_names, BLUE, "?"), "blue");
}

static void test_enum_name_hole_past_end_or_negative_is_default(UNIT_STATE)
{
	assert_string_equal(ENUM_NAME(colour_names, GREEN, "none"), "none");
	assert_string_equal(ENUM_NAME(colour_names, NCOLOURS, "none"), "none");
	assert_string_equal(ENUM_NAME(colour_names, -1, "none"), "none");
	assert_null(ENUM_NAME(colour_names, 99, NULL));
}

UNIT_TESTS(test_enum_name_set_entry_is_its_name,
	   test_enum_name_hole_past_end_or_negative_is_default)
