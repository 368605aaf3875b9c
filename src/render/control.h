/* SPDX-License-Identifier: MIT */
/* Output of the control commands: set, snapshot, collapse. */
#ifndef THPCTL_RENDER_CONTROL_H
#define THPCTL_RENDER_CONTROL_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "../kernel/buddyinfo.h"
#include "../model/collapse.h"
#include "../model/settings_plan.h"
#include "../model/snapshot.h"

/* "KEY: OLD -> NEW" per entry, with its state when not plainly written. */
void plan_render_text(FILE *f, const struct settings_plan *p, bool color);

/* The equivalent shell lines ("echo NEW > THP_DIR/KEY") of the entries that change something. */
void plan_render_shell(FILE *f, const struct settings_plan *p, const char *thp_dir);

/* {"dry_run", "ok", "changes": [...], "invalid": [...], "skipped": [...]} (+ "shell" when dry). */
json_t *plan_to_json(const struct settings_plan *p, const char *thp_dir, bool dry_run, bool ok);

/* "KEY: FILE_VALUE (file) vs CUR_VALUE (now)" per difference. */
void snap_diff_render_text(FILE *f, const struct snap_diff *d, int n, const char *file, bool color);
json_t *snap_diff_to_json(const struct snap_diff *d, int n, const char *file,
			  const struct snapshot *saved);

struct collapse_report {
	long pid;
	char comm[64];
	int thp_enabled; /* -1 absent */
	uint64_t pmd_size;
	bool dry_run, force;
	double max_inflate; /* --max-inflate: refuse ranges growing RSS more (x) */
	long vmrss_before_kb, vmrss_after_kb; /* the process's VmRSS, -1 unknown */
	int nranges;
	struct crange *ranges;
	int nsmall;		       /* anonymous VMAs too small to hold an aligned PMD */
	bool pagemap;		       /* empty PMDs were found (and skipped) through pagemap */
	const struct buddyinfo *buddy; /* read after an ENOMEM, else NULL */
	int pmd_order;
	int fatal; /* -errno that stopped the run (EPERM, ESRCH, ENOMEM), 0 if none */
};

void collapse_render_text(FILE *f, const struct collapse_report *r, bool color);
json_t *collapse_to_json(const struct collapse_report *r);

#endif
