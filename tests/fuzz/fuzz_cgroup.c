// SPDX-License-Identifier: MIT
/*
 * cgroup files (kernel/cgroup.c): /proc/PID/cgroup (proc_cgroup_parse), a
 * memory limit file (cgroup_limit_parse) and the unit name of each path
 * (cgroup_unit). Properties: paths and unit names are NUL-terminated in their arrays.
 */
#include "fuzz.h"

#include "kernel/cgroup.h"

static void unit_of(const char *path)
{
	char unit[64];
	if (cgroup_unit(path, unit, sizeof(unit)) == 0)
		FUZZ_CHECK(memchr(unit, '\0', sizeof(unit)) != NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct proc_cgroup cg;
	memset(&cg, 0x5a, sizeof(cg));
	if (proc_cgroup_parse((const char *)data, size, &cg) == 0) {
		FUZZ_CHECK(memchr(cg.v2, '\0', sizeof(cg.v2)) != NULL || !cg.has_v2);
		if (cg.has_v2)
			unit_of(cg.v2);
		if (cg.has_v1_memory)
			unit_of(cg.v1_memory);
		if (cg.has_v1_systemd)
			unit_of(cg.v1_systemd);
	}
	bool limited = false;
	uint64_t bytes = 0;
	(void)cgroup_limit_parse((const char *)data, size, &limited, &bytes);
	char *s = fuzz_cstr(data, size);
	unit_of(s);
	free(s);
	return 0;
}
