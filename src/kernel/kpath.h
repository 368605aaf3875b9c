/* SPDX-License-Identifier: MIT */
/*
 * The host paths of the files thpctl cites as evidence ("[/proc/123/smaps]"),
 * as ids: model/ keeps the id of a fact's source, render/ shows the path
 * through a model function that calls kpath(). The names are the live
 * host's; a recorded tree keeps the same names under its root.
 */
#ifndef THPCTL_KERNEL_KPATH_H
#define THPCTL_KERNEL_KPATH_H

#include <stddef.h>

enum kpath {
	KP_NONE,
	KP_THP_DIR,	      /* the transparent_hugepage directory */
	KP_THP_ENABLED,	      /* its enabled */
	KP_THP_DEFRAG,	      /* its defrag */
	KP_THP_MAX_PTES_NONE, /* khugepaged/max_ptes_none */
	KP_THP_SIZE_ENABLED,  /* hugepages-ARGkB/enabled (ARG: the size in kB) */
	KP_THP_SIZES_ENABLED, /* hugepages-*kB/enabled */
	KP_PROC_FILE,	      /* the proc file NAME of process ARG ("smaps", "status", ...) */
	KP_BUDDYINFO,
	KP_MEMINFO,
	KP_VMSTAT,
	KP_CGROUP_ROOT, /* /sys/fs/cgroup */
	KP_CONFIG_GZ,	/* /proc/config.gz */
	KP_BOOT_CONFIG, /* /boot/config-NAME (NAME: the release) */
	KP_TREE,	/* NAME, a path relative to the root ("sys/fs/cgroup/a/memory.max") */
};

/* The absolute path of K (with ARG and NAME as its comment says) into OUT (N bytes). Pure. Returns OUT. */
const char *kpath(enum kpath k, long long arg, const char *name, char *out, size_t n);

#endif
