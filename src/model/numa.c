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
		out->why_unknown =
			"the CPUs its threads may run on (Cpus_allowed_list) are unknown";
		return;
	}
	if (!any_cpus) {
		out->why_unknown = "no node's cpulist was readable";
		return;
	}
	if (!out->allowed) {
		out->why_unknown = "its allowed CPUs are on no listed node";
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
		out->why_unknown = "the THP pages of unknown node could put most of it remote";
}
