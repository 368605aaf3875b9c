// SPDX-License-Identifier: MIT
/*
 * `thpctl snapshot` files (render/snapshot.c snapshot_from_json over jansson).
 * Property: a snapshot that loads saves and loads back to the same knobs.
 */
#include "fuzz.h"

#include "render/json.h"
#include "render/snapshot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_error_t je;
	json_t *root = json_loadb((const char *)data, size, 0, &je);
	if (!root)
		return 0;
	static struct snapshot s, back;
	char why[200];
	int r = snapshot_from_json(root, &s, why, sizeof(why));
	json_decref(root);
	if (r) {
		FUZZ_CHECK(memchr(why, '\0', sizeof(why)) != NULL);
		return 0;
	}
	json_t *j = snapshot_to_json(&s);
	char *text = j ? json_dump_text(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
	json_decref(j);
	FUZZ_CHECK(text);
	json_t *again = json_loads(text, 0, &je);
	FUZZ_CHECK(again);
	FUZZ_CHECK(snapshot_from_json(again, &back, why, sizeof(why)) == 0);
	json_decref(again);
	free(text);
	FUZZ_CHECK(back.n == s.n);
	for (int i = 0; i < s.n; i++) {
		FUZZ_CHECK(strcmp(back.kv[i].key, s.kv[i].key) == 0);
		FUZZ_CHECK(strcmp(back.kv[i].value, s.kv[i].value) == 0);
	}
	return 0;
}
