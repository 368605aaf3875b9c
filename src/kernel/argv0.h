/* SPDX-License-Identifier: MIT */
/*
 * Which path starts the program a process runs. /proc/PID/exe names the file
 * executed after symlinks, which is not always the program: Debian's
 * /usr/bin/redis-server is a symlink to redis-check-rdb, which picks its role
 * from argv[0]. A restart command is built from argv[0] when argv[0] leads to
 * the same file as /proc/PID/exe (device and inode), checked on the live
 * system only (a recorded tree's symlinks may point outside it).
 */
#ifndef THPCTL_KERNEL_ARGV0_H
#define THPCTL_KERNEL_ARGV0_H

#include <stddef.h>
#include <sys/types.h>

#include "sysroot.h"

/* The PATH used when the process's own is unknown (glibc's execvp default, with sbin). */
#define ARGV0_DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/*
 * Resolve ARGV0 of process PID: with a '/', as a path (relative to the
 * process's working directory when not absolute); without, through the
 * directories of PATH_ENV (its PATH; NULL: ARGV0_DEFAULT_PATH). Returns 1
 * with the path into OUT (N bytes) when it leads to the file PID executes;
 * 0 when it leads elsewhere or nowhere; -ENOENT on a recorded tree (not
 * checked); -errno when proc/PID/exe cannot be looked at (-EACCES: not root).
 */
int argv0_resolve(const struct sysroot *sr, pid_t pid, const char *argv0, const char *path_env,
		  char *out, size_t n);

/* PATH's value in environ TEXT (NUL-separated NAME=VALUE), or NULL. Pure. */
const char *argv0_path_env(const char *text, size_t len);

#endif
