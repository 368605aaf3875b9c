/* SPDX-License-Identifier: MIT */
/*
 * proc/PID/clear_refs: writing "1" clears the referenced (accessed) bits of
 * every page of the process (its PTEs and PMDs), so that smaps `Referenced`
 * afterwards counts what it touched since. Root (or the process's owner with
 * ptrace access). It perturbs the process slightly: the next access to each
 * page sets the bit again, and reclaim sees its pages as colder.
 *
 * Accessed bits are not always kept: in some virtual machines they are set
 * late or not at all (this project's development guest read 0 of 4096 kB
 * touched just after a clear, and a 64 MiB pointer chase read 8 kB at times).
 * The accessed-bit probe shows, in the same window, whether this host kept
 * thpctl's own: it clears its own bits, touches a buffer of its own throughout
 * the window and reads back how much of it smaps calls Referenced. It cannot
 * show every loss (docs/diagnosis.md: the chase lost bits the probe kept).
 */
#ifndef THPCTL_KERNEL_CLEAR_REFS_H
#define THPCTL_KERNEL_CLEAR_REFS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sysroot.h"

/* Write "1" to SR's proc/PID/clear_refs (live sysroots only). 0 or -errno. */
int proc_clear_refs(const struct sysroot *sr, pid_t pid);

/* The accessed-bit probe: KB of thpctl's own small pages, touched in a window. */
struct abit_probe {
	char *buf;
	size_t len;	     /* bytes */
	uint64_t touched_kb; /* what was touched since the clear */
	int touches;	     /* passes over the buffer since the clear */
};

/*
 * Map KB of anonymous small pages (MADV_NOHUGEPAGE), fault them in, clear this
 * process's referenced bits (SR's proc/<own PID>/clear_refs) and touch every
 * page once. 0 or -errno (live sysroots only; nothing is left mapped on error).
 */
int abit_probe_start(const struct sysroot *sr, struct abit_probe *p, size_t kb);

/* Read one byte of every page of the probe again (a pass of the window). */
void abit_probe_touch(struct abit_probe *p);

/*
 * The probe's smaps Referenced in kB (this process's VMA at the buffer's
 * address), into *REF_KB. 0, or -errno (-ENOENT: its VMA not found).
 */
int abit_probe_read(const struct sysroot *sr, const struct abit_probe *p, uint64_t *ref_kb);

/* Unmap the probe (safe on a zeroed or ended probe). */
void abit_probe_end(struct abit_probe *p);

#endif
