/* SPDX-License-Identifier: MIT */
/* `thpctl ps` inside: its options, shared by cmd/ps.c and cmd/ps_folios.c (--folios). */
#ifndef THPCTL_CMD_PS_INT_H
#define THPCTL_CMD_PS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cmd.h"
#include "ledger.h"

/* qsort order of two u64 keys, the larger first */
static inline int cmp_u64_desc(uint64_t a, uint64_t b)
{
	return a < b ? 1 : a > b ? -1 : 0;
}

/* --sort's keys: compared as a number, not a string per comparison */
enum ps_sort { SORT_AHP, SORT_RSS, SORT_SHARE, SORT_HG, SORT_PID, SORT_COMM, SORT_N };

struct ps_opts {
	bool all, rollup;
	int sort; /* enum ps_sort */
	pid_t *pids;
	size_t npids, pids_cap;
	long uid; /* -1 any */
	const char *user;
	uint64_t min_ahp_kb;
	const char *cgroup; /* --cgroup: only cg_pids (sorted) */
	pid_t *cg_pids;
	size_t ncg;
	bool folios;
	uint64_t cont_kb;
	bool ledger, by_cgroup;
	struct ledger_req q;
};

/* Whether PID is selected by O's --pid and --cgroup (every PID when neither). */
bool ps_wanted_pid(const struct ps_opts *o, pid_t pid);

/* `ps --folios`: memory by folio size of the processes O selects. Returns the exit code. */
int ps_folios(struct globals *g, const struct ps_opts *o);

#endif
