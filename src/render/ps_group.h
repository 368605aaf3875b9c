/* SPDX-License-Identifier: MIT */
/* Renderers of `thpctl ps --by cgroup` (model/ps_group.h). */
#ifndef THPCTL_RENDER_PS_GROUP_H
#define THPCTL_RENDER_PS_GROUP_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "../model/ps_group.h"
#include "../model/skips.h"

struct psg_report {
	const struct psg_row *rows;
	size_t n;
	int version;	    /* the memory cgroup hierarchy: 2, 1, or 0 none found */
	size_t nprocs;	    /* processes in the rows, unreadable ones included */
	int denied;	    /* smaps unreadable and in no row (ps left them out: --min-ahp) */
	bool partial;	    /* a process unreadable, failed or damaged: the sums miss it */
	bool relevant_only; /* ps kept only THP-relevant processes (no --all nor a filter) */
	bool has_host_ahp;  /* meminfo AnonHugePages, host-wide, kB */
	uint64_t host_ahp_kb;
	const struct bundle_skips
		*skips; /* a --sysroot bundle's members not extracted; NULL none */
};

/* The table: one row per cgroup, sums and shares; '-' unknown. */
void psg_render_text(FILE *f, const struct psg_report *r, bool color);
/* {"by":"cgroup","cgroup_version","groups":[{cgroup, processes, ...}], ...}; NULL on ENOMEM. */
json_t *psg_to_json(const struct psg_report *r);

#endif
