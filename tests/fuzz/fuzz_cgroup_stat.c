// SPDX-License-Identifier: MIT
/*
 * memory.stat (kernel/cgroup_stat.c memstat_parse), as v2 and as v1.
 * Properties: a field found has its key at the start of a line of the input,
 * followed by a space; malformed lines never exceed the lines there are.
 */
#include "fuzz.h"

#include "kernel/cgroup_stat.h"

static const char *const v2keys[MS_NFIELDS] = {
	"anon", "anon_thp", "file_thp", "shmem_thp", "thp_fault_alloc", "thp_collapse_alloc"};

/* Whether S[0..N) has a line starting with "KEY ". */
static bool has_line(const char *s, size_t n, const char *key)
{
	size_t kl = strlen(key);
	for (size_t i = 0; i + kl < n; i++)
		if ((i == 0 || s[i - 1] == '\n') && !memcmp(s + i, key, kl) && s[i + kl] == ' ')
			return true;
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	size_t lines = 1;
	for (size_t i = 0; i < size; i++)
		lines += s[i] == '\n';
	struct memstat m;
	memset(&m, 0x5a, sizeof(m));
	if (memstat_parse(s, size, 2, &m) == 0)
		for (int f = 0; f < MS_NFIELDS; f++)
			FUZZ_CHECK(!m.f[f].present || has_line(s, size, v2keys[f]));
	FUZZ_CHECK(m.bad >= 0 && (size_t)m.bad <= lines);
	memset(&m, 0x5a, sizeof(m));
	if (memstat_parse(s, size, 1, &m) == 0) {
		FUZZ_CHECK(!m.f[MS_ANON_THP].present || has_line(s, size, "total_rss_huge"));
		FUZZ_CHECK(!m.f[MS_FILE_THP].present && !m.f[MS_THP_FAULT_ALLOC].present);
	}
	return 0;
}
