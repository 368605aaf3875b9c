// SPDX-License-Identifier: MIT
/* Internal to kernel/smaps.c: the fast path for the kernel's 28-byte field lines. */
#ifndef THPCTL_KERNEL_SMAPS_FIXED_H
#define THPCTL_KERNEL_SMAPS_FIXED_H

#include "smaps.h"

/*
 * The run of field lines at POS before END in the kernel's own shape ("%-16s%8lu kB\n",
 * 28 bytes) into S's VMA: a kept field's value into S->cur, another line only checked
 * for a newline in its value. Returns the first line not taken (another shape, a field
 * seen before in this VMA, a value the careful path must decide), POS when none was;
 * sets S->err to -EFBIG past SMAPS_MAX_VMA_LINES lines in one VMA.
 */
const char *smaps_fixed_run(struct smaps_stream *s, const char *pos, const char *end);

/*
 * The same run at POS before END into totals T (smaps_rollup: one block, no line count):
 * a kept field not seen before in T, another label of the kernel's own checked for a
 * newline. Returns the first line not taken, POS when none was.
 */
const char *smaps_fixed_totals(struct smaps_totals *t, const char *pos, const char *end);

#endif
