/* SPDX-License-Identifier: MIT */
/*
 * A snapshot of every writable THP knob (top level, khugepaged/ settings,
 * hugepages-<size>kB/); its JSON form is in render/snapshot.h. Values are
 * the words one writes back (the bracketed word of a choice file). Counters
 * and read-only files are not saved. Restore goes through
 * settings_plan (validated against the running kernel; knobs it lacks are
 * skipped and reported).
 */
#ifndef THPCTL_SNAPSHOT_H
#define THPCTL_SNAPSHOT_H

#include "settings_plan.h"

#define SNAPSHOT_FORMAT 1

struct snapshot {
	char kernel[96];
	char date[40];
	char host[72];
	int n;
	struct knob_kv kv[PLAN_MAX];
	int nbad; /* writable knobs whose value could not be read or parsed */
	char bad[PLAN_MAX][KNOB_KEY_LEN]; /* their keys (not in kv) */
};

/* The writable knobs of K. Returns 0, or -EINVAL if a value is malformed (skipped, counted in *NBAD). */
int snapshot_from_knobs(const struct thp_knobs *k, struct snapshot *s, int *nbad);

struct snap_diff {
	char key[KNOB_KEY_LEN];
	char file[PLAN_VALUE_LEN]; /* "" = not in the file */
	char cur[PLAN_VALUE_LEN];  /* "" = not on this kernel, or unreadable */
	bool cur_unreadable;	   /* the kernel has the knob but its value was unreadable */
};

/*
 * The knobs whose value differs between FILE and CUR, or that only one of
 * them has: FILE's order, then CUR's extra keys. Returns the number written
 * to OUT (at most MAX).
 */
int snapshot_diff(const struct snapshot *file, const struct snapshot *cur, struct snap_diff *out,
		  int max);

#endif
