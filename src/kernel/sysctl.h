/* SPDX-License-Identifier: MIT */
/* /proc/sys: one-line sysctl files (kernel/osrelease, vm/compaction_proactiveness, ...). */
#ifndef THPCTL_KERNEL_SYSCTL_H
#define THPCTL_KERNEL_SYSCTL_H

#include <stddef.h>

#include "sysroot.h"

/* /proc/sys/vm, relative to the sysroot (for guard_write() and friends). */
#define SR_SYSCTL_VM SR_PROC "/sys/vm"

/*
 * The first line of proc/sys/GROUP/NAME (GROUP "kernel", "vm") into OUT (N
 * bytes, without its newline). Returns 0, -EINVAL (GROUP or NAME holds '/'
 * or "..", or the line holds a control byte or invalid UTF-8), -E2BIG (longer than N-1), or the read's -errno (-ENOENT: this
 * kernel or tree has no such file).
 */
int sysctl_read_line(const struct sysroot *sr, const char *group, const char *name, char *out,
		     size_t n);

#endif
