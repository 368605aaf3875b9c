/* SPDX-License-Identifier: MIT */
/* Renderers of the host audit (`thpctl status`). They print; they open nothing. */
#ifndef THPCTL_RENDER_STATUS_H
#define THPCTL_RENDER_STATUS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "../model/findings.h"
#include "../model/host.h"

/* The first line: "thpctl status", and what could not be read when partial. */
void status_render_header(FILE *f, const struct host_snapshot *h, bool color);
/* The full report: header, verdict block, kernel, policy, usage, since boot, findings. */
void status_render_text(FILE *f, const struct host_snapshot *h, const struct host_derived *d,
			const struct findings *fs, bool color);
/* The JSON document (caller owns it); NULL on ENOMEM. */
json_t *status_to_json(const struct host_snapshot *h, const struct host_derived *d,
		       const struct findings *fs);

/* status_verdict.c */
/*
 * The verdict block: one line per area with the worst finding of it (FS
 * sorted); PARTIAL (some files unread) says the rules over them did not run.
 */
void status_render_verdict(FILE *f, const struct findings *fs, bool partial, bool color);
/* Every finding with its area, evidence, why, fix, persist line and "more" command. */
void status_render_findings(FILE *f, const struct findings *fs, bool color);
/* `status --brief`: the verdict block and the key settings. */
void status_render_brief(FILE *f, const struct host_snapshot *h, const struct host_derived *d,
			 const struct findings *fs, bool color);
/* The "findings" array and the "verdict" array (one object per area) of the JSON. */
json_t *status_findings_json(const struct findings *fs);
json_t *status_verdict_json(const struct findings *fs);
/* `status --brief --json`: the reduced object (caller owns it); NULL on ENOMEM. */
json_t *status_brief_json(const struct host_snapshot *h, const struct host_derived *d,
			  const struct findings *fs);

/* status_tuned.c */
/* The tuned row of the policy table: "profile NAME (running): sets enabled=never, ...", "none (...)". */
void status_tuned_str(const struct host_snapshot *h, char *out, size_t n);
/* The "tuned" object of the JSON: state, profiles read, THP settings with live values; null unread. */
json_t *status_tuned_json(const struct host_snapshot *h);

#endif
