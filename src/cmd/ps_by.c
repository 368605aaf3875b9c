// SPDX-License-Identifier: MIT
/* `thpctl ps --by cgroup` (cmd/ps_by.h). */
#include "ps_by.h"

#include <err.h>
#include <limits.h>
#include <stdlib.h>

#include "../kernel/cgroup_procs.h"
#include "../kernel/cgroup_stat.h"
#include "../kernel/kv.h"
#include "../kernel/proc_read.h"
#include "../kernel/thp_settings.h"
#include "../model/shmem.h"
#include "../model/ps_group.h"
#include "../render/folios.h"
#include "../render/ps_group.h"
#include "../util/buf.h"
#include "common.h"

bool ps_row_shown(const void *ctx, pid_t pid)
{
	const struct ps_report *r = ctx;
	for (size_t i = 0; i < r->n; i++)
		if (r->rows[i].p.pid == pid)
			return true;
	return false;
}

bool ps_folio_row_shown(const void *ctx, pid_t pid)
{
	const struct folio_ps_report *r = ctx;
	for (size_t i = 0; i < r->n; i++)
		if (r->rows[i].pid == pid)
			return true;
	return false;
}

const struct shmem_rules *ps_shmem_rules(struct globals *g)
{
	static struct choice top, size;
	static struct shmem_rules shm;
	static int state; /* 0 not read yet, 1 read, -1 unreadable */
	uint64_t kb;
	if (!state) {
		state = thp_pmd_shmem_policy(&g->sr, &top, &size, &kb) == 0 ? 1 : -1;
		if (state > 0)
			shmem_rules_make(&top, &size, kb, &shm);
	}
	return state > 0 ? &shm : NULL;
}

/* AnonHugePages of proc/meminfo (host-wide, kB) into *KB; false when unreadable. */
bool host_ahp_kb(struct globals *g, uint64_t *kb)
{
	return meminfo_get(&g->sr, "AnonHugePages", kb) == 0;
}

/* The path of the cgroup of T whose cgroup.procs lists PID, NULL when none does. */
static const char *cgroup_of(const struct cg_tree *t, pid_t pid)
{
	for (size_t i = 0; i < t->n; i++)
		for (int k = 0; k < t->nodes[i].npids; k++)
			if (t->nodes[i].pids[k] == pid)
				return t->nodes[i].path;
	return NULL;
}

int ps_by_cgroup(struct globals *g, const struct ps_report *r)
{
	struct cg_tree t = {0};
	struct psg_in *in = r->n ? calloc(r->n, sizeof(*in)) : NULL;
	struct psg_row *rows = NULL;
	size_t n = 0;
	int ret = EXIT_OK;
	if ((r->n && !in) || cg_tree_read(&g->sr, &t)) {
		warnx("ps: out of memory");
		ret = EXIT_FAIL;
		goto out;
	}
	for (size_t i = 0; i < r->n; i++)
		in[i] = (struct psg_in){.key = cgroup_of(&t, r->rows[i].p.pid),
					.p = &r->rows[i].p,
					.denied = r->rows[i].denied};
	int unread = 0; /* the rows' UNREADABLE, summed */
	for (size_t i = 0; i < r->n; i++)
		unread += r->rows[i].denied;
	if (psg_build(in, r->n, &rows, &n)) {
		warnx("ps: out of memory");
		ret = EXIT_FAIL;
		goto out;
	}
	struct psg_report rep = {
		.rows = rows,
		.n = n,
		.version = t.version,
		.nprocs = r->n,
		/* a process ps left out (--min-ahp) is missing from the sums too, in no row */
		.denied = r->denied > unread ? r->denied - unread : 0,
		.partial = r->denied > 0 || r->errors > 0 || r->damaged > 0,
		.relevant_only = r->relevant_only,
		.has_host_ahp = r->has_host_ahp,
		.host_ahp_kb = r->host_ahp_kb,
		.skips = &r->skips};
	if (g->json) /* a shape of its own: docs/json/ps.by.json */
		ret = cmd_emit_json_as(psg_to_json(&rep), "by");
	else
		psg_render_text(stdout, &rep, g->color);
out:
	free(rows);
	free(in);
	cg_tree_free(&t);
	return ret;
}

int ps_cgroup_pids(struct globals *g, const char *cgroup, pid_t **pids, size_t *n)
{
	char rel[PATH_MAX];
	int k;
	if (cgroup_find(&g->sr, cgroup, rel, sizeof(rel)) ||
	    (k = cgroup_pids(&g->sr, rel, pids)) < 0) {
		warnx("ps: %s is not a cgroup: no %s/%s/cgroup.procs, nor one in the v1 memory "
		      "hierarchy",
		      cgroup, g->sr.live ? "" : g->sr.path, rel);
		return EXIT_FAIL;
	}
	*n = (size_t)k;
	return EXIT_OK;
}
