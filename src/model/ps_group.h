/* SPDX-License-Identifier: MIT */
/*
 * `thpctl ps --by cgroup`: the process table summed per group (a memory cgroup
 * path). Pure: the caller gives each process's group key. No I/O.
 */
#ifndef THPCTL_MODEL_PS_GROUP_H
#define THPCTL_MODEL_PS_GROUP_H

#include "../util/wide.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../kernel/proc_thp.h"

/* One process: its group KEY (NULL: not found in any group) and what ps read. */
struct psg_in {
	const char *key;
	const struct proc_thp *p;
	bool denied; /* smaps/smaps_rollup unreadable: only counted */
};

/* One group. Sizes in kB: sums over the processes whose smaps was read. */
struct psg_row {
	const char *key;	      /* NULL: processes whose group is unknown */
	int n;			      /* processes */
	int unknown;		      /* of them, smaps unreadable: the sums leave them out */
	u128 ahp_kb, rss_kb, anon_kb; /* AnonHugePages, Rss, Anonymous: exact sums */
	double share;	   /* ahp / anon, 0..1; -1 when anon is 0 or no process was read */
	double of_total;   /* ahp / the sum over all groups; -1 when that is 0 or none read */
	u128 total_ahp_kb; /* that sum over all groups (of_total's denominator) */
};

/*
 * Group the N processes of IN by key into *OUT (malloc'd, *NOUT rows), sorted
 * by AnonHugePages descending, then key (the unknown group last). Keys are
 * compared as strings and not copied: they must outlive *OUT. Returns 0 or
 * -ENOMEM.
 */
int psg_build(const struct psg_in *in, size_t n, struct psg_row **out, size_t *nout);

#endif
