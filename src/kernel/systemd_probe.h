/* SPDX-License-Identifier: MIT */
/*
 * Whether the installed systemd knows a unit setting, by presence: its
 * manager library (libsystemd-core-VERSION.so, under usr/lib/ARCH/systemd/,
 * usr/lib/systemd/ or usr/lib64/systemd/) holds the unit-file parser's table,
 * where each setting is a string such as "Service.MemoryMax". The file is read
 * as data, never run or loaded. MemoryTHP= (per-service THP opt-out) is too
 * new for most distributions' systemd: probe it, never assume it.
 */
#ifndef THPCTL_KERNEL_SYSTEMD_PROBE_H
#define THPCTL_KERNEL_SYSTEMD_PROBE_H

#include <stddef.h>

#include "sysroot.h"

/* Whether P[0..N) holds NEEDLE (M bytes): memmem. Pure. */
int systemd_bytes_have(const char *p, size_t n, const char *needle, size_t m);

/*
 * Whether systemd under SR knows the unit setting NAME ("MemoryTHP"): 1 yes,
 * 0 no (its manager library was read, the name is not in it), -ENOENT no
 * systemd manager library found, -errno of reading it.
 */
int systemd_knows(const struct sysroot *sr, const char *name);

#endif
