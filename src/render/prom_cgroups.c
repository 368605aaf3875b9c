// SPDX-License-Identifier: MIT
/* thp_cgroup_* families of `thpctl exporter --top-cgroups N` (render/prom.h). */
#include <stdbool.h>
#include <stdint.h>

#include "prom.h"

enum cgm {
	CGM_ANON_THP,
	CGM_FILE_THP,
	CGM_SHMEM_THP,
	CGM_ANON,
	CGM_FAULT_ALLOC,
	CGM_COLLAPSE_ALLOC,
	CGM_CURRENT,
	CGM_MAX,
	CGM_LIMITED,
	CGM_PROCS,
	CGM_THP_OFF,
	CGM_PROCS_UNKNOWN,
	CGM_N
};

static const struct {
	const char *name, *type, *help;
} cgm[CGM_N] = {
	[CGM_ANON_THP] = {"thp_cgroup_anon_thp_bytes", "gauge",
			  "memory.stat anon_thp (v1 total_rss_huge): anonymous THP of the cgroup "
			  "and its descendants (top cgroups by it, --top-cgroups)"},
	[CGM_FILE_THP] = {"thp_cgroup_file_thp_bytes", "gauge",
			  "memory.stat file_thp (v2): file-backed THP, descendants included"},
	[CGM_SHMEM_THP] = {"thp_cgroup_shmem_thp_bytes", "gauge",
			   "memory.stat shmem_thp (v2): shmem/tmpfs THP, descendants included"},
	[CGM_ANON] = {"thp_cgroup_anon_bytes", "gauge",
		      "memory.stat anon (v1 total_rss): anonymous memory, descendants included"},
	[CGM_FAULT_ALLOC] = {"thp_cgroup_thp_fault_alloc_total", "counter",
			     "memory.stat thp_fault_alloc (v2, 5.4+): THPs allocated at fault "
			     "time in the cgroup and its descendants"},
	[CGM_COLLAPSE_ALLOC] = {"thp_cgroup_thp_collapse_alloc_total", "counter",
				"memory.stat thp_collapse_alloc (v2, 5.4+): THPs allocated by "
				"khugepaged collapses, descendants included"},
	[CGM_CURRENT] = {"thp_cgroup_memory_current_bytes", "gauge",
			 "memory.current (v1 memory.usage_in_bytes)"},
	[CGM_MAX] = {"thp_cgroup_memory_max_bytes", "gauge",
		     "memory.max (v1 memory.limit_in_bytes) of a limited cgroup; no sample when "
		     "it has no limit (thp_cgroup_memory_limited 0) or it is unknown"},
	[CGM_LIMITED] = {"thp_cgroup_memory_limited", "gauge",
			 "1 when memory.max sets a limit, 0 for \"max\" (no sample: unknown)"},
	[CGM_PROCS] = {"thp_cgroup_processes", "gauge",
		       "processes in cgroup.procs of the cgroup and its descendants (kernel "
		       "threads excluded)"},
	[CGM_THP_OFF] = {"thp_cgroup_processes_thp_disabled", "gauge",
			 "of them, processes with THP_enabled 0 (prctl PR_SET_THP_DISABLE)"},
	[CGM_PROCS_UNKNOWN] = {"thp_cgroup_processes_thp_unknown", "gauge",
			       "of them, processes whose THP_enabled could not be read: "
			       "thp_cgroup_processes_thp_disabled is a lower bound when > 0"},
};

/* Value K of row R into *V; false: no sample (unknown, or not given by the kernel). */
static bool cgm_value(const struct cg_row *r, enum cgm k, uint64_t *v)
{
	const struct cg_node *n = r->node;
	static const enum memstat_field ms[] = {
		[CGM_ANON_THP] = MS_ANON_THP,
		[CGM_FILE_THP] = MS_FILE_THP,
		[CGM_SHMEM_THP] = MS_SHMEM_THP,
		[CGM_ANON] = MS_ANON,
		[CGM_FAULT_ALLOC] = MS_THP_FAULT_ALLOC,
		[CGM_COLLAPSE_ALLOC] = MS_THP_COLLAPSE_ALLOC,
	};
	switch (k) {
	case CGM_ANON_THP:
	case CGM_FILE_THP:
	case CGM_SHMEM_THP:
	case CGM_ANON:
	case CGM_FAULT_ALLOC:
	case CGM_COLLAPSE_ALLOC:
		*v = n->ms.f[ms[k]].v;
		return n->ms.f[ms[k]].present;
	case CGM_CURRENT:
		*v = n->current.v;
		return n->current.present;
	case CGM_MAX:
		*v = n->limit;
		return n->limit_known && n->limited;
	case CGM_LIMITED:
		*v = n->limited;
		return n->limit_known;
	case CGM_PROCS:
		*v = (uint64_t)r->nprocs;
		return r->procs_known;
	case CGM_THP_OFF:
		*v = (uint64_t)r->thp_off;
		return r->procs_known;
	case CGM_PROCS_UNKNOWN:
		*v = (uint64_t)r->procs_unknown;
		return r->procs_known;
	default:
		return false;
	}
}

void prom_render_cgroups(struct pbuf *b, const struct cg_report *r, size_t top)
{
	for (int k = 0; k < CGM_N; k++) {
		bool any = false;
		for (size_t i = 0; i < r->shown; i++) {
			uint64_t v;
			if (!cgm_value(&r->rows[i], (enum cgm)k, &v))
				continue;
			if (!any)
				prom_family(b, cgm[k].name, cgm[k].type, cgm[k].help);
			any = true;
			const char *lab[] = {"cgroup", r->rows[i].node->path, NULL};
			prom_line_u64(b, cgm[k].name, lab, v);
		}
	}
	const struct cg_tree *t = r->tree;
	prom_gauge_u64(b, "thpctl_cgroups_version",
		       "memory cgroup hierarchy read: 2 (v2), 1 (v1 memory controller), 0 none",
		       t ? (uint64_t)t->version : 0);
	prom_gauge_u64(b, "thpctl_cgroups_seen", "memory cgroups read in this scrape",
		       t ? (uint64_t)t->n : 0);
	prom_gauge_u64(b, "thpctl_cgroups_skipped",
		       "cgroups not read (over 4096, path too long or too deep)",
		       t ? (uint64_t)t->skipped : 0);
	prom_gauge_u64(b, "thpctl_cgroups_top_limit",
		       "--top-cgroups: the most cgroups exported (by anon THP)", top);
}
