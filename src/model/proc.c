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

const char *proc_thp_reason(const struct proc_thp *p, const char *policy)
{
	bool huge = p->t.kb[SM_ANON_HUGE] > 0;
	bool always = policy && strcmp(policy, "always") == 0;
	if (p->st.thp_enabled == 0)
		return "THP disabled by prctl";
	if (p->hg_vmas)
		return "opted in by madvise";
	if (proc_thp_optout_vmas(p) > 0 && !huge)
		return "opted out by madvise";
	if (huge && always)
		return "global always";
	if (huge)
		return p->rollup ? "huge pages (flags not read)" : "collapsed (no hg VMA)";
	if (p->t.kb[SM_SHMEM_PMD] || p->t.kb[SM_FILE_PMD])
		return "shmem/file huge pages";
	if (p->stack_nh_vmas)
		return "none (thread stacks: nh set by the kernel for MAP_STACK)";
	return "none";
}

double proc_thp_share(const struct proc_thp *p)
{
	if (!smaps_has(&p->t, SM_ANONYMOUS) || !p->t.kb[SM_ANONYMOUS])
		return -1;
	double s = (double)p->t.kb[SM_ANON_HUGE] / (double)p->t.kb[SM_ANONYMOUS];
	return s > 1 ? 1 : s;
}
