/* SPDX-License-Identifier: MIT */
/*
 * The members a --sysroot bundle's extraction skipped (kernel/sysroot.h sr_skips), as
 * facts: the first names (escaped) and how many in all. A replay that skipped any is
 * partial; render/skips.c words it for every command.
 */
#ifndef THPCTL_MODEL_SKIPS_H
#define THPCTL_MODEL_SKIPS_H

#include <stdbool.h>
#include <stddef.h>

#include "../kernel/host_snapshot.h"
#include "../kernel/sysroot.h"

struct bundle_skips {
	unsigned long total;	    /* all the members skipped */
	size_t n;		    /* names held: the first min(total, SKIPS_MAX) */
	char names[SKIPS_MAX][128]; /* escaped (util/esc.h) */
};

/* SK (a sysroot's, a snapshot's or a cgroup tree's) as facts into OUT. */
void bundle_skips_of(const struct sr_skips *sk, struct bundle_skips *out);

/* Whether any member was skipped: the replay is partial. */
static inline bool bundle_skips_any(const struct bundle_skips *s)
{
	return s->total > 0;
}

/* Whether H is partial: a file not read or parsed, or a bundle member not extracted. */
static inline bool host_snapshot_partial(const struct host_snapshot *h)
{
	return h->nmissing > 0 || h->skips.n > 0;
}

#endif
