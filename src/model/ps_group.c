// SPDX-License-Identifier: MIT
#include "ps_group.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static bool same_key(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static int cmp_group(const void *a, const void *b)
{
	const struct psg_row *x = a, *y = b;
	if (!x->key != !y->key)
		return x->key ? -1 : 1;
	if (x->ahp_kb != y->ahp_kb)
		return x->ahp_kb > y->ahp_kb ? -1 : 1;
	return x->key ? strcmp(x->key, y->key) : 0;
}

int psg_build(const struct psg_in *in, size_t n, struct psg_row **out, size_t *nout)
{
	*out = NULL;
	*nout = 0;
	if (!n)
		return 0;
	struct psg_row *g = calloc(n, sizeof(*g));
	if (!g)
		return -ENOMEM;
	size_t ng = 0;
	u128 total = 0; /* sums of u64s: exact */
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;
		while (k < ng && !same_key(g[k].key, in[i].key))
			k++;
		if (k == ng)
			g[ng++].key = in[i].key;
		g[k].n++;
		const struct smaps_totals *t = &in[i].p->t;
		if (in[i].denied || !smaps_has(t, SM_ANON_HUGE)) {
			g[k].unknown++;
			continue;
		}
		g[k].ahp_kb += t->kb[SM_ANON_HUGE];
		g[k].rss_kb += smaps_has(t, SM_RSS) ? t->kb[SM_RSS] : 0;
		g[k].anon_kb += smaps_has(t, SM_ANONYMOUS) ? t->kb[SM_ANONYMOUS] : 0;
		total += t->kb[SM_ANON_HUGE];
	}
	for (size_t k = 0; k < ng; k++) {
		g[k].share = g[k].anon_kb ? (double)g[k].ahp_kb / (double)g[k].anon_kb : -1;
		if (g[k].share > 1)
			g[k].share = 1;
		g[k].of_total = total ? (double)g[k].ahp_kb / (double)total : -1;
		g[k].total_ahp_kb = total;
		if (g[k].unknown == g[k].n) /* nothing of it read: unknown, not 0 */
			g[k].share = g[k].of_total = -1;
	}
	qsort(g, ng, sizeof(*g), cmp_group);
	*out = g;
	*nout = ng;
	return 0;
}
