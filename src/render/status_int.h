/* SPDX-License-Identifier: MIT */
/* Internal to render/status*.c: how a tri-state, a choice, an optional number and a ratio print. */
#ifndef THPCTL_RENDER_STATUS_INT_H
#define THPCTL_RENDER_STATUS_INT_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "../model/host.h"
#include "skips.h"

/* The meminfo fields of "Usage now" (text) and usage.meminfo_kb (JSON), in this order. */
#define STATUS_N_USAGE_MEMINFO 11
extern const char *const status_usage_meminfo[STATUS_N_USAGE_MEMINFO];

/*
 * Why a cell of the status text is '-' (bits): the legend under the report says what each
 * kind that occurred means (status_dash_legend).
 */
enum status_dash {
	SD_ABSENT = 1u << 0,	 /* no such file or counter here (or, when partial, not readable) */
	SD_SHMEM_ONLY = 1u << 1, /* a size with no anon THP: shmem and file only */
	SD_NODE_RESV = 1u << 2,	 /* hugetlb resv: the kernel counts it for all nodes only */
	SD_UNKNOWN = 1u << 3,	 /* unknown: not probed, not derivable, a sum past 2^64 */
};
/* "-", noting WHY (enum status_dash) in *SEEN; SEEN NULL: the cell says why itself. */
const char *status_dash(unsigned *seen, unsigned why);
/* "  '-': " and what each kind of '-' in SEEN means, one line; nothing when SEEN is 0. */
void status_dash_legend(FILE *f, const struct host_snapshot *h, unsigned seen);

/* "yes", "no" or "-" (unknown, noted in *SEEN). */
const char *status_tri_str(enum tri t, unsigned *seen);
/* true, false or null (unknown). */
json_t *status_tri_json(enum tri t);
/* The selected word of a choice file, or "-" when it was not read (SD_ABSENT in *SEEN). */
const char *status_choice_str(const struct choice *c, unsigned *seen);
/* The value as digits into OUT (N bytes), or "-" when absent (WHY in *SEEN). */
void status_opt_str(char *out, size_t n, const struct opt_u64 *o, unsigned *seen, unsigned why);
/*
 * "12.3% (NUM of DEN)"; "no attempts yet" when both counters are 0; else "-": ABSENT (in
 * *SEEN) when a counter is not there, SD_UNKNOWN when their sum passes 2^64.
 */
void status_ratio_str(char *out, size_t n, const struct ratio *r, unsigned *seen, unsigned absent);
/* {"ok", "attempts", "ratio"}, or null when the ratio is not valid. */
json_t *status_ratio_json(const struct ratio *r);
/* "partial" and "missing" (the files not read) of H into ROOT. */
void status_partial_json(json_t *root, const struct host_snapshot *h);
/* tuned's state in words: "running", "not running, enabled at boot" ...; UNKNOWN when neither is known. */
const char *status_tuned_state(const struct tuned_state *t, const char *unknown);
/* Whether THP settings could be changed here, in words: "yes", "no: ...", "not recorded (...)". */
void status_write_note(const struct host_snapshot *h, char *out, size_t n);

#endif
