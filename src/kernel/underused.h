/* SPDX-License-Identifier: MIT */
/*
 * Reading a process's memory through /proc/PID/mem to count the all-zero
 * subpages of its PMD THPs (`maps --underused`): what the underused-THP
 * shrinker (6.12+) would find. Reading needs the same permission as ptrace
 * (PTRACE_MODE_ATTACH); it reads, never writes, but it does read the data.
 */
#ifndef THPCTL_UNDERUSED_H
#define THPCTL_UNDERUSED_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sysroot.h"

/* All-zero PAGE-byte subpages in BUF[0..LEN). Pure. */
size_t zero_subpages(const void *buf, size_t len, size_t page);

/* Open proc/PID/mem read-only. Returns an fd or -errno. */
int memfile_open(const struct sysroot *sr, pid_t pid);

#define MEMFILE_READ (512u << 10) /* bytes per read() */

/*
 * Count the all-zero PAGE subpages of LEN bytes at ADDR of the process open
 * at FD, in reads of MEMFILE_READ bytes into BUF (that size). Returns the
 * count, or -errno (-EIO when the range is no longer mapped).
 */
long memfile_zero_subpages(int fd, uint64_t addr, size_t len, size_t page, void *buf);

#endif
