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

/*
 * The working directory of process PID (the proc/PID/cwd link, as the process sees it: in its
 * mount namespace) into OUT (N bytes). Returns 0; -ESTALE when the directory was removed since
 * (OUT then holds the path it had); -ENOENT on a recorded tree (not recorded); -EACCES/-EPERM
 * when the link is denied (it takes the ptrace read check: root, its owner or CAP_SYS_PTRACE);
 * -ENAMETOOLONG when it does not fit in N. OUT is "" after any error but -ESTALE.
 */
int proc_cwd(const struct sysroot *sr, pid_t pid, char *out, size_t n);

/*
 * Whether REL, a relative path, names a file or directory under process PID's working
 * directory (proc/PID/cwd/REL, symlinks followed in its mount namespace). Returns 1 yes, 0 no
 * (-ENOENT or -ENOTDIR there); -ENOENT on a recorded tree; else -errno (-EACCES: denied).
 */
int proc_cwd_has(const struct sysroot *sr, pid_t pid, const char *rel);

/* PATH's value in environ TEXT (NUL-separated NAME=VALUE), or NULL. Pure. */
const char *argv0_path_env(const char *text, size_t len);

#endif
