// SPDX-License-Identifier: MIT
/* The PMD-size shmem policy of a VMA (model/shmem.h). */
#include "shmem.h"

#include <string.h>

static bool is(const char *v, const char *w)
{
	return v && strcmp(v, w) == 0;
}

/* What policy value V allows a VMA with (HG) or without MADV_HUGEPAGE. */
static enum tri value_allows(const char *v, bool hg)
{
	if (is(v, "always") || is(v, "within_size") || is(v, "force"))
		return TRI_YES;
	if (is(v, "advise"))
		return hg ? TRI_YES : TRI_NO;
	if (is(v, "never") || is(v, "deny"))
		return TRI_NO;
	return TRI_UNKNOWN;
}

void shmem_pmd_decide(const struct choice *top, const struct choice *size, uint64_t size_kb,
		      enum shmem_kind k, bool hg, struct shmem_pmd *out)
{
	memset(out, 0, sizeof(*out));
	out->allowed = TRI_UNKNOWN;
	out->top = top && top->present ? top->selected : NULL;
	out->policy = out->top;
	if (k == SHK_NONE || k >= SHK_N || !out->top)
		return;
	if (is(out->top, "deny")) { /* off on every mount and every size */
		out->allowed = TRI_NO;
		return;
	}
	if (k == SHK_TMPFS) { /* the mount's huge= decides, unless force */
		out->allowed = is(out->top, "force") ? TRI_YES : TRI_UNKNOWN;
		return;
	}
	if (k == SHK_ANON && size && size->present) {
		out->size_kb = size_kb;
		out->size_val = size->selected;
		if (is(out->top, "force")) {
			/* force allows the sizes that inherit; what it does to the others is not
			 * decided here */
			out->allowed = is(size->selected, "inherit") ? TRI_YES : TRI_UNKNOWN;
			return;
		}
		if (!is(size->selected, "inherit"))
			out->policy = size->selected;
	}
	out->allowed = value_allows(out->policy, hg);
}

void shmem_rules_make(const struct choice *top, const struct choice *size, uint64_t size_kb,
		      struct shmem_rules *out)
{
	for (int k = 0; k < SHK_N; k++)
		for (int hg = 0; hg < 2; hg++)
			shmem_pmd_decide(top, size, size_kb, (enum shmem_kind)k, hg,
					 &out->k[k][hg]);
}

void shmem_rules_of(const struct thp_settings *s, uint64_t pmd_size, struct shmem_rules *out)
{
	uint64_t kb = pmd_size / 1024;
	const struct thp_size *sz = s->present && kb ? thp_size_find(s, kb) : NULL;
	shmem_rules_make(s->present ? &s->shmem_enabled : NULL, sz ? &sz->shmem_enabled : NULL, kb,
			 out);
}

const struct shmem_pmd *shmem_rule(const struct shmem_rules *r, enum shmem_kind k, unsigned flags)
{
	if (!r || k <= SHK_NONE || k >= SHK_N)
		return NULL;
	return &r->k[k][(flags & VMF_HG) ? 1 : 0];
}

bool shmem_forbids(const struct shmem_rules *r, enum shmem_kind k, unsigned flags)
{
	const struct shmem_pmd *p = shmem_rule(r, k, flags);
	return p && p->allowed == TRI_NO;
}
