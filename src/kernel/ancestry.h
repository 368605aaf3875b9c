/* SPDX-License-Identifier: MIT */
/*
 * Who set prctl(PR_SET_THP_DISABLE) for a process: the flag is inherited over
 * fork and kept across exec (3.15+; an mm flag since 4.13), so walk PPid up
 * while THP_enabled stays 0. Shared by `maps` and `why`.
 */
#ifndef THPCTL_ANCESTRY_H
#define THPCTL_ANCESTRY_H

#include <stdbool.h>

#include "proc_status.h"
#include "sysroot.h"

#define THP_CHAIN_MAX 32

struct thp_ancestor {
	long pid;
	char comm[COMM_LEN];
};

struct thp_chain {
	struct thp_ancestor a[THP_CHAIN_MAX]; /* ancestors with THP_enabled 0, nearest first */
	int n;
	bool cut;	      /* an ancestor's status could not be read */
	int stop_thp_enabled; /* THP_enabled of the first ancestor not in the chain: 1, or -1 unknown */
	long stop_pid;	      /* that ancestor (0 unknown) and its name */
	char stop_comm[COMM_LEN];
};

/* Walk from PPID upwards while THP_enabled is 0, using B as scratch. */
void thp_chain_walk(const struct sysroot *sr, struct buf *b, long ppid, struct thp_chain *c);

#endif
