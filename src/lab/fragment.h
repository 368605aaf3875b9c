/* SPDX-License-Identifier: MIT */
/*
 * The fragmenter: bring free memory to a state with almost no free blocks of
 * PMD order, for `lab fragment`, `lab faults --fragment` and `lab fallback
 * --fragment`. Root only (it changes defrag and compaction_proactiveness
 * through the guard, and pokes drop_caches).
 *
 * A plain 4 KiB fill does not get there: proactive compaction merges the
 * holes again and lazily initialised memory (deferred_init=lazy) hands out
 * fresh blocks on demand. So, with defrag=never and proactiveness 0:
 *  1. fill: fault fresh memory as PMD-size THPs, a piece (1 GiB) at a time,
 *     write every other base page and MADV_DONTNEED the others;
 *  2. split: MADV_COLD on the piece splits the now partially mapped THPs at
 *     once (the punched halves go back as order-0 pages that cannot merge),
 *     and drop_caches=2 (deferred-split shrinker) completes what is left;
 *  3. sink, right before each measurement: fault THPs, with defrag=never so
 *     nothing is compacted, until buddyinfo shows no free PMD-order block.
 * It holds at most MemAvailable (and the memory cgroup's headroom) minus a
 * margin of at least 2 GiB, minus what the experiment itself will map, and
 * stops early when MemAvailable falls to the margin. Everything is released
 * by frag_end() and at exit (the guard restores the settings on signals).
 */
#ifndef THPCTL_LAB_FRAGMENT_H
#define THPCTL_LAB_FRAGMENT_H

#include <stdbool.h>
#include <stdint.h>

#include "lab.h"
#include "region.h"

/* One phase of the fragmenter, for the table of `lab fragment`. */
struct frag_phase {
	char name[24];
	uint64_t free_pmd_blocks; /* buddyinfo: free blocks of PMD order or more */
	uint64_t mem_free_kb;
	uint64_t held; /* bytes resident in the fragmenter */
	double ms;     /* duration of the phase */
};

#define FRAG_MAX_PHASES 8

struct frag {
	const struct lab_ctx *ctx;
	const struct lab_opts *o;
	bool active;
	uint64_t budget;      /* bytes it may hold */
	uint64_t margin;      /* bytes always left to everyone else */
	uint64_t cg_headroom; /* memory cgroup limit - usage, 0 = no limit */
	char defrag[32];      /* as found, written back for the measurements */

	struct region fill; /* reserved VA; [0, fill_used) faulted */
	size_t fill_used;
	uint64_t fill_huge, fill_small;	    /* chunks that got a THP / fell back */
	int64_t split_cold, split_shrinker; /* thp_split_page deltas */

	struct region sink; /* reserved VA; [0, sink_used) faulted */
	size_t sink_used;
	uint64_t sink_huge, sink_small;
	int nsinks;

	uint64_t held; /* bytes resident */
	uint64_t peak;
	char stop[96]; /* why the fill stopped */

	int nphases;
	struct frag_phase phases[FRAG_MAX_PHASES];
	uint64_t blocks_start, blocks_last; /* free PMD-order blocks */
	int pm_fd, kpf_fd;
	int pidfd;
};

/*
 * Fragment free memory, leaving RESERVE bytes (the experiment's region) on
 * top of the margin. Needs ctx->can_write. Returns 0, -EPERM (not root),
 * -ENOMEM (the host cannot spare the memory: nothing held), -EOPNOTSUPP (the
 * PMD size is at never), or -errno; the reason is in F->stop. Proof lines via
 * frag_proofs().
 */
int frag_begin(const struct lab_ctx *ctx, const struct lab_opts *o, uint64_t reserve,
	       struct frag *f);

/*
 * Right before a measurement: grab the free PMD-order blocks that appeared
 * since (freed regions, compaction, lazy init). Returns the free PMD-order
 * blocks left.
 */
uint64_t frag_sink(struct frag *f);

/* Release everything (settings go back with guard_restore). Idempotent. */
void frag_end(struct frag *f);

/* Add the fragmenter's proof lines to R (keys "fragmenter", "fragmenter fill"...). */
void frag_proofs(const struct frag *f, struct lab_result *r);

/* Free blocks of PMD order or more (buddyinfo, all zones but DMA); 0 when unreadable. */
uint64_t frag_free_pmd_blocks(const struct lab_ctx *ctx);

/* Per-chunk evidence, root only: whether the PMD at ADDR is one PMD-size THP. */
struct hp_probe {
	int pm, kpf;
	long page_size;
	uint64_t pmd_pages;
};
/* Returns 0 or -errno (-EPERM or -EACCES when not root). */
int hp_probe_open(const struct lab_ctx *ctx, struct hp_probe *p);
/* 1 huge, 0 not (or not present), -errno. */
int hp_probe_huge(const struct hp_probe *p, const void *addr);
void hp_probe_close(struct hp_probe *p);

/*
 * frag_begin for an experiment: true when the fragmenter runs; otherwise it is
 * ended again, R gets the proof "fragment: skipped: WHY" and is marked partial.
 */
bool frag_start(const struct lab_ctx *ctx, const struct lab_opts *o, uint64_t reserve,
		struct frag *f, struct lab_result *r);

#endif
