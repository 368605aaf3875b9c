// SPDX-License-Identifier: MIT
/*
 * lab fragment: run the fragmenter alone (root) and show, per phase, the
 * free PMD-order blocks buddyinfo reports, MemFree and what it holds.
 */
#include <string.h>

#include "common.h"
#include "fragment.h"

static int lab_fragment(const struct lab_ctx *ctx, const struct lab_opts *o, struct lab_result *r)
{
	snprintf(
		r->title, sizeof(r->title),
		"fill with THPs, punch every other base page, sink: free PMD-order blocks per phase");
	r->runs = 1;
	if (!ctx->can_write) {
		lab_skip(
			r,
			"%s: the fragmenter sets defrag and compaction_proactiveness for the run and writes drop_caches",
			ctx->no_write);
		return 0;
	}
	static struct frag f;
	int rc = frag_begin(ctx, o, 0, &f);
	if (rc) {
		frag_end(&f);
		lab_skip(r, "fragmenter not run: %s", f.stop);
		return 0;
	}
	lab_progress(o, "fragment: sink");
	uint64_t left = frag_sink(&f);
	/* what the held memory looks like, before it goes */
	uint64_t held = f.held;
	frag_end(&f);
	lab_progress_done(o);

	int c_blk = lab_col_add(r, "free PMD-order blocks", "");
	int c_free = lab_col_add(r, "MemFree", "MiB");
	int c_held = lab_col_add(r, "held", "MiB");
	int c_ms = lab_col_add(r, "time", "ms");
	for (int i = 0; i < f.nphases; i++) {
		const struct frag_phase *ph = &f.phases[i];
		int row = lab_row_add(r, ph->name);
		lab_cell_set1(r, row, c_blk, (double)ph->free_pmd_blocks);
		lab_cell_set1(r, row, c_free, (double)ph->mem_free_kb / 1024);
		lab_cell_set1(r, row, c_held, (double)ph->held / (1 << 20));
		lab_cell_set1(r, row, c_ms, ph->ms);
	}
	frag_proofs(&f, r);
	char h[32];
	lab_fmt_size(h, sizeof(h), held);
	/* "almost none": at most 1% of what was free, and a handful */
	uint64_t few = f.blocks_start / 100 > 8 ? f.blocks_start / 100 : 8;
	bool ok = left <= few;
	if (ok)
		lab_verdict(
			r, true,
			"as expected: free PMD-order blocks %llu -> %llu while holding %s (every other base page of the filled memory, plus the sink); %llu free again once released (proof: buddyinfo, thp_split_page deltas)",
			(unsigned long long)f.blocks_start, (unsigned long long)left, h,
			(unsigned long long)f.blocks_last);
	else
		lab_verdict(
			r, false,
			"UNEXPECTED: %llu of %llu free PMD-order blocks remain while holding %s; the fill stopped: %s",
			(unsigned long long)left, (unsigned long long)f.blocks_start, h, f.stop);
	return 0;
}

LAB_EXPERIMENT_DEFINE("fragment", 110, lab_fragment,
		      "fragment memory (root) and show free PMD-order blocks",
		      .host = {"defrag=never and vm/compaction_proactiveness=0 while it holds "
			       "most free memory",
			       20, 20, false, NULL});
