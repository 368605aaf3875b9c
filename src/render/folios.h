/* SPDX-License-Identifier: MIT */
/* Renderers of `maps --folios`, `ps --folios` and `maps --underused`. */
#ifndef THPCTL_RENDER_FOLIOS_H
#define THPCTL_RENDER_FOLIOS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "../model/folios.h"
#include "../model/numa.h"

/* Why a folio method sees only part of the picture, or NULL when it is exact. */
const char *folio_partial_reason(enum folio_method m);

void folio_maps_render_text(FILE *f, const struct folio_report *r, bool color);
json_t *folio_maps_to_json(const struct folio_report *r);

/* One process of `ps --folios`. */
struct folio_ps_row {
	long pid, ppid, uid;
	char user[32];
	char comm[COMM_LEN];
	struct opt_u64 vmrss_kb; /* status VmRSS */
	bool denied;		 /* pagemap/smaps not readable: counts invalid */
	struct folio_acct c;
	bool has_allowed;      /* allowed read (kernel/numa.h numa_proc_allowed) */
	struct cpuset allowed; /* CPUs its threads may run on */
};

struct folio_ps_report {
	enum folio_method method;
	struct folio_geom g;
	struct folio_ps_row *rows;
	size_t n;
	int denied;	    /* processes not readable */
	int errors;	    /* other failures */
	bool as_root;	    /* denied means another namespace or an LSM */
	const char *cgroup; /* --cgroup, NULL none */
	double elapsed_ms;
	const struct numa_nodes *numa; /* the node map the scan counted with, NULL none */
};

void folio_ps_render_text(FILE *f, const struct folio_ps_report *r, bool color);
json_t *folio_ps_to_json(const struct folio_ps_report *r);

/*
 * THP by NUMA node of C (node map M, NULL none; ALLOWED: the CPUs the
 * process's threads may run on, NULL unknown) as one line plus the
 * numa-remote-thp finding, or as JSON {thp_bytes_by_node, allowed_nodes,
 * remote_share, remote_thp}. PARTIAL: the scan saw no PFNs (all unknown).
 * Source: render/folios_numa.c.
 */
void folio_numa_render_text(FILE *f, const struct numa_nodes *m, const struct folio_acct *c,
			    const struct cpuset *allowed, const struct folio_geom *g, bool partial,
			    bool color);
json_t *folio_numa_to_json(const struct numa_nodes *m, const struct folio_acct *c,
			   const struct cpuset *allowed, const struct folio_geom *g, bool partial);
/* The per-process NUMA table of `ps --folios` (processes with THP). */
void folio_ps_numa_render_text(FILE *f, const struct folio_ps_report *r, bool color);

void underused_render_text(FILE *f, const struct underused_report *r, bool color);
json_t *underused_to_json(const struct underused_report *r);

#endif
