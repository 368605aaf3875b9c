/* SPDX-License-Identifier: MIT */
/*
 * Shared by test_why.c and test_why_shmem.c: the host, input and report one
 * `why` test fills, and the rendered words of a line (render/why.c).
 */
#ifndef THPCTL_TEST_WHY_H
#define THPCTL_TEST_WHY_H

#include "unit.h"

#include "model/why.h"
#include "render/why.h"

static struct host_snapshot H;
static struct why_input IN;
static struct why_report R;

/* The rendered sentence, source and first line (render/why.c), in rotating buffers. */
static char wbuf[4][1024];
static int wnext;
static inline const char *ltext(const struct why_line *l)
{
	char *b = wbuf[wnext++ % 4];
	return why_line_words(l, b, sizeof(wbuf[0]));
}

#endif
