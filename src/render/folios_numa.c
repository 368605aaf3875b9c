// SPDX-License-Identifier: MIT
/* THP by NUMA node in `maps --folios` and `ps --folios` (render/folios.h, model/numa.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "folios.h"
#include "json.h"
#include "table.h"
#include "../util/names.h"

/* "0:12.0 MiB (100.0%) 1:..." for the nodes of M (and any other node holding pages). */
static void nodes_text(char *out, size_t n, const struct numa_split *s, const struct folio_geom *g)
{
	size_t len = 0;
	out[0] = '\0';
	for (int k = 0; k < FOLIO_NODES && len < n; k++) {
		if (!s->pages[k])
			continue;
		char sz[32];
		fmt_kb(sz, sizeof(sz), folio_kb(g, s->pages[k]));
		len += (size_t)snprintf(out + len, n - len, "%snode%d %s (%.1f%%)", len ? ", " : "",
					k, sz, 100.0 * (double)s->pages[k] / (double)s->total);
	}
	if (s->unknown && len < n) {
		char sz[32];
		fmt_kb(sz, sizeof(sz), folio_kb(g, s->unknown));
		snprintf(out + len, n - len, "%sunknown node %s", len ? ", " : "", sz);
	}
}

static void allowed_text(char *out, size_t n, const struct numa_split *s)
{
	size_t len = 0;
	out[0] = '\0';
	if (!s->allowed_known) {
		snprintf(out, n, "-");
		return;
	}
	for (int k = 0; k < 64 && len < n; k++)
		if (s->allowed >> k & 1)
			len += (size_t)snprintf(out + len, n - len, "%s%d", len ? "," : "", k);
}

/* Why per-node figures are missing (model/numa.c decides), or NULL when they are there. */
static const char *missing_text(const struct numa_nodes *m, bool partial)
{
	static const char *const words[] = {
		[NM_NO_PFNS] = "PFNs not visible (run as root)",
		[NM_NO_NODES] = "no NUMA node directory",
		[NM_NO_BLOCK_MAP] = "no memory block map (memory/block_size_bytes, node*/memory*)",
	};
	return ENUM_NAME(words, numa_missing(m, partial), NULL);
}

/* Why the remote-THP finding is inconclusive, NULL when it is not. */
static const char *unknown_text(enum numa_unknown u)
{
	static const char *const words[] = {
		[NU_NO_ALLOWED] = "the CPUs its threads may run on (Cpus_allowed_list) are unknown",
		[NU_NO_CPULIST] = "no node's cpulist was readable",
		[NU_NOT_ON_NODE] = "its allowed CPUs are on no listed node",
		[NU_UNKNOWN_TIPS] = "the THP pages of unknown node could put most of it remote",
	};
	return ENUM_NAME(words, u, NULL);
}

void folio_numa_render_text(FILE *f, const struct numa_nodes *m, const struct folio_acct *c,
			    const struct cpuset *allowed, const struct folio_geom *g, bool partial,
			    bool color)
{
	const char *miss = missing_text(m, partial);
	if (miss) {
		fprintf(f, "THP by NUMA node: - (%s)\n", miss);
		return;
	}
	struct numa_split s;
	numa_split_build(c, m, allowed, &s);
	if (!s.total) {
		fprintf(f, "THP by NUMA node: no THP (%d node%s)\n", m->nnodes,
			m->nnodes == 1 ? "" : "s");
		return;
	}
	char nodes[512], al[256];
	nodes_text(nodes, sizeof(nodes), &s, g);
	allowed_text(al, sizeof(al), &s);
	fprintf(f,
		"THP by NUMA node (frame -> memory block -> node): %s; threads may run on node %s\n",
		nodes, al);
	if (s.remote_thp == NUMA_YES) {
		char sz[32];
		fmt_kb(sz, sizeof(sz), folio_kb(g, s.remote));
		fprintf(f,
			"  %s[warn] numa-remote-thp:%s %.1f%% of its THP (%s) is on nodes its threads "
			"may not run on (allowed: node %s): every access to it crosses the "
			"interconnect\n",
			col_yellow(color), col_reset(color), 100.0 * s.remote_share, sz, al);
	} else if (s.remote_thp == NUMA_UNKNOWN) {
		fprintf(f, "  [?] numa-remote-thp: inconclusive: %s\n",
			unknown_text(s.why_unknown));
	}
}

json_t *folio_numa_to_json(const struct numa_nodes *m, const struct folio_acct *c,
			   const struct cpuset *allowed, const struct folio_geom *g, bool partial)
{
	json_t *o = json_object();
	const char *miss = missing_text(m, partial);
	if (miss) {
		json_put(o, "unknown_why", json_str(miss));
		return o;
	}
	struct numa_split s;
	numa_split_build(c, m, allowed, &s);
	json_t *by = json_object(), *al = json_array();
	char k[16];
	for (int n = 0; n < FOLIO_NODES; n++)
		if (s.pages[n] || numa_node_listed(m, n)) {
			snprintf(k, sizeof(k), "%d", n);
			json_put(by, k, json_u64(folio_kb(g, s.pages[n]) * 1024));
		}
	json_put(o, "thp_bytes_by_node", by);
	json_put(o, "thp_bytes_unknown_node", json_u64(folio_kb(g, s.unknown) * 1024));
	for (int n = 0; s.allowed_known && n < 64; n++)
		if (s.allowed >> n & 1)
			json_array_append_new(al, json_integer(n));
	json_put(o, "allowed_nodes", s.allowed_known ? al : (json_decref(al), json_null()));
	json_put(o, "remote_share", s.remote_share >= 0 ? json_real(s.remote_share) : json_null());
	json_put(o, "remote_thp",
		 s.remote_thp == NUMA_UNKNOWN ? json_null()
					      : json_boolean(s.remote_thp == NUMA_YES));
	if (s.why_unknown)
		json_put(o, "unknown_why", json_str(unknown_text(s.why_unknown)));
	return o;
}

void folio_ps_numa_render_text(FILE *f, const struct folio_ps_report *r, bool color)
{
	bool partial = folio_method_is_partial(r->method);
	const char *miss = missing_text(r->numa, partial);
	if (miss) {
		fprintf(f, "THP by NUMA node: - (%s)\n", miss);
		return;
	}
	static const char *const hdr[] = {"PID", "COMM", "THP BY NODE", "ALLOWED", "REMOTE"};
	struct table *t = table_new(5, hdr, "rLlll");
	if (!t)
		return;
	int flagged = 0;
	for (size_t i = 0; i < r->n; i++) {
		const struct folio_ps_row *row = &r->rows[i];
		struct numa_split s;
		if (row->denied)
			continue;
		numa_split_build(&row->c, r->numa, row->has_allowed ? &row->allowed : NULL, &s);
		if (!s.total)
			continue;
		char nodes[512], al[256];
		nodes_text(nodes, sizeof(nodes), &s, &r->g);
		allowed_text(al, sizeof(al), &s);
		table_cell(t, "%ld", row->pid);
		table_cell(t, "%s", row->comm);
		table_cell(t, "%s", nodes);
		table_cell(t, "%s", al);
		flagged += s.remote_thp == NUMA_YES;
		table_cell(t, "%s",
			   s.remote_thp == NUMA_YES  ? "numa-remote-thp"
			   : s.remote_thp == NUMA_NO ? "no"
						     : "inconclusive");
	}
	fprintf(f, "\nTHP by NUMA node (frame -> memory block -> node; %d node%s):\n",
		r->numa->nnodes, r->numa->nnodes == 1 ? "" : "s");
	table_flush(t, f, 2, color);
	if (flagged)
		fprintf(f,
			"%s%d process%s with more than half of its THP on nodes its threads may "
			"not run on (numa-remote-thp)%s\n",
			col_yellow(color), flagged, flagged == 1 ? "" : "es", col_reset(color));
}
