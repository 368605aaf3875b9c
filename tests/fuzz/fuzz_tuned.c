// SPDX-License-Identifier: MIT
/*
 * tuned.conf (kernel/tuned.c): ini_walk(), tuned_conf_parse().
 * Properties: every key ini_walk() reports is non-empty, without '=', a line
 * break or blanks at its ends, and values hold no line break; the THP settings
 * tuned_conf_parse() keeps are relative keys (no leading '/', no "//") within
 * TUNED_MAX_SET; parsing is deterministic.
 */
#include "fuzz.h"

#include "kernel/tuned.h"

static bool edge_blank(const char *s)
{
	size_t n = strlen(s);
	return n && (s[0] == ' ' || s[0] == '\t' || s[n - 1] == ' ' || s[n - 1] == '\t');
}

static void check_kv(void *ctx, const char *section, const char *key, const char *value)
{
	(void)ctx;
	FUZZ_CHECK(key[0] != '\0');
	FUZZ_CHECK(!strchr(key, '=') && !strchr(key, '\n') && !edge_blank(key));
	FUZZ_CHECK(!strchr(value, '\n'));
	FUZZ_CHECK(!strchr(section, '\n'));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	int bad = ini_walk(text, size, check_kv, NULL);
	FUZZ_CHECK(bad >= 0);
	static struct tuned_conf a, b;
	tuned_conf_parse(text, size, &a);
	tuned_conf_parse(text, size, &b);
	FUZZ_CHECK(a.nset >= 0 && a.nset <= TUNED_MAX_SET);
	FUZZ_CHECK(a.nbad == bad);
	FUZZ_CHECK(memcmp(&a, &b, sizeof(a)) == 0);
	for (int i = 0; i < a.nset; i++) {
		FUZZ_CHECK(a.set[i].key[0] && a.set[i].key[0] != '/');
		FUZZ_CHECK(!strstr(a.set[i].key, "//"));
	}
	return 0;
}
