// SPDX-License-Identifier: MIT
#include "boot_tools.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const bin_dirs[] = {"usr/local/sbin", "usr/local/bin", "usr/sbin",
				       "usr/bin",	 "sbin",	  "bin"};

/* Whether PROG is in one of the bin directories of SR, or live, in $PATH. */
static bool have_program(const struct sysroot *sr, const char *prog)
{
	char rel[PATH_MAX];
	for (size_t i = 0; i < sizeof(bin_dirs) / sizeof(bin_dirs[0]); i++) {
		snprintf(rel, sizeof(rel), "%s/%s", bin_dirs[i], prog);
		if (sysroot_exists(sr, rel) == 0)
			return true;
	}
	const char *path = sr->live ? getenv("PATH") : NULL;
	while (path && *path) {
		size_t l = strcspn(path, ":");
		if (l && path[0] == '/' && l < sizeof(rel) - strlen(prog) - 2) {
			snprintf(rel, sizeof(rel), "%.*s/%s", (int)l, path, prog);
			if (sysroot_exists(sr, rel) == 0)
				return true;
		}
		path += l + (path[l] == ':');
	}
	return false;
}

enum boot_tool boot_tool_detect(const struct sysroot *sr)
{
	if (have_program(sr, "grubby"))
		return BOOT_GRUBBY;
	if (have_program(sr, "update-grub") || sysroot_exists(sr, "etc/default/grub") == 0)
		return BOOT_UPDATE_GRUB;
	return BOOT_UNKNOWN;
}
