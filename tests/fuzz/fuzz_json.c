// SPDX-License-Identifier: MIT
/*
 * JSON output (render/json.c): any bytes as a string (json_str_n) beside u64s
 * taken from the input (json_u64), serialised by json_dump_text(). Properties:
 * the document parses, the string is there, and each u64 reads back exactly.
 */
#include "fuzz.h"

#include <inttypes.h>

#include "render/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t v[2] = {0, 0};
	memcpy(v, data, size < sizeof(v) ? size : sizeof(v));
	json_t *o = json_object();
	json_put(o, "s", json_str_n((const char *)data, size));
	json_put(o, "a", json_u64(v[0]));
	json_t *arr = json_array();
	json_array_append_new(arr, json_u64(v[1]));
	json_array_append_new(arr, json_str_n((const char *)data, size / 2));
	json_put(o, "b", arr);
	char *text = json_dump_text(o, (size & 1) ? JSON_COMPACT : JSON_INDENT(2));
	json_decref(o);
	FUZZ_CHECK(text);
	json_error_t je;
	json_t *back = json_loads(text, JSON_DECODE_INT_AS_REAL, &je);
	FUZZ_CHECK(back);
	FUZZ_CHECK(json_is_string(json_object_get(back, "s")));
	FUZZ_CHECK(json_is_number(json_object_get(back, "a")));
	FUZZ_CHECK(json_is_number(json_array_get(json_object_get(back, "b"), 0)));
	json_decref(back);
	/* the digits in the text are the exact values */
	for (int k = 0; k < 2; k++) {
		char want[32];
		snprintf(want, sizeof(want), k ? "[%s%" PRIu64 "," : "\"a\":%s%" PRIu64,
			 (size & 1) ? "" : (k ? "\n    " : " "), v[k]);
		FUZZ_CHECK(strstr(text, want) != NULL);
	}
	free(text);
	return 0;
}
