// SPDX-License-Identifier: MIT
#include "folios.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../kernel/proc_thp.h"
#include "../util/buf.h"

void folio_geom_init(struct folio_geom *g, long page_size, uint64_t cont_kb)
{
	memset(g, 0, sizeof(*g));
	g->page_kb = page_size > 0 ? (uint64_t)page_size / 1024 : 4;
	/* a page table page holds page_size / 8 entries: 512 with 4 kB pages */
	g->pmd_order = __builtin_ctzll((uint64_t)(page_size > 0 ? page_size : 4096) / 8);
	g->cont_kb = cont_kb;
}

const char *folio_method_label(enum folio_method m)
{
	return folio_method_name(m);
}

bool folio_method_is_partial(enum folio_method m)
{
	return folio_method_partial(m);
}

void folio_sum(struct folio_acct *sum, const struct folio_acct *c)
{
	folio_acct_add(sum, c);
}

uint64_t folio_thp_pages(const struct folio_acct *c, enum folio_type t)
{
	return folio_acct_thp(c, t);
}

uint64_t folio_order_pages(const struct folio_acct *c, enum folio_type t, int order, int pmd_order)
{
	return folio_acct_order(c, t, order, pmd_order);
}

bool folio_acct_any(const struct folio_acct *c)
{
	return folio_acct_thp(c, FT_ANON) || folio_acct_thp(c, FT_FILE) || c->zero_pmd;
}

uint32_t folio_orders_used(const struct folio_acct *c, int pmd_order)
{
	uint32_t m = 0;
	for (int t = 0; t < FT_N; t++)
		for (int o = 0; o < FOLIO_ORDERS; o++)
			if (folio_acct_order(c, (enum folio_type)t, o, pmd_order))
				m |= 1u << o;
	return m;
}

double folio_share(const struct folio_acct *c, enum folio_type t, uint64_t pages)
{
	if (!c->rss[t])
		return -1;
	return (double)pages / (double)c->rss[t];
}

int folio_report_add(struct folio_report *r, const struct folio_vma *v)
{
	r->nvmas++;
	folio_acct_add(&r->total, &v->c);
	if (!folio_acct_any(&v->c))
		return 0;
	if (array_reserve(&r->vmas, &r->cap, r->n + 1, sizeof(*r->vmas), 16))
		return -ENOMEM;
	struct folio_vma_row *o = &r->vmas[r->n++];
	o->start = v->start;
	o->end = v->end;
	memcpy(o->perms, v->perms, sizeof(o->perms));
	vma_display_name(v->name, v->name_len, o->name, sizeof(o->name));
	o->c = v->c;
	return 0;
}

void folio_report_free(struct folio_report *r)
{
	free(r->vmas);
	r->vmas = NULL;
	r->n = r->cap = 0;
}

/* ---- underused ---- */

int underused_hist_init(struct underused_hist *h, int nsub)
{
	memset(h, 0, sizeof(*h));
	h->nsub = nsub;
	h->hist = calloc((size_t)nsub + 1, sizeof(*h->hist));
	return h->hist ? 0 : -ENOMEM;
}

void underused_hist_free(struct underused_hist *h)
{
	free(h->hist);
	h->hist = NULL;
}

void underused_hist_add(struct underused_hist *h, int zero)
{
	if (zero < 0)
		zero = 0;
	if (zero > h->nsub)
		zero = h->nsub;
	h->hist[zero]++;
	h->nthp++;
	h->zero += (uint64_t)zero;
}

void underused_hist_merge(struct underused_hist *into, const struct underused_hist *h)
{
	for (int z = 0; z <= h->nsub && z <= into->nsub; z++)
		into->hist[z] += h->hist[z];
	into->nthp += h->nthp;
	into->zero += h->zero;
}

void underused_split(const struct underused_hist *h, int max_ptes_none, uint64_t *thps,
		     uint64_t *subpages)
{
	*thps = *subpages = 0;
	/* mm/huge_memory.c thp_underused(): nothing at HPAGE_PMD_NR - 1 */
	if (max_ptes_none >= h->nsub - 1 || max_ptes_none < 0)
		return;
	for (int z = max_ptes_none + 1; z <= h->nsub; z++) {
		*thps += h->hist[z];
		*subpages += h->hist[z] * (uint64_t)z;
	}
}

void underused_thresholds(int nsub, int out[UNDERUSED_NTHRESH])
{
	out[0] = 0;
	out[1] = nsub / 8;
	out[2] = nsub / 4;
	out[3] = nsub / 2;
	out[4] = nsub - 1;
}

void underused_report_free(struct underused_report *r)
{
	for (size_t i = 0; i < r->n; i++)
		underused_hist_free(&r->vmas[i].h);
	free(r->vmas);
	r->vmas = NULL;
	r->n = r->cap = 0;
	underused_hist_free(&r->total);
}
