// SPDX-License-Identifier: MIT
#include "hugetlb_plan.h"

#include <errno.h>
#include <string.h>

#include "../util/num.h"
#include "../util/names.h"
#include "../util/wide.h"

static const char *const runtime_names[] = {[HP_RT_ALREADY] = "already",
					    [HP_RT_NOW] = "now",
					    [HP_RT_COMPACT] = "after-compaction",
					    [HP_RT_BOOT] = "boot",
					    [HP_RT_NOFIT] = "does-not-fit"};

const char *hp_runtime_name(enum hp_runtime r)
{
	return ENUM_NAME(runtime_names, r, "unknown");
}

static const struct hp_node *find_node(const struct hp_plan_input *in, int node)
{
	for (int i = 0; i < in->nnodes; i++)
		if (in->nodes[i].node == node)
			return &in->nodes[i];
	return NULL;
}

static void runtime(const struct hp_plan_input *in, struct hp_plan *p)
{
	/* what is reserved now, and what the buddy allocator could give */
	bool have_buddy = false;
	/* no pool of the size: none reserved; a pool whose nr_hugepages is unreadable: unknown */
	const struct opt_u64 *nr = &in->nr;
	if (in->node >= 0) {
		const struct hp_node *nd = find_node(in, in->node);
		nr = nd ? &nd->nr : NULL;
		if (nd && nd->has_buddy) {
			have_buddy = true;
			p->free_blocks = nd->free_blocks;
		}
	} else {
		for (int i = 0; i < in->nnodes; i++)
			if (in->nodes[i].has_buddy) {
				have_buddy = true;
				p->free_blocks += in->nodes[i].free_blocks;
			}
	}
	/* a node not in the tree has no pool to read (HP_NOTE_NO_NODE says so): none reserved */
	p->have_known = !in->size_supported || !nr || nr->present;
	p->have = nr && nr->present ? nr->v : 0;
	p->need = p->pages > p->have ? p->pages - p->have : 0;
	p->gigantic = p->order >= 0 && in->buddy_max_order >= 0 && p->order > in->buddy_max_order;
	if (!p->fits)
		p->runtime = HP_RT_NOFIT;
	else if (!p->have_known) /* how many pages are reserved now is unknown */
		p->runtime = HP_RT_UNKNOWN, p->need = 0;
	else if (p->need == 0)
		p->runtime = HP_RT_ALREADY;
	else if (p->gigantic)
		p->runtime = HP_RT_BOOT;
	else if (!have_buddy || p->order < 0)
		p->runtime = HP_RT_UNKNOWN;
	else if (p->free_blocks >= p->need)
		p->runtime = HP_RT_NOW;
	/* compaction may assemble the rest from free memory, leaving the kernel its reserve;
	 * need <= pages and pages * page_kb fits (checked in hugetlb_plan); the sum in u128 */
	else if (in->has_mem_free &&
		 in->mem_free_kb >= (u128)p->need * in->page_kb + HP_KERNEL_RESERVE_KB)
		p->runtime = HP_RT_COMPACT;
	else
		p->runtime = HP_RT_BOOT;
}

int hugetlb_plan(const struct hp_plan_input *in, struct hp_plan *p)
{
	memset(p, 0, sizeof(*p));
	p->order = -1;
	if (in->page_kb == 0 || in->for_bytes == 0 || in->overhead_pct > 1000)
		return -EINVAL;
	uint64_t extra = in->for_bytes / 100 * in->overhead_pct +
			 (in->for_bytes % 100) * in->overhead_pct / 100;
	if (in->for_bytes > UINT64_MAX - extra)
		return -EINVAL;
	p->pool_bytes = in->for_bytes + extra;
	uint64_t page_b;
	if (!mul_u64(in->page_kb, 1024, &page_b))
		return -EINVAL;
	p->pages = p->pool_bytes / page_b + (p->pool_bytes % page_b ? 1 : 0);
	if (p->pages > UINT64_MAX / in->page_kb)
		return -EINVAL;
	p->total_kb = p->pages * in->page_kb;
	if (in->base_page > 0 && page_b % (uint64_t)in->base_page == 0)
		p->order = log2_floor(page_b / (uint64_t)in->base_page);

	/* the memory the pool comes out of: the node's, or the host's */
	const struct hp_node *nd = in->node >= 0 ? find_node(in, in->node) : NULL;
	if (nd && nd->has_mem_total) {
		p->scope_mem_known = true;
		p->scope_mem_kb = nd->mem_total_kb;
	} else if (in->has_mem_total && (in->node < 0 || in->nnodes <= 1)) {
		p->scope_mem_known = true;
		p->scope_mem_kb = in->mem_total_kb;
	}
	if (p->scope_mem_known) {
		uint64_t usable = p->scope_mem_kb > HP_KERNEL_RESERVE_KB
					  ? p->scope_mem_kb - HP_KERNEL_RESERVE_KB
					  : 0;
		p->max_pages = usable / in->page_kb;
		p->fits = p->total_kb <= usable;
		p->left_kb = p->fits ? p->scope_mem_kb - p->total_kb : 0;
	} else {
		p->fits = true; /* unknown: judged by the reservation itself */
	}
	runtime(in, p);
	bool dflt = in->default_page_kb && in->page_kb == in->default_page_kb;
	p->target = in->node >= 0 ? HP_TARGET_NODE : dflt ? HP_TARGET_DEFAULT : HP_TARGET_SIZE;
	if (!in->size_supported)
		p->notes |= HP_NOTE_UNSUPPORTED;
	if (!p->have_known)
		p->notes |= HP_NOTE_HAVE_UNKNOWN;
	else if (p->have && p->have != p->pages)
		p->notes |= HP_NOTE_POOL_SHARED;
	if (in->default_page_kb && in->page_kb != in->default_page_kb)
		p->notes |= HP_NOTE_NOT_DEFAULT;
	if (in->node >= 0 && !nd)
		p->notes |= HP_NOTE_NO_NODE;
	return 0;
}

bool hp_plan_reservable(const struct hp_plan *p)
{
	return p->runtime != HP_RT_NOFIT;
}
