/* SPDX-License-Identifier: MIT */
/* Internal to render/status*.c: how a tri-state, a choice, an optional number and a ratio print. */
#ifndef THPCTL_RENDER_STATUS_INT_H
#define THPCTL_RENDER_STATUS_INT_H

#include <jansson.h>
#include <stddef.h>

#include "../model/host.h"

/* The meminfo fields of "Usage now" (text) and usage.meminfo_kb (JSON), in this order. */
#define STATUS_N_USAGE_MEMINFO 11
extern const char *const status_usage_meminfo[STATUS_N_USAGE_MEMINFO];

/* "yes", "no" or "-" (unknown). */
const char *status_tri_str(enum tri t);
/* true, false or null (unknown). */
json_t *status_tri_json(enum tri t);
/* The selected word of a choice file, or "-" when it was not read. */
const char *status_choice_str(const struct choice *c);
/* The value as digits into OUT (N bytes), or "-" when absent. */
void status_opt_str(char *out, size_t n, const struct opt_u64 *o);
/* "12.3% (NUM of DEN)", or "-" when the ratio is not valid. */
void status_ratio_str(char *out, size_t n, const struct ratio *r);
/* {"ok", "attempts", "ratio"}, or null when the ratio is not valid. */
json_t *status_ratio_json(const struct ratio *r);
/* "partial" and "missing" (the files not read) of H into ROOT. */
void status_partial_json(json_t *root, const struct host_snapshot *h);
/* tuned's state in words: "running", "not running, enabled at boot" ...; UNKNOWN when neither is known. */
const char *status_tuned_state(const struct tuned_state *t, const char *unknown);
/* Whether THP settings could be changed here, in words: "yes", "no: ...", "not recorded (...)". */
void status_write_note(const struct host_snapshot *h, char *out, size_t n);

#endif
