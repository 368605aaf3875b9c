/* SPDX-License-Identifier: MIT */
/* /proc/cpuinfo: the CPU flags ("flags" on x86, "Features" on arm64) of the first CPU. */
#ifndef THPCTL_KERNEL_CPUINFO_H
#define THPCTL_KERNEL_CPUINFO_H

#include <stdbool.h>
#include <stddef.h>

#include "sysroot.h"

/*
 * Whether the first "flags" (x86) or "Features" (arm64) line of cpuinfo TEXT
 * lists the word FLAG ("hypervisor": a guest). Pure. Returns 1 or 0, or
 * -ENOENT when there is no such line.
 */
int cpuinfo_parse_flag(const char *text, size_t len, const char *flag);

/* The same through SR's proc/cpuinfo into *HAS. Returns 0, -ENOENT (no flags line), or -errno. */
int cpuinfo_has_flag(const struct sysroot *sr, const char *flag, bool *has);

#endif
