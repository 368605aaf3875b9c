/* SPDX-License-Identifier: MIT */
/* Renderers of `thpctl ps` and `thpctl maps`. */
#ifndef THPCTL_RENDER_PS_H
#define THPCTL_RENDER_PS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "../kernel/proc_thp.h"
#include "../model/alloc.h"
#include "../model/ledger.h"

/* One row of `ps`: the collected facts plus what the command derived. */
struct ps_row {
	struct proc_thp p;
	char user[32];
	const char *reason;
	bool denied;	       /* smaps not readable: only status facts are valid */
	struct thp_ledger led; /* ps --ledger */
	bool has_alloc;	       /* ps --ledger and --json: .alloc collected */
	struct alloc_fact alloc;
};

struct ps_report {
	struct ps_row *rows;
	size_t n;
	bool rollup;
	int denied;	      /* processes whose smaps could not be read */
	bool recorded;	      /* a recorded tree: "denied" means unreadable at capture */
	bool as_root;	      /* euid 0: "denied" means another namespace or an LSM */
	int errors;	      /* other read/parse failures */
	int damaged;	      /* rows kept with damaged fields shown unknown (status, smaps) */
	const char *policy;   /* effective PMD policy, NULL unknown */
	bool flags_absent;    /* kernel prints no VmFlags (< 3.8) */
	bool eligible_absent; /* no THPeligible (< 5.0) */
	bool ledger;	      /* --ledger: rows carry .led */
	int ledger_k;
	long long host_partial_thps; /* nr_anon_partially_mapped summed over sizes, -1 unknown */
	/* AnonHugePages of /proc/meminfo (host-wide, kB), beside the per-process sum */
	bool has_host_ahp;
	uint64_t host_ahp_kb;
};

void ps_render_text(FILE *f, const struct ps_report *r, bool color);
json_t *ps_to_json(const struct ps_report *r);

/* One VMA row of `maps`. */
struct maps_vma {
	uint64_t start, end;
	char perms[5];
	struct smaps_totals t;
	int thp_eligible;
	unsigned vmflags;
	bool has_vmflags;
	char name[VMA_NAME_LEN * 2];
};

struct maps_ancestor {
	long pid;
	char comm[COMM_LEN];
};

struct maps_report {
	long pid;
	struct proc_status st;
	struct maps_vma *vmas;
	size_t n;
	struct smaps_totals totals;
	struct thp_ledger led; /* what THP buys and costs it */
	/* THP_enabled 0: the chain of ancestors that also have 0, nearest first */
	struct maps_ancestor chain[32];
	int nchain;
	bool chain_cut;	      /* an ancestor could not be read */
	int stop_thp_enabled; /* THP_enabled of the first ancestor not in the chain: 1, or -1 unknown */
	bool partial;	      /* smaps ended mid-line: the VMAs shown may be incomplete */
};

void maps_render_text(FILE *f, const struct maps_report *r, bool color);
json_t *maps_to_json(const struct maps_report *r);

#endif
