// SPDX-License-Identifier: MIT
/*
 * `why`: shared memory. Shmem (MAP_SHARED anonymous memory such as
 * PostgreSQL's "/dev/zero (deleted)", SysV shm, memfd, tmpfs files) gets huge
 * pages by shmem_enabled (and, 6.11+, hugepages-<size>kB/shmem_enabled), not
 * by enabled; a tmpfs mount such as /dev/shm by its own huge= option (deny
 * and force override both). ShmemPmdMapped says what is PMD-mapped now.
 */
#include <stdio.h>
#include <string.h>

#include "../util/units.h"
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

/* The PMD size's shmem policy: the per-size file resolved (6.11+), else the top-level file. */
static const char *shmem_policy(const struct host_snapshot *h, char *how, size_t n)
{
	uint64_t pmd_kb = h->feat.pmd_size / 1024;
	const struct thp_size *sz = pmd_kb ? thp_size_find(&h->thp, pmd_kb) : NULL;
	const char *top = h->thp.shmem_enabled.present ? h->thp.shmem_enabled.selected : NULL;
	if (sz && sz->shmem_enabled.present && sz->eff_shmem) {
		snprintf(how, n, "hugepages-%llukB/shmem_enabled %s%s%s",
			 (unsigned long long)pmd_kb, sz->shmem_enabled.selected,
			 strcmp(sz->shmem_enabled.selected, "inherit") ? "" : " -> shmem_enabled=",
			 strcmp(sz->shmem_enabled.selected, "inherit") ? "" : (top ? top : "?"));
		return sz->eff_shmem;
	}
	snprintf(how, n, "shmem_enabled=%s", top ? top : "?");
	return top;
}

void why_explain_shmem(const struct why_input *in, struct why_report *r)
{
	const struct why_vmas *v = &in->vmas;
	const struct host_snapshot *h = in->h;
	if (in->smaps_err || !v->shmem_vmas)
		return;
	char src[64], size[32], rss[32], pmd[32], big[32], how[160];
	snprintf(src, sizeof(src), "/" SR_PROC "/%ld/smaps", in->pid);
	fmt_kb(size, sizeof(size), v->shmem_kb);
	fmt_kb(rss, sizeof(rss), v->shmem_rss_kb);
	fmt_kb(pmd, sizeof(pmd), v->shmem_pmd_kb);
	fmt_kb(big, sizeof(big), v->largest_shmem.size_kb);
	const char *pol = h->thp.present ? shmem_policy(h, how, sizeof(how)) : NULL;
	uint64_t pmd_kb = h->feat.pmd_size / 1024;
	enum why_effect e = WE_NEUTRAL;
	if (v->shmem_pmd_kb)
		e = WE_HELPS;
	else if (pol &&
		 (!strcmp(pol, "deny") ||
		  (!strcmp(pol, "never") && strncmp(v->largest_shmem.name, "/dev/shm/", 9))) &&
		 pmd_kb && v->largest_shmem.size_kb >= pmd_kb)
		e = WE_HINDERS;
	why_linef(
		r, "shmem", e, src,
		"%d shared-memory VMA%s (MAP_SHARED anonymous, SysV, memfd or /dev/shm), %s mapped, %s "
		"resident, ShmemPmdMapped %s; largest %s (%s). Shmem huge pages follow %s, not enabled "
		"(a tmpfs mount such as /dev/shm: its huge= option)%s",
		v->shmem_vmas, v->shmem_vmas == 1 ? "" : "s", size, rss, pmd, v->largest_shmem.name,
		big, pol ? how : "shmem_enabled (unknown: not readable)",
		e == WE_HINDERS ? ": none of it can be PMD-mapped now" : "");
	if (!h->thp.present)
		return;
	/* a program that asks for hugetlb first (PostgreSQL huge_pages=try) falls back to shmem */
	uint64_t total = 0, free_ = 0;
	bool have = kv_get(&h->meminfo, "HugePages_Total", &total) &&
		    kv_get(&h->meminfo, "HugePages_Free", &free_);
	if (v->hugetlb_vmas || !pmd_kb || v->largest_shmem.size_kb < pmd_kb || !have)
		return;
	why_linef(
		r, "hugetlb", WE_NEUTRAL, "/" SR_PROC "/meminfo",
		"no hugetlb mapping: its shared memory is ordinary shmem. A program that asks for "
		"hugetlb first and falls back (PostgreSQL huge_pages=try) fell back or never asked; "
		"the default hugetlb pool has HugePages_Total %llu, HugePages_Free %llu",
		(unsigned long long)total, (unsigned long long)free_);
}
