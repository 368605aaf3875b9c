// SPDX-License-Identifier: MIT
#include "proc.h"

#include <string.h>

int proc_thp_optout_vmas(const struct proc_thp *p)
{
	return p->nh_vmas - p->stack_nh_vmas;
}

bool proc_thp_relevant(const struct proc_thp *p)
{
	return p->t.kb[SM_ANON_HUGE] || p->t.kb[SM_SHMEM_PMD] || p->t.kb[SM_FILE_PMD] ||
	       p->hg_vmas || proc_thp_optout_vmas(p) > 0 || p->st.thp_enabled == 0;
}

bool proc_thp_hg_shmem(const struct proc_thp *p)
{
	for (int k = SHK_NONE + 1; k < SHK_N; k++)
		if (p->hg_shm_vmas[k])
			return true;
	return false;
}

enum shmem_kind proc_thp_shmem_off(const struct proc_thp *p, const struct shmem_rules *shmem,
				   int *vmas)
{
	enum shmem_kind most = SHK_NONE;
	int n = 0;
	for (int k = SHK_NONE + 1; k < SHK_N; k++) {
		if (!p->hg_shm_vmas[k] || p->hg_shm_eligible[k] ||
		    !shmem_forbids(shmem, (enum shmem_kind)k, VMF_HG))
			continue;
		n += p->hg_shm_vmas[k];
		if (most == SHK_NONE || p->hg_shm_kb[k] > p->hg_shm_kb[most])
			most = (enum shmem_kind)k;
	}
	if (vmas)
		*vmas = n;
	return most;
}

enum thp_reason proc_thp_reason(const struct proc_thp *p, const char *policy,
				const struct shmem_rules *shmem)
{
	bool huge = p->t.kb[SM_ANON_HUGE] > 0;
	bool always = policy && strcmp(policy, "always") == 0;
	int off = 0; /* hg shmem VMAs their shmem policy keeps from huge pages: no opt-in */
	proc_thp_shmem_off(p, shmem, &off);
	if (p->st.thp_enabled == 0)
		return TR_PRCTL_OFF;
	if (p->hg_vmas > off)
		return TR_MADVISE_IN;
	if (proc_thp_optout_vmas(p) > 0 && !huge)
		return TR_MADVISE_OUT;
	if (huge && always)
		return TR_ALWAYS;
	if (huge)
		return p->rollup ? TR_ROLLUP_HUGE : TR_COLLAPSED;
	if (p->t.kb[SM_SHMEM_PMD] || p->t.kb[SM_FILE_PMD])
		return TR_SHMEM_FILE;
	if (off)
		return TR_SHMEM_OFF;
	if (p->stack_nh_vmas)
		return TR_NONE_STACKS;
	return TR_NONE;
}

bool smaps_known(const struct smaps_totals *t, enum smaps_field f)
{
	return smaps_has(t, f);
}

double proc_thp_share(const struct proc_thp *p)
{
	if (!smaps_has(&p->t, SM_ANONYMOUS) || !p->t.kb[SM_ANONYMOUS])
		return -1;
	double s = (double)p->t.kb[SM_ANON_HUGE] / (double)p->t.kb[SM_ANONYMOUS];
	return s > 1 ? 1 : s;
}
