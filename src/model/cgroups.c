// SPDX-License-Identifier: MIT
#include "cgroups.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum cg_tri cg_near_limit_thp(const struct cg_node *n, bool *has_use, double *use)
{
	const struct opt_u64 *thp = &n->ms.f[MS_ANON_THP];
	*has_use = false;
	*use = 0;
	if (n->limit_known && !n->limited)
		return CG_NO;
	if (n->limit_known && n->current.present && n->limit > 0) {
		*has_use = true;
		*use = (double)n->current.v / (double)n->limit;
		if (*use < CG_NEAR_LIMIT)
			return CG_NO;
		if (!thp->present)
			return CG_UNKNOWN;
		return thp->v > 0 ? CG_YES : CG_NO;
	}
	/* limit or usage unknown: only "no anon THP" decides */
	if (thp->present && thp->v == 0)
		return CG_NO;
	return CG_UNKNOWN;
}

enum cg_why cg_current_why(const struct cg_tree *t, const struct cg_node *n)
{
	if (n->depth == 0 && t->version == 2 && !n->current.present)
		return CGW_V2_ROOT; /* the kernel makes no memory.current at the v2 root */
	if (!n->current.present)
		return CGW_UNKNOWN;
	/* v1 computes the root's from page counts (6.18: the host's NR_FILE_PAGES +
	 * NR_ANON_MAPPED, = Buffers + Cached + AnonPages of meminfo; 3.x: its recursive cache +
	 * rss), never kernel memory, which a child's page counter charges */
	return n->depth == 0 && t->version == 1 ? CGW_V1_ROOT_EST : CGW_SHOWN;
}

static int cmp_row(const void *a, const void *b)
{
	const struct cg_row *x = a, *y = b;
	const struct opt_u64 *tx = &x->node->ms.f[MS_ANON_THP], *ty = &y->node->ms.f[MS_ANON_THP];
	if (tx->present != ty->present)
		return tx->present ? -1 : 1;
	if (tx->present && tx->v != ty->v)
		return tx->v > ty->v ? -1 : 1;
	return strcmp(x->node->path, y->node->path);
}

int cg_report_build(const struct cg_tree *t, const struct cg_procs *procs, struct opt_u64 fallback,
		    size_t top, struct cg_report *out)
{
	memset(out, 0, sizeof(*out));
	out->tree = t;
	out->fallback_charge = fallback;
	if (!t->n)
		return 0;
	out->rows = calloc(t->n, sizeof(*out->rows));
	if (!out->rows)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++) {
		const struct cg_node *n = &t->nodes[i];
		struct cg_row *r = &out->rows[i];
		r->node = n;
		r->procs_known = procs != NULL;
		/* pre-order: the descendants of node i are the deeper nodes after it */
		for (size_t j = i; procs && j < t->n && (j == i || t->nodes[j].depth > n->depth);
		     j++) {
			if (t->nodes[j].procs_err)
				r->procs_known = false;
			r->nprocs += procs[j].n;
			r->thp_off += procs[j].thp_off;
			r->procs_unknown += procs[j].unknown;
			r->procs_unrecorded += procs[j].unrecorded;
		}
		const struct opt_u64 *anon = &n->ms.f[MS_ANON], *thp = &n->ms.f[MS_ANON_THP];
		if (anon->present && thp->present && anon->v > 0) {
			r->has_share = true;
			r->share = (double)thp->v / (double)anon->v;
		}
		r->share_why = r->has_share		       ? CGW_SHOWN
			       : anon->present && anon->v == 0 ? CGW_NO_ANON
							       : CGW_UNKNOWN;
		r->current_why = cg_current_why(t, n);
		r->near_limit_thp = cg_near_limit_thp(n, &r->has_use, &r->use);
		r->use_why = r->has_use			     ? CGW_SHOWN
			     : n->limit_known && !n->limited ? CGW_NO_LIMIT
							     : CGW_UNKNOWN;
		out->nflagged += r->near_limit_thp == CG_YES;
	}
	qsort(out->rows, t->n, sizeof(*out->rows), cmp_row);
	out->n = t->n;
	out->shown = top && top < t->n ? top : t->n;
	return 0;
}

void cg_report_free(struct cg_report *r)
{
	free(r->rows);
	memset(r, 0, sizeof(*r));
}
