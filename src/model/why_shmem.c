// SPDX-License-Identifier: MIT
/*
 * `why`: shared memory. Shmem (MAP_SHARED anonymous memory such as
 * PostgreSQL's "/dev/zero (deleted)", SysV shm, memfd, tmpfs files) gets huge
 * pages by shmem_enabled (and, 6.11+, hugepages-<size>kB/shmem_enabled), not
 * by enabled; a tmpfs mount such as /dev/shm by its own huge= option (deny
 * and force override both). ShmemPmdMapped says what is PMD-mapped now.
 */
#include <string.h>

#include "why.h"

bool why_shmem_name(const char *name, size_t len)
{
	static const char *const pre[] = {"/dev/zero", "/SYSV", "/memfd:", "/dev/shm/",
					  "[anon_shmem:"};
	for (size_t i = 0; i < sizeof(pre) / sizeof(pre[0]); i++) {
		size_t n = strlen(pre[i]);
		if (len >= n && !memcmp(name, pre[i], n))
			return true;
	}
	return false;
}

/* The PMD size's shmem policy into E: the per-size file resolved (6.11+), else the top-level file. */
static void shmem_policy(const struct host_snapshot *h, struct why_ev_shmem *e)
{
	uint64_t pmd_kb = h->feat.pmd_size / 1024;
	const struct thp_size *sz = pmd_kb ? thp_size_find(&h->thp, pmd_kb) : NULL;
	e->top = h->thp.shmem_enabled.present ? h->thp.shmem_enabled.selected : NULL;
	if (sz && sz->shmem_enabled.present && sz->eff_shmem) {
		e->pmd_kb = pmd_kb;
		e->size_val = sz->shmem_enabled.selected;
		e->policy = sz->eff_shmem;
		return;
	}
	e->policy = e->top;
}

void why_explain_shmem(const struct why_input *in, struct why_report *r)
{
	const struct why_vmas *v = &in->vmas;
	const struct host_snapshot *h = in->h;
	if (in->smaps_err || !v->shmem_vmas)
		return;
	struct why_ev_shmem e = {.vmas = v->shmem_vmas,
				 .kb = v->shmem_kb,
				 .rss_kb = v->shmem_rss_kb,
				 .pmd_mapped_kb = v->shmem_pmd_kb,
				 .largest = &v->largest_shmem};
	if (h->thp.present)
		shmem_policy(h, &e);
	const char *pol = e.policy;
	uint64_t pmd_kb = h->feat.pmd_size / 1024;
	enum why_effect ef = WE_NEUTRAL;
	if (v->shmem_pmd_kb)
		ef = WE_HELPS;
	else if (pol &&
		 (!strcmp(pol, "deny") ||
		  (!strcmp(pol, "never") && strncmp(v->largest_shmem.name, "/dev/shm/", 9))) &&
		 pmd_kb && v->largest_shmem.size_kb >= pmd_kb)
		ef = WE_HINDERS;
	e.none_pmd = ef == WE_HINDERS;
	struct why_line *l = why_line_new(r, "shmem", ef, WI_SHMEM, KP_PROC_FILE, in->pid, "smaps");
	if (l)
		l->ev.shmem = e;
	if (!h->thp.present)
		return;
	/* a program that asks for hugetlb first (PostgreSQL huge_pages=try) falls back to shmem */
	bool have = kv_get(&h->meminfo, "HugePages_Total", &e.hugetlb_total) &&
		    kv_get(&h->meminfo, "HugePages_Free", &e.hugetlb_free);
	if (v->hugetlb_vmas || !pmd_kb || v->largest_shmem.size_kb < pmd_kb || !have)
		return;
	l = why_line_new(r, "hugetlb", WE_NEUTRAL, WI_SHMEM_NO_HUGETLB, KP_MEMINFO, 0, NULL);
	if (l)
		l->ev.shmem = e;
}
