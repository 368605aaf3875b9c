// SPDX-License-Identifier: MIT
/* Reserve a lab run's hugetlb pages through the guard (lab/hugetlb_pool.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../kernel/hugetlb.h"
#include "../kernel/sysfs.h"
#include "guard.h"
#include "hugetlb_pool.h"

/* The global (not per-node) pool of KB kB pages in H, or NULL. */
static const struct hugetlb_pool *global_pool(const struct hugetlb *h, uint64_t kb)
{
	for (int i = 0; i < h->npools; i++)
		if (h->pools[i].node < 0 && h->pools[i].size_kb == kb)
			return &h->pools[i];
	return NULL;
}

/*
 * What a new mapping can get from Q: free_hugepages less resv_hugepages (free pages promised
 * to mappings not yet faulted in; the kernel's available_huge_pages()), as `hugetlb plan`
 * counts it. An unreadable resv counts as 0 (callers check nr and free; lab_pool_now() tells).
 */
static uint64_t avail(const struct hugetlb_pool *q)
{
	uint64_t resv = q->resv.present ? q->resv.v : 0;
	return q->free.v > resv ? q->free.v - resv : 0;
}

int lab_pool_reserve(const struct lab_ctx *ctx, uint64_t kb, uint64_t need, struct lab_pool *p)
{
	static struct hugetlb h;
	memset(p, 0, sizeof(*p));
	p->kb = kb;
	p->need = need;
	const struct hugetlb_pool *q = hugetlb_read(ctx->sr, &h) ? NULL : global_pool(&h, kb);
	if (!q || !q->nr.present || !q->free.present) {
		p->why = q ? "its nr_hugepages or free_hugepages cannot be read"
			   : "no pool of that size";
		return q ? -EIO : -ENOENT;
	}
	p->nr0 = p->nr = q->nr.v;
	p->got = avail(q);
	if (p->got >= need)
		return 0;
	char val[24];
	int e = hugetlb_pool_rel(p->rel, sizeof(p->rel), kb, "nr_hugepages");
	snprintf(val, sizeof(val), "%llu", (unsigned long long)(p->nr0 + need - p->got));
	if (!e)
		e = guard_write(p->rel, val);
	if (e) {
		p->why = "nr_hugepages could not be written";
		return e;
	}
	p->raised = true;
	if (hugetlb_read(ctx->sr, &h) || !(q = global_pool(&h, kb)) || !q->free.present) {
		p->why = "the pool could not be read back";
		return -EIO;
	}
	p->nr = q->nr.present ? q->nr.v : 0;
	p->got = avail(q);
	if (p->got < need) {
		p->why =
			"the kernel found too few free huge pages (memory fragmented or short, or promised to mappings: resv_hugepages)";
		return -ENOMEM;
	}
	return 0;
}

bool lab_pool_now(const struct lab_ctx *ctx, uint64_t kb, struct opt_u64 *nr, struct opt_u64 *free,
		  struct opt_u64 *resv)
{
	static struct hugetlb h;
	const struct hugetlb_pool *q = hugetlb_read(ctx->sr, &h) ? NULL : global_pool(&h, kb);
	if (!q)
		return false;
	*nr = q->nr;
	*free = q->free;
	*resv = q->resv;
	return true;
}

int64_t lab_pool_free(const struct lab_ctx *ctx, uint64_t kb)
{
	static struct hugetlb h;
	const struct hugetlb_pool *q = hugetlb_read(ctx->sr, &h) ? NULL : global_pool(&h, kb);
	return q && q->free.present ? (int64_t)q->free.v : -1;
}

void lab_pool_release(struct lab_pool *p)
{
	char old[24];
	if (!p->raised)
		return;
	snprintf(old, sizeof(old), "%llu", (unsigned long long)p->nr0);
	guard_write(p->rel, old);
	p->raised = false;
}
