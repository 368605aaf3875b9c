// SPDX-License-Identifier: MIT
/*
 * /proc/vmstat, /proc/meminfo and nodeN/meminfo (kernel/kv.c): vmstat_parse(),
 * meminfo_parse(), node_meminfo_parse().
 * Properties: every parsed name is found again by kv_get() with its value, no name is
 * kept twice (a key seen twice is dropped, every copy), and l->dup says when one was.
 */
#include "fuzz.h"

#include "kernel/kv.h"

static void check(const struct kvlist *l)
{
	for (size_t i = 0; i < l->n; i++) {
		FUZZ_CHECK(memchr(l->items[i].name, '\0', sizeof(l->items[i].name)) != NULL);
		uint64_t v;
		FUZZ_CHECK(kv_get(l, l->items[i].name, &v) && v == l->items[i].value);
		for (size_t j = 0; j < i; j++)
			FUZZ_CHECK(strcmp(l->items[i].name, l->items[j].name) != 0);
	}
	FUZZ_CHECK(l->dup == 0 || l->dup_name[0] != '\0');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kvlist l = {0};
	if (vmstat_parse((const char *)data, size, &l) == 0)
		check(&l);
	kvlist_free(&l);
	struct kvlist m = {0};
	if (meminfo_parse((const char *)data, size, &m) == 0)
		check(&m);
	kvlist_free(&m);
	struct kvlist n = {0};
	if (node_meminfo_parse((const char *)data, size, &n) == 0)
		check(&n);
	kvlist_free(&n);
	return 0;
}
