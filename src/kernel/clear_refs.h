/* SPDX-License-Identifier: MIT */
/*
 * proc/PID/clear_refs: writing "1" clears the referenced (accessed) bits of
 * every page of the process (its PTEs and PMDs), so that smaps `Referenced`
 * afterwards counts what it touched since. Root (or the process's owner with
 * ptrace access). It perturbs the process slightly: the next access to each
 * page sets the bit again, and reclaim sees its pages as colder.
 */
#ifndef THPCTL_KERNEL_CLEAR_REFS_H
#define THPCTL_KERNEL_CLEAR_REFS_H

#include <sys/types.h>

#include "sysroot.h"

/* Write "1" to SR's proc/PID/clear_refs (live sysroots only). 0 or -errno. */
int proc_clear_refs(const struct sysroot *sr, pid_t pid);

#endif
