// SPDX-License-Identifier: MIT
/* The shmem policy a VMA follows, in words (render/shmem.h). */
#include "shmem.h"

#include <stdio.h>
#include <string.h>

const char *shmem_pmd_words(const struct shmem_pmd *p, bool brief, char *out, size_t n)
{
	bool inherit = p->size_val && strcmp(p->size_val, "inherit") == 0;
	if (!p->top && !p->size_kb)
		snprintf(out, n, "shmem_enabled (not readable)");
	else if (p->size_kb && inherit && !brief)
		snprintf(out, n, "hugepages-%llukB/shmem_enabled inherit -> shmem_enabled=%s",
			 (unsigned long long)p->size_kb, p->top ? p->top : "?");
	else if (p->size_kb && !inherit && p->policy == p->size_val)
		snprintf(out, n, "hugepages-%llukB/shmem_enabled=%s",
			 (unsigned long long)p->size_kb, p->size_val);
	else
		snprintf(out, n, "shmem_enabled=%s", p->top ? p->top : "?");
	return out;
}
