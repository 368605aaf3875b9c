/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/stacks-capture.smaps: the anonymous VMAs of /proc/PID/smaps of a
 * small program on the 6.18 guest (glibc 2.36): two pthreads (default 8 MiB
 * stack, and a 64 KiB stack), and a 4 MiB region madvised MADV_NOHUGEPAGE
 * above a PROT_NONE page of its own mapping (not nh: the madvise covered only
 * the region). File-backed VMAs and [vvar]/[vdso]/[vsyscall] left out; the
 * rest unedited. Used by test_proc_thp.c and test_why.c (run from the top of
 * the tree, as make unit does).
 */
#ifndef THPCTL_TEST_STACKS_CAPTURE_H
#define THPCTL_TEST_STACKS_CAPTURE_H

#include "unit.h"

/* The whole capture (malloc'd, NUL-terminated), its length in *LEN. */
static inline char *cap_stacks(size_t *len)
{
	return unit_slurp_ok("tests/unit/stacks-capture.smaps", len);
}

/*
 * The capture without the madvised region and the PROT_NONE page below it
 * (malloc'd, NUL-terminated), its length in *LEN: only the kernel's nh is left.
 */
static inline char *cap_stacks_only(size_t *len)
{
	size_t n;
	char *text = cap_stacks(&n);
	char *cut = (char *)unit_find(text, "7f1f0899c000-");
	const char *resume = unit_find(text, "7f1f08d9d000-");
	memmove(cut, resume, strlen(resume) + 1);
	*len = strlen(text);
	return text;
}

#endif
