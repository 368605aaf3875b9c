// SPDX-License-Identifier: MIT
#include "faults_clear.h"

#include <string.h>

#include "../util/clock.h"
#include "../util/stats.h"
#include "common.h"
#include "guard.h"

#define CLEAR_MAX_RUNS 16
/* 4K faults here run at ~0.2 GB/s (the VM hands freed memory back): 64 MiB keeps a run < 0.4 s */
#define CLEAR_MAX_SIZE (64ull << 20)
#define CLEAR_QUICK_KB 64 /* --quick (lab quick): the one mTHP size tried */

/*
 * One timed run: GB/s, or -1 on failure; *AHP_KB the region's AnonHugePages
 * (UINT64_MAX: smaps unread), FC its folios (*FC_ERR set when they could not be read).
 */
static double clear_once(const struct lab_ctx *ctx, uint64_t size, enum lab_mode mode,
			 uint64_t *ahp_kb, struct folio_counts *fc, bool *fc_err, bool folios)
{
	struct region reg = {0};
	if (region_map(&reg, size, ctx->pmd_size) ||
	    (mode != MODE_PLAIN && region_advise(&reg, mode))) {
		region_unmap(&reg);
		return -1;
	}
	uint64_t t0 = mono_ns();
	region_touch(&reg, 0, (size_t)ctx->page_size);
	uint64_t t1 = mono_ns();
	struct region_smaps rs;
	*ahp_kb = region_smaps_read(ctx->sr, 0, (uintptr_t)reg.p, reg.len, &rs) == 0
			  ? rs.t.kb[SM_ANON_HUGE]
			  : UINT64_MAX;
	if (folios && fc &&
	    region_folios(ctx->sr, (uintptr_t)reg.p, reg.len, ctx->page_size, fc) != 0) {
		memset(fc, 0, sizeof(*fc));
		*fc_err = true; /* unread: "-", never "0 of N" */
	}
	region_unmap(&reg);
	return t1 > t0 ? (double)size / (double)(t1 - t0) : -1;
}

/* RUNS runs of one page size into the proof "clear LABEL". */
static void clear_size(const struct lab_ctx *ctx, const struct lab_opts *o, struct lab_result *r,
		       uint64_t size, const char *label, enum lab_mode mode, int order)
{
	int runs = o->runs > CLEAR_MAX_RUNS ? CLEAR_MAX_RUNS : o->runs < 1 ? 1 : o->runs;
	double v[CLEAR_MAX_RUNS];
	int n = 0;
	uint64_t ahp = 0;
	struct folio_counts fc = {0};
	bool fc_err = false;
	for (int i = 0; i < runs; i++) {
		lab_progress(o, "faults: clear rate %s run %d/%d", label, i + 1, runs);
		double g =
			clear_once(ctx, size, mode, &ahp, &fc, &fc_err, order > 0 && i == runs - 1);
		if (g > 0)
			v[n++] = g;
	}
	char key[32], proof[96] = "";
	snprintf(key, sizeof(key), "clear %s", label);
	if (!n) {
		lab_proof(r, key, "failed to map or time");
		return;
	}
	double med = stats_median(v, (size_t)n), lo = v[0], hi = v[0];
	for (int i = 1; i < n; i++) {
		lo = v[i] < lo ? v[i] : lo;
		hi = v[i] > hi ? v[i] : hi;
	}
	if ((mode == MODE_MADV || mode == MODE_NOHUGE) && ahp == UINT64_MAX)
		lab_fmt(proof, sizeof(proof), "AnonHugePages - (smaps unread) of %llu kB",
			(unsigned long long)(size >> 10));
	else if (mode == MODE_MADV || mode == MODE_NOHUGE)
		lab_fmt(proof, sizeof(proof), "AnonHugePages %llu of %llu kB",
			(unsigned long long)ahp, (unsigned long long)(size >> 10));
	else if (ctx->root && fc_err)
		lab_fmt(proof, sizeof(proof), "kpageflags: order%d folios - (unread)", order);
	else if (ctx->root)
		lab_fmt(proof, sizeof(proof), "kpageflags: order%d folios %llu of %llu", order,
			(unsigned long long)fc.by_order[order],
			(unsigned long long)(size / ((uint64_t)ctx->page_size << order)));
	lab_proof(r, key, "%.2f GB/s (%.2f-%.2f over %d runs, measured); %s", med, lo, hi, n,
		  proof);
}

void faults_clear_rates(const struct lab_ctx *ctx, const struct lab_opts *o, struct lab_result *r,
			uint64_t size)
{
	size = size > CLEAR_MAX_SIZE ? CLEAR_MAX_SIZE : size;
	lab_proof(
		r, "clear rate",
		"perf bench mem mmap's form: %llu MiB faulted and cleared, one write per %ld-byte "
		"page, GB/s = bytes / ns, kernel %s (7.0 doubled the 2 MiB rate on some CPUs: "
		"11.76 -> 23.58 GB/s on AMD Genoa)",
		(unsigned long long)(size >> 20), ctx->page_size, ctx->feat->release);
	clear_size(ctx, o, r, size, "4K", MODE_NOHUGE, 0);
	bool pmd_always = !strcmp(lab_pmd_policy(ctx), "always");
	for (int i = 0; i < ctx->thp->nsizes; i++) {
		const struct thp_size *z = &ctx->thp->sizes[i];
		if (!z->enabled.present || z->size_kb << 10 >= ctx->pmd_size || z->order < 1 ||
		    (o->quick && z->size_kb != CLEAR_QUICK_KB))
			continue;
		char label[16];
		snprintf(label, sizeof(label), "%lluK", (unsigned long long)z->size_kb);
		if (!ctx->can_write) {
			lab_proof(r, "clear mTHP",
				  "skipped: needs root (each size set for its run)");
			break;
		}
		if (pmd_always && lab_set_enabled(ctx, "madvise"))
			break;
		pmd_always = false;
		if (lab_size_enabled(z->size_kb, "always")) {
			lab_proof(r, label, "could not set always");
			continue;
		}
		clear_size(ctx, o, r, size, label, MODE_PLAIN, z->order);
		lab_size_enabled(z->size_kb, z->enabled.selected);
	}
	char pmd[16];
	snprintf(pmd, sizeof(pmd), "%lluM", (unsigned long long)(ctx->pmd_size >> 20));
	clear_size(ctx, o, r, size, pmd, MODE_MADV, 0);
}
