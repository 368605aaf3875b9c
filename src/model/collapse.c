// SPDX-License-Identifier: MIT
#include "collapse.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../kernel/smaps.h"
#include "../util/str.h"

bool cvma_is_anon(const struct cvma *v)
{
	if (v->perms[3] != 'p')
		return false;
	return v->name[0] == '\0' || strcmp(v->name, "[heap]") == 0 ||
	       strcmp(v->name, "[stack]") == 0 || strncmp(v->name, "[anon:", 6) == 0;
}

const char *cvma_label(const struct cvma *v)
{
	return v->name[0] ? v->name : "[anon]";
}

static int hexdig(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static const char *hex(const char *p, uint64_t *v)
{
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	uint64_t x = 0;
	int n = 0, d;
	while ((d = hexdig(*p)) >= 0) {
		if (++n > 16)
			return NULL;
		x = x << 4 | (uint64_t)d;
		p++;
	}
	if (!n)
		return NULL;
	*v = x;
	return p;
}

int collapse_parse_range(const char *s, uint64_t *start, uint64_t *end)
{
	uint64_t a, b;
	const char *p = hex(s, &a);
	if (!p || *p != '-')
		return -EINVAL;
	p = hex(p + 1, &b);
	if (!p || *p || b <= a)
		return -EINVAL;
	*start = a;
	*end = b;
	return 0;
}

static bool name_matches(const struct cvma *v, const char *want)
{
	return strcmp(cvma_label(v), want) == 0 || strcmp(v->name, want) == 0;
}

int collapse_vma_unmatched(const struct cvma *v, int n, const struct collapse_sel *sel)
{
	for (int j = 0; j < sel->nvmas; j++) {
		bool hit = false;
		for (int i = 0; i < n && !hit; i++)
			hit = name_matches(&v[i], sel->vmas[j]);
		if (!hit)
			return j;
	}
	return -1;
}

/* Fill R for [A, B) over the VMAs overlapping it. */
static void fill(struct crange *r, const struct cvma *v, int n, const struct collapse_sel *sel,
		 uint64_t pmd, uint64_t a, uint64_t b)
{
	memset(r, 0, sizeof(*r));
	r->req_start = a;
	r->req_end = b;
	r->start = (a + pmd - 1) / pmd * pmd;
	r->end = b / pmd * pmd;
	if (r->end < r->start)
		r->end = r->start;
	bool any = false, nh = false;
	size_t used = 0;
	for (int i = 0; i < n; i++) {
		if (v[i].end <= a || v[i].start >= b)
			continue;
		if (v[i].has_vmflags && (v[i].vmflags & VMF_NH))
			nh = true;
		/* shmem its policy forbids (the kernel agrees: not THPeligible 1) */
		unsigned fl = (v[i].perms[3] == 's' ? VMF_SH : 0) | v[i].vmflags;
		enum shmem_kind k = smaps_shmem_kind(v[i].name, strlen(v[i].name), fl);
		if (shmem_forbids(sel->shmem, k, fl) && v[i].thp_eligible != 1 && !r->shm) {
			r->shm = k;
			r->shm_hg = fl & VMF_HG;
		}
		const char *l = cvma_label(&v[i]);
		if (!any || !strstr(r->vma, l)) {
			char lab[CVMA_NAME_LEN + 2] = ",";
			str_copy(lab + 1, sizeof(lab) - 1, l);
			const char *add = any ? lab : lab + 1;
			/* a label that does not fit is cut, and the next one may take its place */
			if (str_copy(r->vma + used, sizeof(r->vma) - used, add))
				used += strlen(add);
		}
		any = true;
	}
	r->npmd = (r->end - r->start) / pmd;
	if (!any)
		r->skip = CR_SKIP_UNMAPPED;
	else if (!r->npmd)
		r->skip = CR_SKIP_SMALL;
	else if (sel->thp_enabled == 0 && !sel->force)
		r->skip = CR_SKIP_PRCTL;
	else if (nh && !sel->force)
		r->skip = CR_SKIP_NH;
	else if (r->shm && !sel->force)
		r->skip = CR_SKIP_SHMEM;
	else
		r->skip = CR_GO;
}

int collapse_select(const struct cvma *v, int n, const struct collapse_sel *sel, uint64_t pmd,
		    struct crange *out, int max, int *nsmall)
{
	int k = 0;
	*nsmall = 0;
	if (!pmd)
		return 0;
	if (sel->nranges) {
		for (int i = 0; i < sel->nranges; i++) {
			if (k == max)
				return -ENOSPC;
			fill(&out[k++], v, n, sel, pmd, sel->ranges[i].start, sel->ranges[i].end);
		}
		return k;
	}
	for (int i = 0; i < n; i++) {
		bool want;
		if (sel->nvmas) {
			want = false;
			for (int j = 0; j < sel->nvmas; j++)
				want |= name_matches(&v[i], sel->vmas[j]);
		} else {
			want = cvma_is_anon(&v[i]) && v[i].perms[0] == 'r' && v[i].perms[1] == 'w';
		}
		if (!want)
			continue;
		struct crange r;
		fill(&r, &v[i], 1, sel, pmd, v[i].start, v[i].end);
		if (r.skip == CR_SKIP_SMALL && !sel->nvmas) {
			(*nsmall)++;
			continue;
		}
		if (k == max)
			return -ENOSPC;
		out[k++] = r;
	}
	return k;
}

/* The sum of AnonHugePages (AHP true) or Rss of the VMAs of V[0..N) that overlap [START, END). */
static uint64_t overlap_kb(const struct cvma *v, int n, uint64_t start, uint64_t end, bool ahp)
{
	uint64_t kb = 0;
	for (int i = 0; i < n; i++)
		if (v[i].end > start && v[i].start < end)
			kb += ahp ? v[i].ahp_kb : v[i].rss_kb;
	return kb;
}

uint64_t collapse_ahp_kb(const struct cvma *v, int n, uint64_t start, uint64_t end)
{
	return overlap_kb(v, n, start, end, true);
}

uint64_t collapse_rss_kb(const struct cvma *v, int n, uint64_t start, uint64_t end)
{
	return overlap_kb(v, n, start, end, false);
}

/* Aligned PMDs of [A, B) with PMD bytes each. */
static uint64_t pmds_in(uint64_t a, uint64_t b, uint64_t pmd)
{
	a = (a + pmd - 1) / pmd * pmd;
	b = b / pmd * pmd;
	return b > a ? (b - a) / pmd : 0;
}

void collapse_huge_smaps(struct crange *r, const struct cvma *v, int n, uint64_t pmd)
{
	uint64_t sure = 0;
	bool exact = true;
	r->huge_pmds = r->huge_zero_pmds = 0;
	r->huge_how = CH_UNKNOWN;
	if (!pmd)
		return;
	for (int i = 0; i < n; i++) {
		uint64_t a = v[i].start > r->start ? v[i].start : r->start;
		uint64_t b = v[i].end < r->end ? v[i].end : r->end;
		uint64_t in = b > a ? pmds_in(a, b, pmd) : 0,
			 all = pmds_in(v[i].start, v[i].end, pmd);
		if (!in)
			continue;
		if (!v[i].pmd_known)
			return;
		uint64_t huge = v[i].pmd_mapped_kb / (pmd / 1024);
		if (huge > all)
			huge = all; /* damaged: more than the VMA can hold */
		/* at most ALL - IN of them lie outside R */
		sure += huge > all - in ? huge - (all - in) : 0;
		exact &= in == all || huge == 0 || huge == all;
	}
	r->huge_pmds = sure;
	r->huge_how = exact ? CH_SMAPS : CH_SMAPS_AT_LEAST;
}

bool collapse_fully_mapped(const struct cvma *v, int n, uint64_t a, uint64_t b)
{
	uint64_t at = a;
	for (int i = 0; i < n && at < b; i++) {
		if (v[i].end <= at)
			continue;
		if (v[i].start > at)
			return false; /* a hole at AT */
		at = v[i].end;
	}
	return at >= b;
}

uint64_t collapse_hole_pmds(const struct cvma *v, int n, uint64_t start, uint64_t end, uint64_t pmd)
{
	uint64_t holes = 0;
	for (uint64_t a = start; pmd && a + pmd <= end; a += pmd)
		holes += !collapse_fully_mapped(v, n, a, a + pmd);
	return holes;
}

void collapse_settle(struct crange *r, uint64_t pmd)
{
	r->collapsed_bytes = 0;
	r->done_how = CD_NONE;
	if (!r->attempted)
		return;
	if (!r->nok_unchecked) {
		r->collapsed_bytes = r->nok * pmd;
		r->done_how = CD_CALLS;
		return;
	}
	if (!r->have_after || !pmd) {
		r->done_how = CD_UNKNOWN;
		return;
	}
	uint64_t grew = r->ahp_after_kb > r->ahp_before_kb ? r->ahp_after_kb - r->ahp_before_kb : 0;
	uint64_t pmds = grew / (pmd / 1024);
	r->collapsed_bytes = (pmds < r->nok ? pmds : r->nok) * pmd;
	r->done_how = CD_ANON_HUGE;
}

void collapse_plan_range(struct crange *r, uint64_t pmd_pages, double max, bool force)
{
	r->have_growth = false;
	r->est_inflate = 0;
	if (r->skip != CR_GO)
		return;
	if (r->hole_pmds >= r->npmd) {
		r->skip = CR_SKIP_HOLES;
		return;
	}
	uint64_t huge = r->huge_how == CH_UNKNOWN ? 0 : r->huge_pmds;
	if (huge > r->npmd - r->hole_pmds)
		huge = r->npmd - r->hole_pmds;
	if (!r->have_estimate) {
		r->planned_pmds = r->npmd - r->hole_pmds - huge;
		if (!r->planned_pmds)
			r->skip = CR_SKIP_HUGE;
		return;
	}
	/* a PMD-mapped huge page is non-empty, all its pages present (the process may have
	 * changed between the reads: never below zero) */
	if (huge > r->nonempty_pmds)
		huge = r->nonempty_pmds;
	r->planned_pmds = r->nonempty_pmds - huge;
	uint64_t present = r->present_pages, whole = huge * pmd_pages;
	present = present > whole ? present - whole : 0;
	if (!r->nonempty_pmds) {
		r->skip = CR_SKIP_EMPTY;
		return;
	}
	if (!r->planned_pmds) {
		r->skip = CR_SKIP_HUGE;
		return;
	}
	if (!present || !pmd_pages)
		return; /* no ratio: the reads disagree */
	r->have_growth = true;
	r->est_inflate = (double)(r->planned_pmds * pmd_pages) / (double)present;
	if (r->est_inflate > max && !force)
		r->skip = CR_SKIP_INFLATE;
}

unsigned collapse_backoff_ms(int attempt)
{
	/* 1, 4, 16, 64 ms: a locked page is usually released within microseconds */
	static const unsigned ms[] = {1, 4, 16, 64};
	if (attempt < 1 || attempt > (int)(sizeof(ms) / sizeof(ms[0])))
		return 0;
	return ms[attempt - 1];
}
