// SPDX-License-Identifier: MIT
#include "shot.h"

#include "common.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/prctl.h>

int shot_take(const struct lab_ctx *ctx, const struct shot_spec *sp, struct shot *out)
{
	struct region reg;
	memset(out, 0, sizeof(*out));
	out->fc_err = -ENODATA;
	if ((out->err = region_map(&reg, sp->size, ctx->pmd_size)))
		return out->err;
	if ((out->err = region_advise(&reg, sp->mode))) {
		region_unmap(&reg);
		return out->err;
	}
	out->thp_enabled = prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) ? 0 : 1;
	if (sp->snaps)
		snap_take(ctx->sr, &out->a);
	long f0 = minflt_self();
	uint64_t t0 = mono_ns();
	if (sp->touch)
		sp->touch(&reg, sp->arg);
	else
		out->touches = region_touch(&reg, 0, sp->stride);
	if (sp->mode == MODE_COLLAPSE)
		out->err = region_collapse(&reg);
	uint64_t t1 = mono_ns();
	out->faults = minflt_self() - f0;
	out->ms = (double)(t1 - t0) / 1e6;
	if (sp->snaps)
		snap_take(ctx->sr, &out->b);
	int r = region_smaps_read(ctx->sr, 0, (uintptr_t)reg.p, reg.len, &out->rs);
	if (r && !out->err) {
		out->err = r;
		out->smaps_err = true;
	}
	if (sp->inspect)
		sp->inspect(&reg, sp->arg);
	if (sp->folios)
		out->fc_err =
			region_folios(ctx->sr, (uintptr_t)reg.p, reg.len, ctx->page_size, &out->fc);
	region_unmap(&reg);
	return out->err;
}

void shot_free(struct shot *s)
{
	snap_free(&s->a);
	snap_free(&s->b);
}

double shot_delta(const struct shot *s, const char *name)
{
	int64_t d;
	return snap_delta(&s->a, &s->b, name, &d) ? (double)d : NAN;
}

void shot_fail_proof(struct lab_result *r, const char *label, const struct shot *s)
{
	lab_proof(r, label, "%s: %s", s->smaps_err ? "smaps" : "failed", strerror(-s->err));
	r->partial = true;
}

int shot_take_or_fail(const struct lab_ctx *ctx, const struct shot_spec *sp, struct shot *out,
		      struct lab_result *r, const char *label)
{
	int rc = shot_take(ctx, sp, out);
	if (!rc)
		return 0;
	shot_fail_proof(r, label, out);
	shot_free(out);
	return rc;
}

void shot_keep(struct shot *last, struct shot *out)
{
	shot_free(out);
	*last = *out;
}

void shot_runs(const struct lab_ctx *ctx, const struct lab_opts *o, struct lab_result *r,
	       const struct shot_spec *sp, const struct shot_runs *rs)
{
	int runs = o->runs > rs->max_runs ? rs->max_runs : o->runs;
	const char *mode = lab_mode_name(sp->mode);
	char sz[32];
	lab_fmt_size(sz, sizeof(sz), sp->size);
	for (int i = 0; i < runs; i++) {
		lab_progress(o, "%s %s%s: %s run %d/%d", rs->name, sz, rs->f ? " fragmented" : "",
			     mode, i + 1, runs);
		lab_run_prepare(o, sp->size, rs->f, rs->left_max);
		struct shot s;
		if (shot_take_or_fail(ctx, sp, &s, r, mode))
			break;
		rs->record(rs->arg, &s);
		shot_free(&s);
	}
}
