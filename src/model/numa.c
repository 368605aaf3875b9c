// SPDX-License-Identifier: MIT
#include "numa.h"

#include <string.h>

static bool shares_cpu(const struct cpuset *a, const struct cpuset *b)
{
	for (size_t i = 0; i < sizeof(a->w) / sizeof(a->w[0]); i++)
		if (a->w[i] & b->w[i])
			return true;
	return false;
}

void numa_split_build(const struct folio_acct *c, const struct numa_nodes *m,
		      const struct cpuset *allowed, struct numa_split *out)
{
	memset(out, 0, sizeof(*out));
	memcpy(out->pages, c->thp_node, sizeof(out->pages));
	out->unknown = c->thp_node_unknown;
	out->total = out->unknown;
	for (int n = 0; n < FOLIO_NODES; n++)
		out->total += out->pages[n];
	out->remote_share = -1;
	bool any_cpus = false;
	for (int i = 0; m && allowed && i < m->nnodes; i++) {
		if (!m->has_cpus[i] || m->id[i] >= 64)
			continue;
		any_cpus = true;
		if (shares_cpu(&m->cpus[i], allowed))
			out->allowed |= 1ull << m->id[i];
	}
	out->allowed_known = any_cpus && out->allowed;
	if (!out->total) {
		out->remote_thp = NUMA_NO; /* no THP: nothing can sit on a remote node */
		return;
	}
	out->remote_thp = NUMA_UNKNOWN;
	if (!allowed) {
		out->why_unknown = NU_NO_ALLOWED;
		return;
	}
	if (!any_cpus) {
		out->why_unknown = NU_NO_CPULIST;
		return;
	}
	if (!out->allowed) {
		out->why_unknown = NU_NOT_ON_NODE;
		return;
	}
	for (int n = 0; n < FOLIO_NODES; n++)
		if (n >= 64 || !(out->allowed >> n & 1))
			out->remote += out->pages[n];
	out->remote_share = (double)out->remote / (double)out->total;
	if (out->remote_share > NUMA_REMOTE_SHARE)
		out->remote_thp = NUMA_YES;
	else if ((double)(out->remote + out->unknown) / (double)out->total <= NUMA_REMOTE_SHARE)
		out->remote_thp = NUMA_NO;
	else
		out->why_unknown = NU_UNKNOWN_TIPS;
}

enum numa_missing numa_missing(const struct numa_nodes *m, bool partial)
{
	if (partial)
		return NM_NO_PFNS;
	if (!m || !m->nnodes)
		return NM_NO_NODES;
	if (!m->block_bytes || !m->n)
		return NM_NO_BLOCK_MAP;
	return NM_NONE;
}

bool numa_node_listed(const struct numa_nodes *m, int n)
{
	return numa_index(m, n) >= 0;
}
