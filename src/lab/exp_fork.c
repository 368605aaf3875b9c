// SPDX-License-Identifier: MIT
/*
 * lab fork: populate S, time fork(), park the child on a pipe, then write
 * one byte per PMD-size region in the parent, timing each write. Since 5.8
 * (3917c80280c9) a write to a THP shared with another process splits the
 * writer's PMD and copies one base page (thp_split_pmd += writes,
 * thp_fault_alloc +0, Private_Dirty ~ writes x base page); older kernels
 * allocated and copied a whole huge page (thp_fault_alloc += writes). A
 * MADV_NOHUGEPAGE baseline shows what fork costs without THP. The verdict
 * comes from the deltas measured around the write phase.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../util/stats.h"
#include "common.h"

#define MAX_RUNS 64

struct fork_out {
	double fork_ms;
	struct summary w; /* per-write ns */
	size_t writes;
	uint64_t ahp_before, ahp_after, dirty_after, rss_after; /* kB, parent */
	uint64_t child_ahp;					/* kB */
	int child_rs_err;
	int64_t split_pmd, fault_alloc;
	bool collapsed; /* huge only through MADV_COLLAPSE */
	struct folio_counts fc;
	int fc_err;
};

/*
 * The child: touch nothing, wait for EOF on the pipe. Default signal
 * actions, so a ^C kills it instead of running the parent's guard handler.
 */
static void park(int rfd, int wfd)
{
	char c;
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	close(wfd);
	while (read(rfd, &c, 1) < 0 && errno == EINTR)
		;
	_exit(0);
}

static int fork_once(const struct lab_ctx *ctx, size_t size, enum lab_mode mode, bool folios,
		     double *samples, struct fork_out *out)
{
	struct region reg;
	struct region_smaps rs;
	memset(out, 0, sizeof(*out));
	out->fc_err = out->child_rs_err = -ENODATA;
	int rc = region_map(&reg, size, ctx->pmd_size);
	if (rc)
		return rc;
	if ((rc = region_advise(&reg, mode)))
		goto out;
	region_touch(&reg, 0, (size_t)ctx->page_size);
	if ((rc = region_smaps_read(ctx->sr, 0, (uintptr_t)reg.p, reg.len, &rs)))
		goto out;
	/* enabled=never: MADV_HUGEPAGE faulted no THP; MADV_COLLAPSE still can */
	if (mode == MODE_MADV && rs.t.kb[SM_ANON_HUGE] < (size >> 10) * 9 / 10 &&
	    ctx->feat->madv_collapse != TRI_NO && region_collapse(&reg) == 0 &&
	    region_smaps_read(ctx->sr, 0, (uintptr_t)reg.p, reg.len, &rs) == 0)
		out->collapsed = true;
	out->ahp_before = rs.t.kb[SM_ANON_HUGE];
	if (folios)
		out->fc_err =
			region_folios(ctx->sr, (uintptr_t)reg.p, reg.len, ctx->page_size, &out->fc);

	int pfd[2];
	if (pipe(pfd)) {
		rc = -errno;
		goto out;
	}
	fflush(NULL); /* nothing buffered may be written twice */
	uint64_t t0 = mono_ns();
	pid_t pid = fork();
	uint64_t t1 = mono_ns();
	if (pid == 0)
		park(pfd[0], pfd[1]);
	close(pfd[0]);
	if (pid < 0) {
		rc = -errno;
		close(pfd[1]);
		goto out;
	}
	out->fork_ms = (double)(t1 - t0) / 1e6;

	struct snap a = {0}, b = {0};
	snap_take(ctx->sr, &a);
	volatile char *p = (volatile char *)reg.p;
	size_t n = 0;
	for (size_t off = 0; off < reg.len; off += ctx->pmd_size, n++) {
		uint64_t w0 = mono_ns();
		p[off] = 2;
		uint64_t w1 = mono_ns();
		samples[n] = (double)(w1 - w0);
	}
	snap_take(ctx->sr, &b);
	out->writes = n;
	if (!snap_delta(&a, &b, "thp_split_pmd", &out->split_pmd))
		out->split_pmd = -1; /* unread: NaN in the table (fork_cells) */
	if (!snap_delta(&a, &b, "thp_fault_alloc", &out->fault_alloc))
		out->fault_alloc = -1;
	snap_free(&a);
	snap_free(&b);
	summarize(samples, n, &out->w);

	rc = region_smaps_read(ctx->sr, 0, (uintptr_t)reg.p, reg.len, &rs);
	out->ahp_after = rs.t.kb[SM_ANON_HUGE];
	out->dirty_after = rs.t.kb[SM_PRIVATE_DIRTY];
	out->rss_after = rs.t.kb[SM_RSS];
	struct region_smaps crs;
	if (!(out->child_rs_err = region_smaps_read(ctx->sr, pid, (uintptr_t)reg.p, reg.len, &crs)))
		out->child_ahp = crs.t.kb[SM_ANON_HUGE];

	/* release the child: EOF on its pipe */
	close(pfd[1]);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
out:
	region_unmap(&reg);
	return rc;
}

/* The proofs of MODE's last run L: parent and child smaps, folios before the fork. */
static void fork_proofs(const struct lab_ctx *ctx, struct lab_result *r, enum lab_mode mode,
			const struct fork_out *l)
{
	char key[40];
	snprintf(key, sizeof(key), "%s parent", lab_mode_name(mode));
	lab_proof(
		r, key,
		"smaps AnonHugePages %llu kB before fork%s, %llu kB after %zu writes; Private_Dirty %llu kB, Rss %llu kB",
		(unsigned long long)l->ahp_before, l->collapsed ? " (by MADV_COLLAPSE)" : "",
		(unsigned long long)l->ahp_after, l->writes, (unsigned long long)l->dirty_after,
		(unsigned long long)l->rss_after);
	snprintf(key, sizeof(key), "%s child", lab_mode_name(mode));
	if (l->child_rs_err)
		lab_proof(r, key, "smaps unreadable: %s", strerror(-l->child_rs_err));
	else
		lab_proof(r, key,
			  "smaps AnonHugePages %llu kB while parked (after the parent's writes)",
			  (unsigned long long)l->child_ahp);
	lab_folio_proof(ctx, r, lab_mode_name(mode), "before fork: ", &l->fc, l->fc_err);
}

/* Which COW the kernel did against what its version predicts. */
static void fork_verdict(const struct lab_ctx *ctx, struct lab_result *r, uint64_t size,
			 const int *n, double (*med)[2], const struct fork_out *last)
{
	size_t nw = size / ctx->pmd_size;
	/*
	 * Which COW the kernel did, from the deltas of the write phase. The
	 * counters are system-wide: allow a little noise from other processes.
	 */
	double w = (double)nw, split = med[6][0], alloc = med[7][0], dirty = med[5][0];
	uint64_t base_kb = (uint64_t)ctx->page_size >> 10;
	bool was_huge = (double)last[0].ahp_before >= (double)(size >> 10) * 9 / 10;
	/* split: one base page copied per write; copy: a whole PMD each */
	bool base_copies = dirty >= w * (double)base_kb / 2 && dirty <= w * (double)base_kb * 2;
	bool unread = isnan(split) || isnan(alloc) || isnan(dirty);
	const char *shape = !was_huge						? "no THP"
			    : unread						? "unread"
			    : split >= w * 0.9 && alloc <= w / 4 && base_copies ? "split"
			    : alloc >= w * 0.9					? "copy"
										: "unclear";
	const char *want = ctx->feat->cow_split == TRI_YES  ? "split"
			   : ctx->feat->cow_split == TRI_NO ? "copy"
							    : NULL;
	bool ok = want ? strcmp(shape, want) == 0
		       : strcmp(shape, "split") == 0 || strcmp(shape, "copy") == 0;
	/* no huge page to share is only expected where the policy gives none */
	if (!was_huge)
		ok = strcmp(lab_pmd_policy(ctx), "never") == 0;
	char match[96];
	if (was_huge && unread)
		lab_fmt(match, sizeof(match), "inconclusive: a counter or smaps could not be read");
	else if (!was_huge)
		lab_fmt(match, sizeof(match), "nothing to compare with the %s expectation",
			want ? want : "kernel's");
	else if (want)
		lab_fmt(match, sizeof(match), "%s the %s expectation for %s",
			ok ? "matches" : "DIFFERS from", want, ctx->feat->release);
	else
		lab_fmt(match, sizeof(match), "kernel version unknown");
	char forks[64] = "", ds[24], da[24];
	if (n[1] && med[0][0] > 0)
		lab_fmt(forks, sizeof(forks), "; fork %.2f ms huge vs %.2f ms small", med[0][0],
			med[0][1]);
	if (!was_huge)
		lab_verdict(
			r, ok,
			"no THP to share: the madv region had %llu of %llu kB huge before fork (%s); %s%s",
			(unsigned long long)last[0].ahp_before, (unsigned long long)(size >> 10),
			lab_thp_off_reason(ctx)[0] ? lab_thp_off_reason(ctx) : "fallbacks", match,
			forks);
	else
		lab_verdict(
			r, ok,
			"%s: %.0f writes -> host-wide thp_split_pmd %s, thp_fault_alloc %s, Private_Dirty %.0f kB (%.1f kB/write; base page %llu kB), parent AnonHugePages %llu -> %.0f kB, child %llu kB; %s%s",
			shape, w, lab_fmt_delta(ds, sizeof(ds), split),
			lab_fmt_delta(da, sizeof(da), alloc), dirty, dirty / w,
			(unsigned long long)base_kb, (unsigned long long)last[0].ahp_before,
			med[4][0], (unsigned long long)last[0].child_ahp, match, forks);
	r->inconclusive = was_huge && unread;
}

static int lab_fork(const struct lab_ctx *ctx, const struct lab_opts *o, struct lab_result *r)
{
	uint64_t size;
	if (lab_begin(ctx, o, 1ull << 30, r, &size,
		      "fork, then write one byte per PMD in the parent: COW split or copy"))
		return 0;
	int runs = o->runs > MAX_RUNS ? MAX_RUNS : o->runs;
	static const struct lab_coldef coldefs[8] = {
		{"fork", "ms"},		{"write", "ns"},	 {"write p99", "ns"},
		{"write max", "ns"},	{"AnonHugePages", "kB"}, {"Private_Dirty", "kB"},
		{"thp_split_pmd", "+"}, {"thp_fault_alloc", "+"}};
	int cols[8];
	lab_cols_add(r, coldefs, 8, cols);
	size_t nw = size / ctx->pmd_size;
	double *samples = malloc(nw * sizeof(*samples));
	if (!samples) {
		lab_skip(r, "out of memory");
		r->expected = false;
		return -ENOMEM;
	}
	const enum lab_mode modes[2] = {MODE_MADV, MODE_NOHUGE};
	const char *labels[2] = {"huge (madv)", "small (nohuge)"};
	double v[8][2][MAX_RUNS];
	struct fork_out last[2];
	int n[2] = {0, 0};
	bool failed[2] = {false, false};
	memset(last, 0, sizeof(last));
	for (int i = 0; i < runs; i++)
		for (int k = 0; k < 2; k++) {
			if (failed[k])
				continue;
			lab_progress_run(o, "fork", size, lab_mode_name(modes[k]), i, runs);
			/* the touch is not timed: warm once, later runs reuse what the last freed */
			if (i == 0 || o->state == STATE_COLD)
				lab_prepare_state(o->state, size);
			struct fork_out out;
			int rc = fork_once(ctx, size, modes[k], ctx->root && i == runs - 1, samples,
					   &out);
			if (rc) {
				lab_failed(r, lab_mode_name(modes[k]), rc);
				failed[k] = true;
				continue;
			}
			int j = n[k]++;
			v[0][k][j] = out.fork_ms;
			v[1][k][j] = out.w.median;
			v[2][k][j] = out.w.p99;
			v[3][k][j] = out.w.max;
			v[4][k][j] = (double)out.ahp_after;
			v[5][k][j] = (double)out.dirty_after;
			v[6][k][j] = out.split_pmd < 0 ? NAN : (double)out.split_pmd;
			v[7][k][j] = out.fault_alloc < 0 ? NAN : (double)out.fault_alloc;
			last[k] = out;
		}
	lab_progress_done(o);
	free(samples);
	double med[8][2] = {{0}};
	for (int k = 0; k < 2; k++) {
		if (!n[k])
			continue;
		int row = lab_row_add(r, labels[k]);
		for (int c = 0; c < 8; c++) {
			lab_cell_set(r, row, cols[c], v[c][k], (size_t)n[k]);
			if (row >= 0) /* no cell: no run could read it, unknown */
				med[c][k] = r->rows[row].c[cols[c]].present
						    ? r->rows[row].c[cols[c]].median
						    : NAN;
		}
		fork_proofs(ctx, r, modes[k], &last[k]);
	}
	if (!n[0]) {
		lab_verdict(r, false,
			    "UNEXPECTED: the huge region could not be measured (see proof)");
		return 0;
	}

	fork_verdict(ctx, r, size, n, med, last);
	return 0;
}

LAB_EXPERIMENT_DEFINE("fork", 40, lab_fork, "fork, then write one byte per PMD: COW split or copy",
		      .in_quick = true, .quick = {.size = (128ull << 20)});
