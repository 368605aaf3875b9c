// SPDX-License-Identifier: MIT
/*
 * `why`: shared memory. Shmem (MAP_SHARED anonymous memory such as
 * PostgreSQL's "/dev/zero (deleted)", SysV shm, memfd, tmpfs files) gets huge
 * pages by shmem_enabled (and, 6.11+, hugepages-<size>kB/shmem_enabled), not
 * by enabled; a tmpfs mount such as /dev/shm by its own huge= option (deny
 * and force override both), each kind as model/shmem.h decides. ShmemPmdMapped
 * says what is PMD-mapped now. MADV_HUGEPAGE shmem its policy forbids
 * (why_hg_shmem_off) is left out of what enabled, defrag and khugepaged do.
 */
#include <string.h>

#include "why.h"

bool why_shmem_name(const char *name, size_t len)
{
	return smaps_shmem_kind(name, len, VMF_SH) != SHK_NONE;
}

void why_hg_shmem_off(const struct why_input *in, struct why_shm_off *out)
{
	const struct why_vmas *v = &in->vmas;
	memset(out, 0, sizeof(*out));
	if (in->smaps_err || !v->has_vmflags)
		return;
	struct shmem_rules rules;
	shmem_rules_of(&in->h->thp, in->h->feat.pmd_size, &rules);
	uint64_t most = 0;
	for (int k = SHK_NONE + 1; k < SHK_N; k++) {
		const struct why_shm_hg *s = &v->hg_shm[k];
		if (!s->vmas || !shmem_forbids(&rules, (enum shmem_kind)k, VMF_HG))
			continue;
		out->vmas += s->vmas;
		out->kb += s->kb;
		out->small_kb +=
			s->pmd_rss_kb > s->pmd_mapped_kb ? s->pmd_rss_kb - s->pmd_mapped_kb : 0;
		out->pmd_mapped_kb += s->pmd_mapped_kb;
		if (s->kb >= most) {
			most = s->kb;
			out->pol = rules.k[k][1];
		}
	}
	out->hg = v->hg;
	out->live = v->hg > out->vmas ? v->hg - out->vmas : 0;
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
	struct shmem_rules rules;
	shmem_rules_of(&h->thp, h->feat.pmd_size, &rules);
	const struct why_vma_top *big = &v->largest_shmem;
	enum shmem_kind k = smaps_shmem_kind(big->name, strlen(big->name), big->vmflags | VMF_SH);
	const struct shmem_pmd *pol = shmem_rule(&rules, k, big->vmflags);
	if (pol)
		e.pol = *pol;
	uint64_t pmd_kb = h->feat.pmd_size / 1024;
	enum why_effect ef = WE_NEUTRAL;
	if (v->shmem_pmd_kb)
		ef = WE_HELPS;
	else if (pol && pol->allowed == TRI_NO && pmd_kb && big->size_kb >= pmd_kb)
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
