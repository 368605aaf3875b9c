/* SPDX-License-Identifier: MIT */
/* Output of the control commands: set, snapshot (collapse: render/collapse.h). */
#ifndef THPCTL_RENDER_CONTROL_H
#define THPCTL_RENDER_CONTROL_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "../model/settings_plan.h"
#include "../model/snapshot.h"

/* Why a value is refused, in words: "'sometimes' is not offered (this kernel offers: ...)". */
void knob_invalid_text(const struct knob_invalid *w, char *out, size_t n);
/* A refused or skipped KEY=VALUE's reason, in words (PLAN_NOTE_LEN bytes hold it). */
void plan_note_text(const struct plan_note *e, char *out, size_t n);

/* "KEY: OLD -> NEW" per entry, with its state when not plainly written. */
void plan_render_text(FILE *f, const struct settings_plan *p, bool color);

/* The equivalent shell lines ("echo NEW > THP_DIR/KEY") of the entries that change something. */
void plan_render_shell(FILE *f, const struct settings_plan *p, const char *thp_dir);

/* {"dry_run", "ok", "changes": [...], "invalid": [...], "skipped": [...], "shell": [...] when
 * DRY_RUN, else null}. */
json_t *plan_to_json(const struct settings_plan *p, const char *thp_dir, bool dry_run, bool ok);

/* "KEY: FILE_VALUE (file) vs CUR_VALUE (now)" per difference. */
void snap_diff_render_text(FILE *f, const struct snap_diff *d, int n, const char *file, bool color);
json_t *snap_diff_to_json(const struct snap_diff *d, int n, const char *file,
			  const struct snapshot *saved);

#endif
