/* SPDX-License-Identifier: MIT */
/* Renderers of `thpctl ps` and `thpctl maps`. */
#ifndef THPCTL_RENDER_PS_H
#define THPCTL_RENDER_PS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "../model/ledger.h"
#include "../model/proc.h"

/* A process's reason in words: "opted in by madvise", "global always", ... */
const char *thp_reason_text(enum thp_reason r);
/* ROW's reason in words, naming its shmem policy (SHMEM_OFF) into OUT (N bytes). Returns the
 * words (OUT or a constant). */
const char *ps_row_reason(const struct ps_report *r, const struct ps_row *row, char *out, size_t n);

void ps_render_text(FILE *f, const struct ps_report *r, bool color);
json_t *ps_to_json(const struct ps_report *r);
/*
 * The lines that say R is partial, as ps and ps --ledger print them under their
 * tables: processes not readable (R->denied, and why), not parsed, damaged.
 */
void ps_partial_text(FILE *f, const struct ps_report *r, bool color);

void maps_render_text(FILE *f, const struct maps_report *r, bool color);
/* R as JSON, its "vmas" array left empty: the VMAs are maps_vma_json() each, streamed
 * (render/json.h json_dump_streamed). */
json_t *maps_to_json(const struct maps_report *r);
/* VMA I of R as a "vmas" item; NULL on ENOMEM. */
json_t *maps_vma_json(const struct maps_report *r, size_t i);

#endif
