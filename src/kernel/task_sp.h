/* SPDX-License-Identifier: MIT */
/*
 * Where each thread's stack pointer is: the second-to-last field of
 * /proc/PID/task/TID/syscall ("NR ARG1..ARG6 SP PC" while in a system call,
 * "-1 SP PC" while blocked outside one, "running" while on a CPU: then
 * unknown). /proc/PID/task/TID/stat's kstkesp is 0 on kernels since 4.x
 * unless the task is dumping core, so it is not used. Reading syscall needs
 * the ptrace read permission (root, or the same user without Yama limits).
 */
#ifndef THPCTL_KERNEL_TASK_SP_H
#define THPCTL_KERNEL_TASK_SP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sysroot.h"

/* The stack pointer in one syscall file TEXT. Returns 0, -EAGAIN ("running"), or -EINVAL. Pure. */
int task_syscall_sp(const char *text, size_t len, uint64_t *sp);

struct task_sps {
	int ntasks;   /* threads listed in proc/PID/task */
	int nknown;   /* of them, with a stack pointer (in sp[], up to TASK_SP_MAX) */
	int denied;   /* syscall files not readable for permission */
	uint64_t *sp; /* nknown values, sorted ascending; free with task_sps_free() */
};

#define TASK_SP_MAX 65536

/*
 * The stack pointers of PID's threads into OUT. Returns 0 (a thread that
 * exits meanwhile, or runs, is left out), -ESRCH when the process is gone,
 * -ENOMEM, or -errno of listing proc/PID/task.
 */
int task_sps_read(const struct sysroot *sr, pid_t pid, struct task_sps *out);
void task_sps_free(struct task_sps *t);

/* How many of T's stack pointers fall in [START, END). Pure. */
int task_sps_in(const struct task_sps *t, uint64_t start, uint64_t end);

#endif
