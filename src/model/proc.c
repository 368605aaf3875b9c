// SPDX-License-Identifier: MIT
#include "proc.h"

#include <errno.h>
#include <stdlib.h>
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

int maps_vma_add(struct maps_report *r, const struct smaps_vma *v, const char *name)
{
	static const enum smaps_field from[MF_N] = {SM_SIZE, SM_RSS, SM_ANON_HUGE};
	size_t c = r->n / MAPS_CHUNK;
	if (c == r->nchunks) {
		struct maps_vma **cs = realloc(r->chunks, (c + 1) * sizeof(*cs));
		if (!cs)
			return -ENOMEM;
		r->chunks = cs;
		if (!(cs[c] = malloc(MAPS_CHUNK * sizeof(**cs))))
			return -ENOMEM;
		r->nchunks++;
	}
	size_t off = r->names.len;
	if (buf_add(&r->names, name, strlen(name) + 1))
		return -ENOMEM;
	struct maps_vma *o = &r->chunks[c][r->n % MAPS_CHUNK];
	*o = (struct maps_vma){.start = v->start,
			       .end = v->end,
			       .thp_eligible =
				       (int8_t)(v->thp_eligible < 0 ? -1 : v->thp_eligible > 0),
			       .has_vmflags = v->has_vmflags,
			       .vmflags = v->vmflags,
			       .name_off = off};
	memcpy(o->perms, v->perms, sizeof(o->perms));
	for (int f = 0; f < MF_N; f++) {
		o->kb[f] = v->t.kb[from[f]];
		if (smaps_known(&v->t, from[f]))
			o->known |= (uint8_t)(1u << f);
	}
	r->n++;
	return 0;
}

void maps_report_free(struct maps_report *r)
{
	for (size_t i = 0; i < r->nchunks; i++)
		free(r->chunks[i]);
	free(r->chunks);
	r->chunks = NULL;
	r->nchunks = r->n = 0;
	buf_free(&r->names);
}
